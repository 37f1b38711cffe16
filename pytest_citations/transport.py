"""HTTP plumbing shared by the Crawlbase client and the judges: one async client, bounded
concurrency, retries with backoff that honour ``Retry-After``."""

from __future__ import annotations

import asyncio
import email.utils
import random
import time
from collections.abc import Awaitable, Callable, Collection

import httpx

from .settings import Settings

#: Retried with backoff: timeouts, throttling and every 5xx (Anthropic's 529 "overloaded",
#: Cloudflare's 522/524 included).
RETRYABLE_STATUSES = frozenset({408, 425, 429, *range(500, 600)})
#: Response extension set by a transport that answered from a recording (nothing was spent).
REPLAYED = "pytest_citations.replayed"


def is_replayed(response: httpx.Response) -> bool:
    """True when a recording, not the network, answered this request."""
    return bool(response.extensions.get(REPLAYED))


class TransientError(Exception):
    """The peer kept failing after every retry. The message never holds a URL or a secret."""

    def __init__(self, what: str, detail: str) -> None:
        self.detail = detail
        super().__init__(f"{what}: {detail}")


def network_transport(settings: Settings) -> httpx.AsyncHTTPTransport:
    """The real network: TLS verified, a connection pool sized to the concurrency limit."""
    limit = max(settings.concurrency, 1) * 2
    return httpx.AsyncHTTPTransport(
        verify=True, limits=httpx.Limits(max_connections=limit, max_keepalive_connections=limit)
    )


def make_http_client(
    settings: Settings, transport: httpx.AsyncBaseTransport | None = None
) -> httpx.AsyncClient:
    """One async client for the run, with explicit timeouts and no redirect following.

    ``transport`` wraps or replaces :func:`network_transport` (the plugin's cassettes do).
    """
    return httpx.AsyncClient(
        transport=transport or network_transport(settings),
        timeout=httpx.Timeout(settings.read_timeout, connect=settings.connect_timeout),
        follow_redirects=False,
        headers={"User-Agent": "pytest-citations"},
    )


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
    """Sends requests under a shared concurrency limit and retries transient failures."""

    def __init__(
        self,
        http: httpx.AsyncClient,
        settings: Settings,
        semaphore: asyncio.Semaphore,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        self.http = http
        self.settings = settings
        self.semaphore = semaphore
        self._sleep = sleep

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
    ) -> httpx.Response:
        """Send the request ``build()`` makes; retry connection errors, timeouts and
        ``retry_statuses``; return the last response or raise :class:`TransientError`.

        The semaphore is held only while a request is in flight, never while backing off.
        """
        attempts = self.settings.retries + 1
        for attempt in range(attempts):
            last = attempt == attempts - 1
            response: httpx.Response | None = None
            try:
                async with self.semaphore:
                    response = await self.http.send(build())
                    await response.aread()
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
            await self._sleep(self._delay(attempt, response))
        raise AssertionError("unreachable")  # pragma: no cover
