"""The limit on requests in flight for a whole run or service (A3), served by priority:
fetches go before judge calls, because a fetched page feeds the embedding thread and a judge
call feeds nothing (the thread's own queue is :mod:`pytest_citations.retrieval.worker`)."""

from __future__ import annotations

import asyncio
import heapq
import itertools
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

#: Priorities, lower first.
FETCH, JUDGE = 0, 1


class RequestLimit:
    """A semaphore whose waiters are served lowest priority first, then in arrival order.
    Shared by every verifier of a run (or of a service)."""

    def __init__(self, limit: int) -> None:
        if limit < 1:
            raise ValueError("the limit must be at least 1")
        self.limit = limit
        self._free = limit
        self._waiting: list[tuple[int, int, asyncio.Future[None]]] = []
        self._order = itertools.count()

    @asynccontextmanager
    async def slot(self, priority: int = JUDGE) -> AsyncIterator[None]:
        """Hold one of the slots while the block runs."""
        await self._acquire(priority)
        try:
            yield
        finally:
            self._release()

    async def _acquire(self, priority: int) -> None:
        if self._free > 0 and not self._waiting:
            self._free -= 1
            return
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        heapq.heappush(self._waiting, (priority, next(self._order), future))
        try:
            await future
        except asyncio.CancelledError:
            if future.done() and not future.cancelled():
                self._release()  # the slot came just as the waiter was cancelled
            raise

    def _release(self) -> None:
        while self._waiting:
            _, _, future = heapq.heappop(self._waiting)
            if not future.done():
                future.set_result(None)
                return
        self._free += 1
