"""HTTP plumbing shared by the Crawlbase client and the judges.

Three pieces, from the wire up:

- :class:`NetworkTransport` speaks HTTP over httpcore and is the **only** place where a
  secret enters a request. Everything above it (the client, the Crawlbase client, the
  judges, the plugin's cassettes, every frame a traceback could show) builds and sees
  requests that carry placeholders such as ``token=<CRAWLBASE_TOKEN>`` or
  ``Authorization: Bearer <OPENAI_API_KEY>``; the transport swaps the real values in on the
  way out and swaps them back out of the response headers and body on the way in. Built on
  httpcore rather than ``httpx.AsyncHTTPTransport`` so that another plugin's vcrpy patch
  (pytest-recording patches ``AsyncHTTPTransport.handle_async_request``) never captures
  this traffic.
- :class:`HttpClient` builds requests with explicit timeouts and sends them through a
  transport chain (the plugin puts its cassette transport in front of the network). Not
  ``httpx.AsyncClient``: it logs every request URL at INFO and follows settings we do not
  want (environment proxies, cookies).
- :class:`Requester` sends under the run's concurrency limit, retries transient failures
  with backoff that honours ``Retry-After``, and bounds each request, retries included, by
  an overall deadline.
"""

from __future__ import annotations

import asyncio
import email.utils
import logging
import random
import re
import time
from collections.abc import Awaitable, Callable, Collection, Mapping
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, unquote

import httpcore
import httpx

from .errors import MissingTokenError
from .queues import JUDGE, RequestLimit
from .settings import Settings

#: Retried with backoff: timeouts, throttling and every 5xx (Anthropic's 529 "overloaded",
#: Cloudflare's 522/524 included).
RETRYABLE_STATUSES = frozenset({408, 425, 429, *range(500, 600)})
#: Response extension set by a transport that answered from a recording (nothing was spent).
REPLAYED = "pytest_citations.replayed"
USER_AGENT = "pytest-citations"
#: Logs each request as httpx would, but with the placeholders a request carries, never a
#: secret: ``HTTP Request: GET https://api.crawlbase.com/?token=<CRAWLBASE_TOKEN>&… "200"``.
log = logging.getLogger("pytest_citations.http")
_PLACEHOLDER = re.compile(r"<([A-Z][A-Z0-9_]*_(?:TOKEN|KEY))>")


def is_replayed(response: httpx.Response) -> bool:
    """True when a recording, not the network, answered this request."""
    return bool(response.extensions.get(REPLAYED))


def placeholder(variable: str) -> str:
    """What a request carries instead of the secret held by ``variable``."""
    return f"<{variable}>"


class TransientError(Exception):
    """The peer kept failing after every retry. The message never holds a URL or a secret."""

    def __init__(self, what: str, detail: str) -> None:
        self.detail = detail
        super().__init__(f"{what}: {detail}")


@dataclass(frozen=True)
class _Failure:
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


def _failure(error: Exception) -> _Failure:
    """A secret-free description of what went wrong below the transport."""
    for source, target in _TIMEOUTS.items():
        if isinstance(error, source):
            return _Failure(target, "timed out")
    if isinstance(error, httpcore.ConnectError):
        return _Failure(httpx.ConnectError, "connection failed (ConnectError)")
    if isinstance(error, httpcore.NetworkError | httpcore.ProtocolError):
        return _Failure(httpx.NetworkError, f"connection failed ({type(error).__name__})")
    return _Failure(httpx.TransportError, f"request failed ({type(error).__name__})")


class NetworkTransport(httpx.AsyncBaseTransport):
    """The real network (TLS verified, pooled connections), and the one place secrets go in.

    Requests name secrets by placeholder (:func:`placeholder`); a request naming a secret
    that is not set fails with :class:`~pytest_citations.errors.MissingTokenError`. A
    failure below this transport surfaces as an ``httpx.TransportError`` that carries
    neither the request nor a cause, so no traceback can show a URL with a token in it.
    """

    def __init__(self, settings: Settings) -> None:
        self._limit = max(settings.concurrency, 1)
        self._ssl = httpx.create_ssl_context()
        #: One pool per origin (Crawlbase, the judge): httpcore checks every idle
        #: connection of a pool on each request, and the crawl connections idle once the
        #: pages are in while the judge is busiest.
        self._pools: dict[tuple[bytes, bytes, int | None], httpcore.AsyncConnectionPool] = {}
        self._secrets = {placeholder(s.variable): s for s in settings.secrets.values()}

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

    async def _exchange(self, request: httpx.Request) -> httpx.Response | _Failure:
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
        if isinstance(outcome, _Failure):
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


def network_transport(settings: Settings) -> NetworkTransport:
    """The real network for ``settings`` (the innermost transport of every chain)."""
    return NetworkTransport(settings)


class HttpClient:
    """Builds requests (explicit timeouts, no redirects, a fixed user agent) and sends them
    through a transport chain. The engine's only HTTP client."""

    def __init__(self, settings: Settings, transport: httpx.AsyncBaseTransport | None = None):
        self.transport = transport or network_transport(settings)
        self._timeout = httpx.Timeout(
            settings.read_timeout, connect=settings.connect_timeout
        ).as_dict()

    def build_request(
        self,
        method: str,
        url: str,
        *,
        params: Mapping[str, str] | None = None,
        headers: Mapping[str, str] | None = None,
        content: bytes | None = None,
    ) -> httpx.Request:
        """A request ready to send; secrets appear in it only as placeholders."""
        return httpx.Request(
            method,
            url,
            params=params,
            headers={"user-agent": USER_AGENT, "accept-encoding": "gzip", **(headers or {})},
            content=content,
            extensions={"timeout": self._timeout},
        )

    async def send(self, request: httpx.Request) -> httpx.Response:
        """Send through the transport chain and read the whole body."""
        response = await self.transport.handle_async_request(request)
        await response.aread()
        log.info(
            'HTTP Request: %s %s "%d %s"',
            request.method,
            request.url,
            response.status_code,
            response.reason_phrase,
        )
        return response

    async def aclose(self) -> None:
        """Close the transport chain (and its connections)."""
        await self.transport.aclose()


def make_http_client(
    settings: Settings, transport: httpx.AsyncBaseTransport | None = None
) -> HttpClient:
    """One client for the run. ``transport`` wraps or replaces :func:`network_transport`
    (the plugin's cassettes do)."""
    return HttpClient(settings, transport)


def retry_after_seconds(response: httpx.Response) -> float | None:
    """``Retry-After`` as seconds (delta or HTTP date), or None."""
    raw = response.headers.get("retry-after")
    if raw is None:
        return None
    raw = raw.strip()
    try:
        seconds = float(raw)
    except ValueError:
        pass
    else:
        return max(seconds, 0.0)
    try:
        when = email.utils.parsedate_to_datetime(raw)
    except (TypeError, ValueError):
        return None
    return max(when.timestamp() - time.time(), 0.0)


class Requester:
    """Sends requests under a shared concurrency limit, retries transient failures, and
    gives up when a request's overall deadline (``settings.deadline``) has passed. With a
    :class:`~pytest_citations.queues.RequestLimit`, a request waits by its priority
    (fetches before judge calls)."""

    def __init__(
        self,
        http: HttpClient,
        settings: Settings,
        limit: RequestLimit | asyncio.Semaphore,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        self.http = http
        self.settings = settings
        self.limit = limit
        self._sleep = sleep

    def _slot(self, priority: int) -> AbstractAsyncContextManager[Any]:
        if isinstance(self.limit, RequestLimit):
            return self.limit.slot(priority)
        return self.limit

    def _delay(self, attempt: int, response: httpx.Response | None) -> float:
        hinted = retry_after_seconds(response) if response is not None else None
        if hinted is not None:
            return min(hinted, self.settings.max_backoff)
        jittered: float = self.settings.backoff * (2**attempt) * (0.5 + random.random() / 2)
        return min(jittered, self.settings.max_backoff)

    async def send(
        self,
        what: str,
        build: Callable[[], httpx.Request],
        *,
        retry_statuses: Collection[int] = RETRYABLE_STATUSES,
        priority: int = JUDGE,
    ) -> httpx.Response:
        """Send the request ``build()`` makes; retry connection errors, timeouts and
        ``retry_statuses``; return the last response or raise :class:`TransientError`.

        A slot of the limit is held only while a request is in flight, never while backing
        off; the deadline counts from the first time the request went out.
        """
        attempts = self.settings.retries + 1
        loop = asyncio.get_running_loop()
        deadline = self.settings.deadline
        started: float | None = None  # the clock starts when the request first goes out
        for attempt in range(attempts):
            last = attempt == attempts - 1
            response: httpx.Response | None = None
            try:
                async with self._slot(priority):
                    started = loop.time() if started is None else started
                    async with asyncio.timeout(max(started + deadline - loop.time(), 0)):
                        response = await self.http.send(build())
            except TimeoutError:
                raise TransientError(what, f"no answer within {deadline:g} s") from None
            except httpx.TimeoutException:
                if last:
                    raise TransientError(what, "timed out") from None
            except httpx.TransportError as error:
                if last:
                    raise TransientError(
                        what, f"connection failed ({type(error).__name__})"
                    ) from None
            else:
                if response.status_code not in retry_statuses:
                    return response
                if last:
                    raise TransientError(
                        what, f"HTTP {response.status_code} after {attempts} attempts"
                    )
            pause = self._delay(attempt, response)
            if started is not None and loop.time() + pause >= started + deadline:
                raise TransientError(what, f"no answer within {deadline:g} s")
            await self._sleep(pause)
        raise AssertionError("unreachable")  # pragma: no cover


__all__ = [
    "REPLAYED",
    "RETRYABLE_STATUSES",
    "HttpClient",
    "NetworkTransport",
    "Requester",
    "TransientError",
    "is_replayed",
    "make_http_client",
    "network_transport",
    "placeholder",
]
