"""The network transport over httpcore: the only place a secret enters a request, and the
place it is taken back out of what comes back."""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING
from urllib.parse import quote, unquote

import httpcore
import httpx

from ..errors import ConfigurationError, MissingTokenError
from ..sanitize import Secret
from .budget import Budget, BudgetTransport
from .config import SpendingLimits
from .usage import Usage

if TYPE_CHECKING:
    import ssl

_PLACEHOLDER = re.compile(r"<([A-Z][A-Z0-9_]*_(?:TOKEN|KEY))>")


def placeholder(variable: str) -> str:
    """What a request carries instead of the secret held by ``variable``."""
    return f"<{variable}>"


@dataclass(frozen=True)
class _SendFailure:
    """A send that failed, described without the request (which held real secrets)."""

    kind: type[httpx.TransportError]
    message: str

    def error(self) -> httpx.TransportError:
        return self.kind(self.message)


_TIMEOUTS: Mapping[type[Exception], type[httpx.TransportError]] = {
    httpcore.ConnectTimeout: httpx.ConnectTimeout,
    httpcore.ReadTimeout: httpx.ReadTimeout,
    httpcore.WriteTimeout: httpx.WriteTimeout,
    httpcore.PoolTimeout: httpx.PoolTimeout,
}


def _failure(error: Exception) -> _SendFailure:
    """A secret-free description of what went wrong below the transport."""
    for source, target in _TIMEOUTS.items():
        if isinstance(error, source):
            return _SendFailure(target, "timed out")
    if isinstance(error, httpcore.ConnectError):
        return _SendFailure(httpx.ConnectError, "connection failed (ConnectError)")
    if isinstance(error, httpcore.NetworkError | httpcore.ProtocolError):
        return _SendFailure(httpx.NetworkError, f"connection failed ({type(error).__name__})")
    return _SendFailure(httpx.TransportError, f"request failed ({type(error).__name__})")


def _ssl_context() -> ssl.SSLContext:
    """The TLS context, with the CA bundle ``SSL_CERT_FILE`` or ``SSL_CERT_DIR`` names when
    set: one that cannot be read is a configuration error naming it, not an ``OSError``."""
    try:
        return httpx.create_ssl_context()
    except OSError as error:  # ssl.SSLError too: a file that holds no certificate
        variable = "SSL_CERT_FILE" if os.environ.get("SSL_CERT_FILE") else "SSL_CERT_DIR"
        reason = error.strerror or str(error)
        raise ConfigurationError(
            f"{variable} names {os.environ.get(variable, '')}, which cannot be read as "
            f"certificates ({reason}): point it at a CA bundle, or unset it"
        ) from None


class NetworkTransport(httpx.AsyncBaseTransport):
    """The real network (TLS verified, pooled connections), and the one place secrets go in.

    Requests name secrets by placeholder (:func:`placeholder`); a request naming a secret
    that is not set fails with :class:`~pytest_citations.errors.MissingTokenError`. A
    failure below this transport surfaces as an ``httpx.TransportError`` that carries
    neither the request nor a cause, so no traceback can show a URL with a token in it.
    """

    def __init__(self, secrets: Iterable[Secret], concurrency: int) -> None:
        self._limit = max(concurrency, 1)
        self._ssl = _ssl_context()
        #: One pool per origin (Crawlbase, the judge): httpcore checks every idle
        #: connection of a pool on each request, and the crawl connections idle once the
        #: pages are in while the judge is busiest.
        self._pools: dict[tuple[bytes, bytes, int | None], httpcore.AsyncConnectionPool] = {}
        self._secrets = {placeholder(s.variable): s for s in secrets}

    def _reveal(self, text: bytes, *, encode: Callable[[str], str]) -> bytes:
        for name, secret in self._secrets.items():
            marker = encode(name).encode("ascii")
            if marker in text:
                text = text.replace(marker, encode(secret.reveal()).encode("utf-8"))
        return text

    def _conceal(self, text: bytes) -> bytes:
        # Longest first, so that a secret containing another is replaced whole.
        for name, secret in sorted(self._secrets.items(), key=lambda item: -len(item[1].reveal())):
            value = secret.reveal().encode("utf-8")
            if value and value in text:
                text = text.replace(value, name.encode("ascii"))
            quoted = quote(secret.reveal(), safe="").encode("ascii")
            if quoted and quoted in text:
                text = text.replace(quoted, quote(name, safe="").encode("ascii"))
        return text

    def _missing(self, request: httpx.Request) -> str | None:
        """The variable of a placeholder the request names but no setting holds."""
        texts = [unquote(request.url.raw_path.decode("ascii", "replace"))]
        texts += [value.decode("latin-1") for _, value in request.headers.raw]
        for text in texts:
            for variable in _PLACEHOLDER.findall(text):
                if placeholder(variable) not in self._secrets:
                    return str(variable)
        return None

    async def _exchange(self, request: httpx.Request) -> httpx.Response | _SendFailure:
        """Send with the real secrets; never raise (the frames here hold the secrets)."""
        try:
            target = self._reveal(request.url.raw_path, encode=lambda s: quote(s, safe=""))
            headers = [
                (name, self._reveal(value, encode=str)) for name, value in request.headers.raw
            ]
            wire = httpcore.Request(
                method=request.method.encode("ascii"),
                url=httpcore.URL(
                    scheme=request.url.raw_scheme,
                    host=request.url.raw_host,
                    port=request.url.port,
                    target=target,
                ),
                headers=headers,
                content=request.content,
                extensions=request.extensions,
            )
            del target, headers
            answer = await self._pool(request.url).handle_async_request(wire)
            try:
                body = await answer.aread()
            finally:
                await answer.aclose()
            del wire
            return httpx.Response(
                status_code=answer.status,
                headers=[(name, self._conceal(value)) for name, value in answer.headers],
                content=self._conceal(body),
                request=request,
                extensions={k: v for k, v in answer.extensions.items() if k == "http_version"},
            )
        except Exception as error:  # every failure becomes a secret-free description
            return _failure(error)

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        """Send ``request`` (read in full) with its placeholders replaced by the secrets."""
        missing = self._missing(request)
        if missing is not None:
            raise MissingTokenError(missing, "The request needs it.")
        await request.aread()
        outcome = await self._exchange(request)
        if isinstance(outcome, _SendFailure):
            raise outcome.error()  # raised here, outside any handler: no secret-bearing cause
        return outcome

    def _pool(self, url: httpx.URL) -> httpcore.AsyncConnectionPool:
        origin = (url.raw_scheme, url.raw_host, url.port)
        pool = self._pools.get(origin)
        if pool is None:  # at most the run's limit in flight, so as many connections
            pool = httpcore.AsyncConnectionPool(
                ssl_context=self._ssl,
                max_connections=self._limit,
                max_keepalive_connections=self._limit,
            )
            self._pools[origin] = pool
        return pool

    async def aclose(self) -> None:
        for pool in self._pools.values():
            await pool.aclose()


def network_transport(
    secrets: Iterable[Secret],
    concurrency: int,
    spending: SpendingLimits | None = None,
    ledger: Usage | None = None,
) -> httpx.AsyncBaseTransport:
    """The real network with ``secrets`` (the innermost transport of every chain), pooling
    ``concurrency`` connections per origin, behind a budget when ``spending`` sets one:
    each chain built from it holds its own, and reads what was spent from ``ledger`` (the
    run's :class:`~pytest_citations.network.usage.Usage`, which its answers are counted into)."""
    network = NetworkTransport(secrets, concurrency)
    budget = Budget.of(spending, ledger) if spending is not None else None
    return network if budget is None else BudgetTransport(network, budget)
