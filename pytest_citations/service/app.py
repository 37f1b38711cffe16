"""The FastAPI application: ``GET /health``, ``POST /verify``, the OpenAPI description at
``/openapi.json`` and interactive docs at ``/docs``.

The ``/verify`` body is read here rather than by FastAPI: its size is checked while it
streams in (413 before the rest arrives), and it is validated with the service's own
limits, every problem reported at once in the documented ``{"loc", "msg"}`` shape.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from importlib import metadata
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse
from pydantic import ValidationError

from ..backends import Backends
from ..errors import AccountError, CitationsError, MissingTokenError
from ..network import HttpClient, make_http_client
from ..queues import RequestLimit
from ..redact import LogRedaction
from ..settings import Settings
from ..urls import is_supported_url
from ..verifier import Verifier
from .models import (
    Health,
    Limits,
    Message,
    ValidationErrors,
    VerifyRequest,
    VerifyResponse,
    request_schema,
)

VerifierFactory = Callable[[Settings, HttpClient, RequestLimit], Verifier]

DESCRIPTION = """\
Checks that the pages an answer cites support its claims: each URL is fetched through
Crawlbase, the passages closest to the claim are retrieved, and an LLM judge labels them.

- `POST /verify` takes a claim and the URLs it cites, and answers the claim's label and a
  verdict per URL (`supported`, `partial`, `contradicted`, `not_found`, `unreachable`).
- 413: a body over the size limit; 422: a malformed body, every problem at once;
  503: a token or key is not set (every missing variable is named, never a value);
  502: Crawlbase or the judge refused a credential, or the account has no credits left.
- `GET /health` says whether the service can verify, and what it lacks.
"""


class RequestError(Exception):
    """A request the service refuses, with its status and ``detail``."""

    def __init__(self, status: int, detail: Any) -> None:
        super().__init__(str(detail))
        self.status = status
        self.detail = detail


def missing_secrets(settings: Settings) -> list[str]:
    """Every variable the service needs to verify and lacks (all of them, at once)."""
    return Backends().missing(settings)


def not_set(variables: list[str]) -> str:
    """``A and B are not set``."""
    verb = "is" if len(variables) == 1 else "are"
    return f"{' and '.join(variables)} {verb} not set"


def parse_request(body: bytes, limits: Limits) -> VerifyRequest:
    """Validate a ``/verify`` body: ``{"claim": str, "urls": [str, ...]}`` within the limits;
    a :class:`RequestError` (422) lists every problem, each with where it is."""
    if len(body) > limits.max_body_bytes:
        raise RequestError(413, f"request body over {limits.max_body_bytes} bytes")
    try:
        return VerifyRequest.model_validate_json(body, context=limits)
    except ValidationError as error:
        problems = [
            {"loc": ["body", *problem["loc"]], "msg": problem["msg"]}
            for problem in error.errors(include_url=False)
        ]
        raise RequestError(422, problems) from None


async def read_body(request: Request, limit: int) -> bytes:
    """The body, refused (413) as soon as it is declared or streamed over ``limit`` bytes."""
    too_large = RequestError(413, f"request body over {limit} bytes")
    declared = request.headers.get("content-length")
    if declared and declared.isdigit() and int(declared) > limit:
        raise too_large
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > limit:
            raise too_large
    return body


@dataclass
class _Service:
    """The state the routes share: settings read at start-up, one HTTP client and one limit
    on requests in flight for every request."""

    settings: Settings | None
    limits: Limits
    build: VerifierFactory
    http: HttpClient | None = None
    limit: RequestLimit = field(default_factory=lambda: RequestLimit(1))

    @property
    def current(self) -> Settings:
        assert self.settings is not None, "the service has not started"
        return self.settings

    def verifier(self) -> Verifier:
        assert self.http is not None, "the service has not started"
        return self.build(self.current, self.http, self.limit)

    @contextlib.asynccontextmanager
    async def lifespan(self, app: FastAPI) -> AsyncIterator[None]:
        self.settings = self.settings or Settings.from_env()
        self.limit = RequestLimit(self.current.concurrency)
        with LogRedaction(self.current.redactor()):
            self.http = make_http_client(self.current)
            try:
                if not missing_secrets(self.current):
                    # One verifier at start-up, so that a bad setting fails it, not requests.
                    await self.verifier().aclose()
                yield
            finally:
                await self.http.aclose()

    async def health(self) -> JSONResponse:
        """Whether the service can verify: ``degraded`` names every missing variable."""
        missing = missing_secrets(self.current)
        return JSONResponse(
            {
                "status": "degraded" if missing else "ok",
                "judge": self.current.judge_provider,
                "model": Backends().model(self.current),
                "missing": missing,
            }
        )

    async def verify(self, request: Request) -> JSONResponse:
        """Verify a claim against the pages it cites."""
        try:
            body = await read_body(request, self.limits.max_body_bytes)
            checked = parse_request(body, self.limits)
        except RequestError as refused:
            return JSONResponse({"detail": refused.detail}, status_code=refused.status)
        missing = missing_secrets(self.current)
        if missing:
            return JSONResponse({"detail": not_set(missing)}, status_code=503)
        try:
            async with self.verifier() as checking:
                verdict = await checking.verify(checked.claim, checked.urls)
        except MissingTokenError as error:
            return JSONResponse({"detail": not_set(error.variables)}, status_code=503)
        except AccountError as error:  # a refused credential or an exhausted account
            return JSONResponse({"detail": str(error)}, status_code=502)
        except CitationsError as error:
            return JSONResponse({"detail": str(error)}, status_code=500)
        payload = verdict.to_dict()
        invalid = [url for url in checked.urls if not is_supported_url(url)]
        if invalid:
            payload["invalid_urls"] = invalid
        return JSONResponse(payload)


def _version() -> str:
    try:
        return metadata.version("pytest-citations")
    except metadata.PackageNotFoundError:  # pragma: no cover - run from a source tree
        return "0"


def create_app(
    settings: Settings | None = None,
    limits: Limits | None = None,
    verifier_factory: VerifierFactory | None = None,
) -> FastAPI:
    """The application. ``settings`` default to the environment, read at start-up.

    Each ``/verify`` request gets its own verifier: a verifier fetches each URL once in its
    lifetime, and the service must check pages as they are at the time of the request, not
    as they were at the first request since start-up. All of them share one HTTP client
    and one limit on requests in flight (``settings.concurrency``), so fifty concurrent
    calls keep as few requests in flight as one would.
    """

    def shared_verifier(current: Settings, http: HttpClient, limit: RequestLimit) -> Verifier:
        return Verifier(current, http=http, semaphore=limit)

    limits = limits or Limits()
    service = _Service(settings, limits, verifier_factory or shared_verifier)
    app = FastAPI(
        title="pytest-citations",
        version=_version(),
        description=DESCRIPTION,
        lifespan=service.lifespan,
    )
    app.add_api_route(
        "/health",
        service.health,
        methods=["GET"],
        response_model=Health,
        summary="Whether the service can verify",
        description="degraded, with every missing variable, while a token or key is not set.",
    )
    app.add_api_route(
        "/verify",
        service.verify,
        methods=["POST"],
        summary="Verify a claim against the pages it cites",
        description="Each URL is fetched, the passages closest to the claim are retrieved, "
        "and the judge labels them. The answer holds the claim's label and the verdict of "
        "each URL, in citation order. Every request is checked as the pages are now.",
        response_model=VerifyResponse,
        responses={
            413: {"model": Message, "description": f"Body over {limits.max_body_bytes} bytes"},
            422: {"model": ValidationErrors, "description": "A malformed body"},
            502: {"model": Message, "description": "A credential refused, or no credits"},
            503: {"model": Message, "description": "A token or key is not set"},
        },
        openapi_extra={
            "requestBody": {
                "required": True,
                "content": {"application/json": {"schema": request_schema(limits)}},
            }
        },
    )
    return app


def serve(host: str = "127.0.0.1", port: int = 8000, settings: Settings | None = None) -> None:
    """Run the service with uvicorn until interrupted."""
    import uvicorn

    app = create_app(settings)
    uvicorn.run(app, host=host, port=port, log_level="info", access_log=False)
