"""The ``/verify`` service of 000 (S2): ``GET /health`` and ``POST /verify`` over HTTP.

A thin shell over the engine, built on Starlette and served by uvicorn (the optional
``service`` extra: ``pip install 'pytest-citations[service]'``).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any

from .backends import Backends
from .errors import AccountError, CitationsError, MissingTokenError
from .network import HttpClient, make_http_client
from .redact import LogRedaction
from .settings import Settings
from .urls import MAX_URL_CHARS, is_supported_url
from .verifier import Verifier

#: Request limits: cited URLs per claim, characters of the claim, bytes of the body.
MAX_URLS = 10
MAX_CLAIM_CHARS = 2000
MAX_BODY_BYTES = 64 * 1024


@dataclass(frozen=True)
class Limits:
    """What one ``/verify`` request may ask for."""

    max_urls: int = MAX_URLS
    max_claim_chars: int = MAX_CLAIM_CHARS
    max_body_bytes: int = MAX_BODY_BYTES


class _Invalid(Exception):
    def __init__(self, status: int, detail: Any) -> None:
        super().__init__(str(detail))
        self.status = status
        self.detail = detail


def missing_secrets(settings: Settings) -> list[str]:
    """Every variable the service needs to verify and lacks (all of them, at once)."""
    return Backends().missing(settings)


def _not_set(variables: list[str]) -> str:
    verb = "is" if len(variables) == 1 else "are"
    return f"{' and '.join(variables)} {verb} not set"


def parse_request(body: bytes, limits: Limits) -> tuple[str, list[str]]:
    """Validate a ``/verify`` body: ``{"claim": str, "urls": [str, ...]}`` within the limits."""
    if len(body) > limits.max_body_bytes:
        raise _Invalid(413, f"request body over {limits.max_body_bytes} bytes")
    try:
        data = json.loads(body or b"null")
    except (ValueError, RecursionError):  # RecursionError: nesting too deep to parse
        raise _Invalid(422, [{"loc": ["body"], "msg": "body is not valid JSON"}]) from None
    if not isinstance(data, dict):
        raise _Invalid(422, [{"loc": ["body"], "msg": "body must be a JSON object"}])
    errors = []
    unknown = sorted(set(data) - {"claim", "urls"})
    if unknown:
        errors.append({"loc": ["body", unknown[0]], "msg": "unknown field"})
    claim = data.get("claim")
    if not isinstance(claim, str) or not claim.strip():
        errors.append({"loc": ["body", "claim"], "msg": "claim must be a non-empty string"})
    elif len(claim) > limits.max_claim_chars:
        errors.append(
            {"loc": ["body", "claim"], "msg": f"claim over {limits.max_claim_chars} characters"}
        )
    urls = data.get("urls")
    if not isinstance(urls, list) or not urls:
        errors.append({"loc": ["body", "urls"], "msg": "urls must be a non-empty list"})
    elif len(urls) > limits.max_urls:
        errors.append({"loc": ["body", "urls"], "msg": f"at most {limits.max_urls} urls"})
    elif not all(isinstance(url, str) and url.strip() for url in urls):
        errors.append({"loc": ["body", "urls"], "msg": "every url must be a non-empty string"})
    else:
        for position, url in enumerate(urls):
            if len(url.strip()) > MAX_URL_CHARS:
                errors.append(
                    {
                        "loc": ["body", "urls", position],
                        "msg": f"url over {MAX_URL_CHARS} characters",
                    }
                )
    if errors:
        raise _Invalid(422, errors)
    assert isinstance(claim, str)
    assert isinstance(urls, list)
    return claim.strip(), [url.strip() for url in urls]


def create_app(
    settings: Settings | None = None,
    limits: Limits | None = None,
    verifier_factory: Callable[[Settings, HttpClient, asyncio.Semaphore], Verifier] | None = None,
) -> Any:
    """The Starlette application. ``settings`` default to the environment, read at start-up.

    Each ``/verify`` request gets its own verifier: a verifier fetches each URL once in its
    lifetime, and the service must check pages as they are at the time of the request, not
    as they were at the first request since start-up. All of them share one HTTP client
    and one limit on requests in flight (``settings.concurrency``), so fifty concurrent
    calls keep as few requests in flight as one would.
    """
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import JSONResponse
    from starlette.routing import Route

    limits = limits or Limits()
    state: dict[str, Any] = {}

    def shared_verifier(current: Settings, http: HttpClient, limit: asyncio.Semaphore) -> Verifier:
        return Verifier(current, http=http, semaphore=limit)

    build = verifier_factory or shared_verifier

    def verifier() -> Verifier:
        return build(state["settings"], state["http"], state["limit"])

    @contextlib.asynccontextmanager
    async def lifespan(app: Any) -> AsyncIterator[None]:
        current = settings or Settings.from_env()
        state["settings"] = current
        state["limit"] = asyncio.Semaphore(current.concurrency)
        with LogRedaction(current.redactor()):
            state["http"] = make_http_client(current)
            try:
                if not missing_secrets(current):
                    # One verifier at start-up, so that a bad setting fails it, not requests.
                    await verifier().aclose()
                yield
            finally:
                await state["http"].aclose()

    async def health(request: Request) -> JSONResponse:
        current: Settings = state["settings"]
        missing = missing_secrets(current)
        return JSONResponse(
            {
                "status": "degraded" if missing else "ok",
                "judge": current.judge_provider,
                "model": Backends().model(current),
                "missing": missing,
            }
        )

    async def verify(request: Request) -> JSONResponse:
        declared = request.headers.get("content-length")
        if declared and declared.isdigit() and int(declared) > limits.max_body_bytes:
            return JSONResponse(
                {"detail": f"request body over {limits.max_body_bytes} bytes"}, status_code=413
            )
        body = b""
        async for chunk in request.stream():
            body += chunk
            if len(body) > limits.max_body_bytes:
                return JSONResponse(
                    {"detail": f"request body over {limits.max_body_bytes} bytes"},
                    status_code=413,
                )
        try:
            claim, urls = parse_request(body, limits)
        except _Invalid as invalid:
            return JSONResponse({"detail": invalid.detail}, status_code=invalid.status)
        missing = missing_secrets(state["settings"])
        if missing:
            return JSONResponse({"detail": _not_set(missing)}, status_code=503)
        try:
            async with verifier() as checking:
                verdict = await checking.verify(claim, urls)
        except MissingTokenError as error:
            return JSONResponse({"detail": f"{error.variable} is not set"}, status_code=503)
        except AccountError as error:  # a refused credential or an exhausted account
            return JSONResponse({"detail": str(error)}, status_code=502)
        except CitationsError as error:
            return JSONResponse({"detail": str(error)}, status_code=500)
        payload = verdict.to_dict()
        payload["invalid_urls"] = [url for url in urls if not is_supported_url(url)]
        if not payload["invalid_urls"]:
            del payload["invalid_urls"]
        return JSONResponse(payload)

    return Starlette(
        routes=[
            Route("/health", health, methods=["GET"]),
            Route("/verify", verify, methods=["POST"]),
        ],
        lifespan=lifespan,
    )


def serve(host: str = "127.0.0.1", port: int = 8000) -> None:
    """Run the service with uvicorn until interrupted."""
    import uvicorn

    uvicorn.run(create_app(), host=host, port=port, log_level="info", access_log=False)
