"""Serving the application with uvicorn, with the bounds uvicorn leaves open.

uvicorn closes an idle kept-alive connection after a few seconds, but any byte cancels that
timer, and nothing bounds how long a client may take over a request's headers: a client
that trickles them, or the rest of a body the route did not read, holds its connection for
ever. :class:`BoundedH11Protocol` gives every request a deadline: its headers within the
header timeout of the connection opening (or of the previous answer), its body within the
body timeout of its headers: the application answers 408 then, and the connection is
closed in any case once the header timeout has passed too (the application's read starts
when its task runs, which a busy server may delay). Beyond these, the server accepts at most
``max_connections`` connections at once (503 over it) and headers of 16 KiB (400 over it).
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import h11
import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol

from ..errors import ConfigurationError
from ..pipeline.settings import Limit, Settings
from .access import TOKEN_VARIABLE, Access, is_loopback
from .app import create_app
from .models import BODY_TIMEOUT, Limits

HEADER_TIMEOUT = 10.0
MAX_CONNECTIONS = 100
#: Seconds an idle kept-alive connection stays open (uvicorn's own timer).
KEEP_ALIVE = 5
#: Bytes of a request's line and headers; more is answered 400.
MAX_HEADER_BYTES = 16 * 1024

SERVER_LIMITS = (
    Limit(
        "header-timeout",
        "header_timeout",
        "CITATIONS_SERVICE_HEADER_TIMEOUT",
        False,
        0,
        True,
        "seconds a request's headers may take to arrive; then the connection is closed "
        "(default 10)",
    ),
    Limit(
        "max-connections",
        "max_connections",
        "CITATIONS_SERVICE_MAX_CONNECTIONS",
        True,
        1,
        False,
        "connections served at once; more are answered 503 (default 100)",
    ),
)


@dataclass(frozen=True)
class ServerLimits:
    """What the server bounds that the application cannot: see the module's docstring."""

    header_timeout: float = HEADER_TIMEOUT
    max_connections: int = MAX_CONNECTIONS

    def __post_init__(self) -> None:
        if self.header_timeout <= 0:
            raise ConfigurationError("header_timeout must be more than 0 seconds")
        if self.max_connections < 1:
            raise ConfigurationError("max_connections must be at least 1")

    @classmethod
    def from_env(
        cls,
        env: Mapping[str, str] | None = None,
        *,
        header_timeout: float | None = None,
        max_connections: int | None = None,
    ) -> ServerLimits:
        """``CITATIONS_SERVICE_HEADER_TIMEOUT`` and ``CITATIONS_SERVICE_MAX_CONNECTIONS``,
        with the values given here (not None) over them."""
        env = os.environ if env is None else env
        values: dict[str, Any] = {
            limit.field: limit.parse(env[limit.env], limit.env)
            for limit in SERVER_LIMITS
            if env.get(limit.env, "").strip()
        }
        given = {"header_timeout": header_timeout, "max_connections": max_connections}
        values.update({name: value for name, value in given.items() if value is not None})
        return cls(**values)


class BoundedH11Protocol(H11Protocol):
    """uvicorn's h11 protocol with a deadline on each request's headers and body."""

    header_timeout: float = HEADER_TIMEOUT
    body_timeout: float = BODY_TIMEOUT
    _deadline: asyncio.TimerHandle | None = None
    _on_body = False

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm(self.header_timeout, on_body=False)

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def on_response_complete(self) -> None:
        # The next request's headers (and the rest of a body the route did not read) are
        # due within the header timeout; armed first, as a pipelined request is read next.
        self._arm(self.header_timeout, on_body=False)
        super().on_response_complete()

    def handle_events(self) -> None:
        cycle = self.cycle
        super().handle_events()
        receiving = self.conn.their_state is h11.SEND_BODY
        if self.cycle is not cycle:  # a request's headers arrived
            if receiving:
                self._arm(self.body_timeout + self.header_timeout, on_body=True)
            else:
                self._disarm()
        elif self._on_body and not receiving:  # its body arrived
            self._disarm()

    def _arm(self, seconds: float, *, on_body: bool) -> None:
        self._disarm()
        self._on_body = on_body
        self._deadline = self.loop.call_later(seconds, self._expired)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _expired(self) -> None:
        self._deadline = None
        if not self.transport.is_closing():
            self.transport.close()


def bounded_protocol(header_timeout: float, body_timeout: float) -> type[BoundedH11Protocol]:
    """A :class:`BoundedH11Protocol` with these deadlines (uvicorn takes a class)."""
    attributes = {"header_timeout": header_timeout, "body_timeout": body_timeout}
    return type("BoundedH11Protocol", (BoundedH11Protocol,), attributes)


def server_options(limits: Limits, server: ServerLimits, log_level: str = "info") -> dict[str, Any]:
    """The uvicorn settings of the service (for ``uvicorn.run`` or ``uvicorn.Config``)."""
    return {
        "http": bounded_protocol(server.header_timeout, limits.body_timeout),
        "ws": "none",  # no WebSocket route: no upgrade to a protocol without these bounds
        "lifespan": "on",
        "log_level": log_level,
        "access_log": False,
        "timeout_keep_alive": KEEP_ALIVE,
        # uvicorn counts the connection that asks among those open: one more, for N to be
        # served at once and the next one answered 503.
        "limit_concurrency": server.max_connections + 1,
        "h11_max_incomplete_event_size": MAX_HEADER_BYTES,
    }


def check_bind(host: str, access: Access) -> None:
    """Refuse to listen beyond this machine without a token (a ConfigurationError naming
    the variable): anyone who can reach the port could spend the user's credits."""
    if access.token is None and not is_loopback(host):
        raise ConfigurationError(
            f"listening on {host}, not a loopback address, needs a token: set "
            f"{TOKEN_VARIABLE} to a long random value; clients then send "
            f"Authorization: Bearer <{TOKEN_VARIABLE}>"
        )


def serve(
    host: str = "127.0.0.1",
    port: int = 8000,
    settings: Settings | None = None,
    *,
    limits: Limits | None = None,
    access: Access | None = None,
    server: ServerLimits | None = None,
) -> None:
    """Run the service with uvicorn until interrupted; each of ``limits``, ``access`` and
    ``server`` defaults to the environment."""
    access = Access.from_env() if access is None else access
    check_bind(host, access)
    limits = Limits.from_env() if limits is None else limits
    server = ServerLimits.from_env() if server is None else server
    app = create_app(settings, limits, access=access)
    uvicorn.run(app, host=host, port=port, **server_options(limits, server))
