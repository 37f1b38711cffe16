"""The one thread that runs the embedding model. Ranking a claim against a page already
indexed goes before indexing another page: a ranking releases a judge call onto the network
at once, an index only more work for this thread."""

from __future__ import annotations

import asyncio
import itertools
import queue
import threading
import time
from collections.abc import Callable
from typing import Any, TypeVar

from ..timing import charge

T = TypeVar("T")

RANK, INDEX = 0, 1


class EmbeddingWorker:
    """One thread that runs blocking model work, lowest priority first: the model is not
    thread-safe to share and a second thread would only compete for the same cores."""

    def __init__(self, name: str = "citations-embed") -> None:
        self._jobs: queue.PriorityQueue[tuple[int, int, Any]] = queue.PriorityQueue()
        self._order = itertools.count()
        self._thread = threading.Thread(target=self._serve, name=name, daemon=True)
        self._started = False
        self._lock = threading.Lock()

    def _serve(self) -> None:
        while True:
            _, _, job = self._jobs.get()
            if job is None:
                return
            function, args, future, loop = job
            if future.cancelled():
                continue
            try:
                result = function(*args)
            except BaseException as error:  # handed to the awaiting coroutine
                loop.call_soon_threadsafe(_settle, future, None, error)
            else:
                loop.call_soon_threadsafe(_settle, future, result, None)

    async def run(self, priority: int, function: Callable[..., T], *args: Any) -> T:
        """Run ``function(*args)`` on the worker thread, after every job of a lower
        priority number that is waiting."""
        with self._lock:
            if not self._started:
                self._thread.start()
                self._started = True
        loop = asyncio.get_running_loop()
        future: asyncio.Future[T] = loop.create_future()
        ran = [0.0]  # written on the thread before it settles the future

        def timed(*given: Any) -> T:
            started = time.perf_counter()
            try:
                return function(*given)
            finally:
                ran[0] = time.perf_counter() - started

        self._jobs.put((priority, next(self._order), (timed, args, future, loop)))
        try:
            return await future
        finally:  # the claim's own time: while the model ran it, not while it queued
            charge(ran[0])

    def shutdown(self) -> None:
        """Finish the jobs already queued, then stop the thread."""
        with self._lock:
            started = self._started
        if started:
            self._jobs.put((1 << 30, next(self._order), None))
            self._thread.join()


def _settle(future: asyncio.Future[Any], result: Any, error: BaseException | None) -> None:
    if future.done():
        return
    if error is not None:
        future.set_exception(error)
    else:
        future.set_result(result)
