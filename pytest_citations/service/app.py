"""The FastAPI application: ``GET /health``, ``POST /verify``, the OpenAPI description at
``/openapi.json`` and interactive docs at ``/docs``.

Every request passes :class:`~.admission.Admission` first (Host, origin, token). The
``/verify`` body is read here rather than by FastAPI: only as ``application/json`` (415
otherwise: a page of another site can send ``text/plain`` without asking), its size is
checked while it streams in (413 before the rest arrives), it must arrive within the body
timeout (408), and it is validated with the service's own limits, every problem reported
at once in the documented ``{"loc", "msg"}`` shape.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any

from fastapi import Depends, FastAPI, Request
from fastapi.responses import JSONResponse
from fastapi.security import HTTPBearer
from pydantic import ValidationError
from starlette.requests import ClientDisconnect

from ..distribution import __version__
from ..errors import AccountError, CitationsError, MissingTokenError
from ..fetchers.urls import is_supported_url
from ..network.client import HttpClient
from ..network.limits import RequestLimit
from ..pipeline.backends import Backends
from ..pipeline.settings import Settings
from ..pipeline.verifier import Verifier
from ..sanitize import LogRedaction, Redactor
from .access import TOKEN_VARIABLE, Access
from .admission import Admission
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

- `POST /verify` takes a claim and the URLs it cites, as `application/json`, and answers the
  claim's label and a verdict per URL (`supported`, `partial`, `contradicted`, `not_found`,
  `unreachable`).
- 408: the body did not arrive within the body timeout; 413: a body over the size limit;
  415: a body that is not `application/json`; 422: a malformed body, every problem at once;
  503: a token or key is not set (every missing variable is named, never a value);
  502: Crawlbase or the judge refused a credential, or the account has no credits left.
- Every request: 421 when its `Host` is not the address the service listens on nor an
  allowed host; 403 for a CORS preflight or a request a page of another origin made (no
  CORS headers are ever sent); 401 without `Authorization: Bearer <CITATIONS_SERVICE_TOKEN>`
  when the service has a token (this description and `/docs` stay open).
- `GET /health` says whether the service can verify, and what it lacks.
"""

#: The media type of a ``/verify`` body; JSON is UTF-8 (RFC 8259), so no other charset.
JSON_TYPE = "application/json"


class RequestError(Exception):
    """A request the service refuses, with its status, ``detail`` and headers."""

    def __init__(self, status: int, detail: Any, headers: dict[str, str] | None = None) -> None:
        super().__init__(str(detail))
        self.status = status
        self.detail = detail
        self.headers = headers

    def response(self) -> JSONResponse:
        return JSONResponse({"detail": self.detail}, self.status, headers=self.headers)


def missing_secrets(settings: Settings, backends: Backends | None = None) -> list[str]:
    """Every variable the service needs to verify and lacks (all of them, at once)."""
    return settings.missing(backends or Backends())


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


def is_json(content_type: str | None) -> bool:
    """``application/json``, with no parameter but ``charset=utf-8``."""
    media, *parameters = (content_type or "").split(";")
    if media.strip().lower() != JSON_TYPE:
        return False
    for parameter in parameters:
        name, _, value = parameter.partition("=")
        if name.strip().lower() != "charset" or value.strip().strip('"').lower() != "utf-8":
            return False
    return True


async def read_body(request: Request, limits: Limits) -> bytes:
    """The body, refused (413) as soon as it is declared or streamed over the size limit,
    when it is not JSON (415), or when it has not arrived within the body timeout (408)."""
    limit = limits.max_body_bytes
    too_large = RequestError(413, f"request body over {limit} bytes")
    declared = request.headers.get("content-length")
    if declared and declared.isdigit() and int(declared) > limit:
        raise too_large
    if not is_json(request.headers.get("content-type")):
        raise RequestError(415, f"the body must be {JSON_TYPE} (charset utf-8, if any)")
    body = b""
    try:
        async with asyncio.timeout(limits.body_timeout):
            async for chunk in request.stream():
                body += chunk
                if len(body) > limit:
                    raise too_large
    except TimeoutError:
        raise RequestError(
            408,
            f"the request body did not arrive within {limits.body_timeout:g} s",
            {"Connection": "close"},  # a client that stalls gets no second request
        ) from None
    except ClientDisconnect:
        raise RequestError(400, "the client closed the connection") from None
    return body


@dataclass
class _Service:
    """The state the routes share: settings read at start-up, one HTTP client and one limit
    on requests in flight for every request."""

    settings: Settings | None
    limits: Limits
    build: VerifierFactory
    access: Access
    http: HttpClient | None = None
    limit: RequestLimit = field(default_factory=lambda: RequestLimit(1))
    #: The judges and fetchers, and what each needs: built once for the service's life.
    backends: Backends = field(default_factory=Backends)

    @property
    def current(self) -> Settings:
        assert self.settings is not None, "the service has not started"
        return self.settings

    def verifier(self) -> Verifier:
        assert self.http is not None, "the service has not started"
        return self.build(self.current, self.http, self.limit)

    @contextlib.asynccontextmanager
    async def lifespan(self, app: FastAPI) -> AsyncIterator[None]:
        self.settings = self.settings or Settings.from_env(backends=self.backends)
        self.limit = RequestLimit(self.current.network.concurrency)
        with LogRedaction(self.redactor()):
            self.http = self.current.http_client()
            try:
                if not missing_secrets(self.current, self.backends):
                    # One verifier at start-up, so that a bad setting fails it, not requests.
                    await self.verifier().aclose()
                yield
            finally:
                await self.http.aclose()

    def redactor(self) -> Redactor:
        """The settings' secrets and the service's own token."""
        redactor = self.current.redactor()
        if self.access.token is not None:
            redactor.add(self.access.token)
        return redactor

    async def health(self) -> JSONResponse:
        """Whether the service can verify: ``degraded`` names every missing variable."""
        missing = missing_secrets(self.current, self.backends)
        return JSONResponse(
            {
                "status": "degraded" if missing else "ok",
                "judge": self.current.judge.provider,
                "model": self.current.judge.model,
                "missing": missing,
            }
        )

    async def verify(self, request: Request) -> JSONResponse:
        """Verify a claim against the pages it cites."""
        try:
            body = await read_body(request, self.limits)
            checked = parse_request(body, self.limits)
        except RequestError as refused:
            return refused.response()
        missing = missing_secrets(self.current, self.backends)
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


#: Answers every route may give, whatever it does: the admission's refusals.
ADMISSION_RESPONSES: dict[int | str, dict[str, Any]] = {
    401: {
        "model": Message,
        "description": f"The service has a token ({TOKEN_VARIABLE}) "
        "and the request does not carry it as Authorization: Bearer",
    },
    403: {
        "model": Message,
        "description": "A CORS preflight, or a request a page of "
        "another origin made (Origin, Sec-Fetch-Site)",
    },
    421: {
        "model": Message,
        "description": "The Host header names neither the address the "
        "service listens on nor an allowed host",
    },
}


def verify_responses(limits: Limits) -> dict[int | str, dict[str, Any]]:
    """What ``POST /verify`` answers besides 200, in status order."""
    body: dict[int | str, dict[str, Any]] = {
        408: {
            "model": Message,
            "description": f"The body did not arrive within "
            f"{limits.body_timeout:g} s of the headers (the connection is closed)",
        },
        413: {"model": Message, "description": f"Body over {limits.max_body_bytes} bytes"},
        415: {"model": Message, "description": "A body that is not application/json"},
        422: {"model": ValidationErrors, "description": "A malformed body"},
        502: {"model": Message, "description": "A credential refused, or no credits"},
        503: {"model": Message, "description": "A token or key is not set"},
    }
    return dict(sorted({**ADMISSION_RESPONSES, **body}.items(), key=lambda item: int(item[0])))


def create_app(
    settings: Settings | None = None,
    limits: Limits | None = None,
    verifier_factory: VerifierFactory | None = None,
    *,
    access: Access | None = None,
) -> FastAPI:
    """The application. ``settings`` default to the environment, read at start-up;
    ``limits`` and ``access`` (token, allowed hosts and origins) to the environment, read
    now.

    Each ``/verify`` request gets its own verifier: a verifier fetches each URL once in its
    lifetime, and the service must check pages as they are at the time of the request, not
    as they were at the first request since start-up. All of them share one HTTP client
    and one limit on requests in flight (``settings.concurrency``), so fifty concurrent
    calls keep as few requests in flight as one would.
    """

    def shared_verifier(current: Settings, http: HttpClient, limit: RequestLimit) -> Verifier:
        return Verifier(current, http=http, semaphore=limit)

    limits = Limits.from_env() if limits is None else limits
    access = Access.from_env() if access is None else access
    service = _Service(settings, limits, verifier_factory or shared_verifier, access)
    app = FastAPI(
        title="pytest-citations",
        version=__version__,
        description=DESCRIPTION,
        lifespan=service.lifespan,
    )
    add_routes(app, service)
    open_paths = {app.docs_url, app.openapi_url, app.redoc_url, app.swagger_ui_oauth2_redirect_url}
    app.add_middleware(Admission, access=access, open_paths={p for p in open_paths if p})
    return app


def add_routes(app: FastAPI, service: _Service) -> None:
    """``GET /health`` and ``POST /verify``, described with their models and answers."""
    # With a token, the description declares it, so that /docs can send it ("Authorize").
    secured = [Depends(HTTPBearer(auto_error=False))] if service.access.token else []
    app.add_api_route(
        "/health",
        service.health,
        methods=["GET"],
        response_model=Health,
        summary="Whether the service can verify",
        description="degraded, with every missing variable, while a token or key is not set.",
        responses=ADMISSION_RESPONSES,
        dependencies=secured,
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
        responses=verify_responses(service.limits),
        dependencies=secured,
        openapi_extra={
            "requestBody": {
                "required": True,
                "content": {JSON_TYPE: {"schema": request_schema(service.limits)}},
            }
        },
    )
