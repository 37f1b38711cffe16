"""Case files verified ahead of their items, several at once.

pytest runs items one after another, but a case file's verification is network waits and
model work that several files can share: while one file's judge calls are out, the next
file's pages are fetched and embedded. The files are started in the order their items will
run, keeping about :data:`CLAIMS_AHEAD` claims in flight, so that the request limit and the
model stay busy without a stopped run (``-x``, a refused account) having spent much on
files it never reports. A file an item asks for is started at once, ahead of the queue.

Each file's requests still go to its own cassette: the cassette is chosen per asyncio task
(:meth:`~pytest_citations.recording.CassetteSession.active`).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
from collections.abc import Callable, Coroutine, Hashable
from dataclasses import dataclass, field
from typing import Any

#: Claims kept in flight beyond the file the running item needs, at least; more with a
#: higher request limit (``CLAIMS_PER_SLOT`` per request in flight): enough that the model
#: never runs out of pages while the last files' judge calls are out (benchmarks/README.md).
CLAIMS_AHEAD = 128
CLAIMS_PER_SLOT = 8
#: How often a run that records looks whether its accounts have answered well yet.
PROOF_POLL_S = 0.05

Start = Callable[[], Coroutine[Any, Any, Any]]


@dataclass
class _Job:
    key: Hashable
    claims: int
    start: Start
    future: concurrent.futures.Future[Any] = field(default_factory=concurrent.futures.Future)
    started: bool = False


class VerifyAhead:
    """Runs jobs on ``loop`` in order, within a budget of claims in flight; :meth:`result`
    waits for one (from any other thread)."""

    def __init__(
        self,
        loop: asyncio.AbstractEventLoop,
        concurrency: int,
        proven: Callable[[], bool] = lambda: True,
        fatal: tuple[type[BaseException], ...] = (),
    ) -> None:
        self._loop = loop
        #: Whether the accounts have answered well: until then (or until a file is done)
        #: only the file an item asks for runs, so that a refused token or an account out of
        #: credits stops the run after one file's requests, not several.
        self._proven = proven
        self._completed = 0
        #: Errors after which nothing more starts (the run is about to stop).
        self._fatal = fatal
        self._waiting = False
        self.budget = max(CLAIMS_AHEAD, CLAIMS_PER_SLOT * concurrency)
        self._jobs: dict[Hashable, _Job] = {}
        self._queue: list[_Job] = []
        self._in_flight = 0
        self._stopped = False
        self._tasks: set[asyncio.Task[Any]] = set()

    def plan(self, key: Hashable, claims: int, start: Start) -> None:
        """Queue a job after those planned before; a key already planned is kept."""
        if key not in self._jobs:
            job = _Job(key, claims, start)
            self._jobs[key] = job
            self._loop.call_soon_threadsafe(self._queue.append, job)

    def planned(self, key: Hashable) -> bool:
        """Whether ``key`` was planned (and not yet handed out)."""
        return key in self._jobs

    def result(self, key: Hashable) -> Any:
        """The job's result (or its exception), starting it now if it has not started."""
        job = self._jobs.pop(key)
        self._loop.call_soon_threadsafe(self._demand, job)
        return job.future.result()

    def stop(self) -> None:
        """Start nothing more (a refused account: every further request would fail too)."""
        self._loop.call_soon_threadsafe(setattr, self, "_stopped", True)

    async def aclose(self) -> None:
        """On the loop: drop what has not started, cancel what runs and wait for it."""
        self._stopped = True
        for job in self._queue:
            job.future.cancel()
        self._queue.clear()
        running = list(self._tasks)
        for task in running:
            task.cancel()
        await asyncio.gather(*running, return_exceptions=True)

    # On the loop ---------------------------------------------------------------------
    def _demand(self, job: _Job) -> None:
        if not job.started:
            self._queue.remove(job)
            self._launch(job)
        self._fill()

    def _fill(self) -> None:
        if self._queue and not self._stopped and not (self._completed or self._proven()):
            if not self._waiting:  # look again shortly: the first answers are on their way
                self._waiting = True
                self._loop.call_later(PROOF_POLL_S, self._look_again)
            return
        while self._queue and not self._stopped:
            job = self._queue[0]
            if self._in_flight and self._in_flight + job.claims > self.budget:
                return
            self._queue.pop(0)
            self._launch(job)

    def _look_again(self) -> None:
        self._waiting = False
        self._fill()

    def _launch(self, job: _Job) -> None:
        job.started = True
        self._in_flight += job.claims
        task = self._loop.create_task(job.start())
        self._tasks.add(task)

        def done(task: asyncio.Task[Any]) -> None:
            self._tasks.discard(task)
            self._in_flight -= job.claims
            if task.cancelled():
                job.future.cancel()
            elif (error := task.exception()) is not None:
                self._stopped = self._stopped or isinstance(error, self._fatal)
                job.future.set_exception(error)
            else:
                self._completed += 1
                job.future.set_result(task.result())
            self._fill()

        task.add_done_callback(done)
