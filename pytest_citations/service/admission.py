"""Which requests reach the routes: an ASGI middleware in front of the whole application.

In this order, each refusal a JSON ``{"detail": ...}`` that names what to change and
never repeats a header's value:

1. 421 when ``Host`` names neither the address the request arrived on nor an allowed host
   (DNS rebinding: a page whose name resolves to 127.0.0.1 would otherwise read the answers);
2. 403 for a CORS preflight (the service sends no CORS headers at all), and for a request
   that a page of another origin made (its ``Origin``, or ``Sec-Fetch-Site: cross-site``);
3. 401, with ``WWW-Authenticate: Bearer``, when a token is set and the request does not carry
   it; the documentation pages (``/docs``, ``/openapi.json``) are open without it, as they
   spend nothing and tell nothing about the user's accounts.
"""

from __future__ import annotations

import logging
from collections.abc import Collection

from starlette.datastructures import Headers
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from .access import TOKEN_VARIABLE, Access, origin_of

logger = logging.getLogger("pytest_citations.service")

HOST_REFUSED = (
    "the Host header names no address this service answers on: call it by the address it "
    "listens on, or allow the name with --allow-host (CITATIONS_SERVICE_ALLOW_HOSTS)"
)
PREFLIGHT_REFUSED = "cross-origin requests are refused: this service sends no CORS headers"
ORIGIN_REFUSED = (
    "a page of another origin made this request: it is refused (allow an origin with "
    "--allow-origin or CITATIONS_SERVICE_ALLOW_ORIGINS)"
)
TOKEN_REFUSED = f"this service needs Authorization: Bearer <{TOKEN_VARIABLE}>"


class Admission:
    """The ASGI middleware: Host, then the origin of browser requests, then the token."""

    def __init__(self, app: ASGIApp, access: Access, open_paths: Collection[str]) -> None:
        self.app = app
        self.access = access
        self.open_paths = frozenset(open_paths)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        refusal = self.refusal(scope)
        if refusal is None:
            await self.app(scope, receive, send)
            return
        # The reason only: header values are the caller's, and not for the log.
        logger.warning("refused a %s request: HTTP %d", scope["method"], refusal.status_code)
        await refusal(scope, receive, send)

    def refusal(self, scope: Scope) -> JSONResponse | None:
        """The answer that refuses this request, or None to let it through."""
        headers = Headers(scope=scope)
        hosts = headers.getlist("host")
        host = hosts[0] if len(hosts) == 1 else None
        scheme = str(scope.get("scheme", "http"))
        if not self.access.host_allowed(host, scope.get("server"), scheme):
            return refuse(421, HOST_REFUSED)
        if scope["method"] == "OPTIONS" and "access-control-request-method" in headers:
            return refuse(403, PREFLIGHT_REFUSED)
        own = origin_of(scheme, host or "")
        origins, sites = headers.getlist("origin"), headers.getlist("sec-fetch-site")
        if not self.access.origin_allowed(origins, sites, own):
            return refuse(403, ORIGIN_REFUSED)
        if scope["path"] in self.open_paths:
            return None
        if not self.access.authorized(headers.getlist("authorization")):
            return refuse(401, TOKEN_REFUSED, {"WWW-Authenticate": "Bearer"})
        return None


def refuse(status: int, detail: str, headers: dict[str, str] | None = None) -> JSONResponse:
    """A refusal, sent before any of the body is read (the server drops the rest)."""
    return JSONResponse({"detail": detail}, status_code=status, headers=headers)
