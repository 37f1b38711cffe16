"""Sending under the run's limit on requests in flight, with retries and backoff that honour
``Retry-After``, each request bounded by an overall deadline."""

from __future__ import annotations

import asyncio
import email.utils
import random
import time
from collections.abc import Awaitable, Callable, Collection
from contextlib import AbstractAsyncContextManager
from typing import Any

import httpx

from ..timing import charge
from .client import HttpClient
from .config import NetworkConfig
from .limits import JUDGE, RequestLimit
from .usage import Usage

#: Retried with backoff: timeouts, throttling and every 5xx (Anthropic's 529 "overloaded",
#: Cloudflare's 522/524 included).
RETRYABLE_STATUSES = frozenset({408, 425, 429, *range(500, 600)})


class TransientError(Exception):
    """The peer kept failing after every retry. The message never holds a URL or a secret."""

    def __init__(self, what: str, detail: str) -> None:
        self.detail = detail
        super().__init__(f"{what}: {detail}")


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
    gives up when a request's overall deadline (``config.deadline``) has passed. With a
    :class:`~pytest_citations.network.limits.RequestLimit`, a request waits by its priority
    (fetches before judge calls). Its ``ledger`` is the run's usage, which a judge counts its
    answers into (see :func:`~pytest_citations.network.budget.account`)."""

    def __init__(
        self,
        http: HttpClient,
        config: NetworkConfig,
        limit: RequestLimit | asyncio.Semaphore,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        ledger: Usage | None = None,
    ) -> None:
        self.http = http
        self.config = config
        self.limit = limit
        self.ledger = ledger if ledger is not None else Usage()
        self._sleep = sleep

    def _slot(self, priority: int) -> AbstractAsyncContextManager[Any]:
        if isinstance(self.limit, RequestLimit):
            return self.limit.slot(priority)
        return self.limit

    def _delay(self, attempt: int, response: httpx.Response | None) -> float:
        hinted = retry_after_seconds(response) if response is not None else None
        if hinted is not None:
            return min(hinted, self.config.max_backoff)
        jittered: float = self.config.backoff * (2**attempt) * (0.5 + random.random() / 2)
        return min(jittered, self.config.max_backoff)

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
        attempts = self.config.retries + 1
        loop = asyncio.get_running_loop()
        deadline = self.config.deadline
        started: float | None = None  # the clock starts when the request first goes out
        for attempt in range(attempts):
            last = attempt == attempts - 1
            response: httpx.Response | None = None
            try:
                async with self._slot(priority):
                    sent = loop.time()
                    started = sent if started is None else started
                    try:
                        async with asyncio.timeout(max(started + deadline - sent, 0)):
                            response = await self.http.send(build())
                    finally:  # the claim's own time: in flight, never waiting for a slot
                        charge(loop.time() - sent)
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
