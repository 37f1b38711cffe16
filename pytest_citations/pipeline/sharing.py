"""Work shared across a run, and which piece of it an HTTP request belongs to.

The verifier shares one fetch per URL and one judge call per identical request across the
whole run. A transport that records traffic (the plugin's cassettes) needs to know which
requests make up a shared piece of work, and who reused it, to copy those requests into
every recording that depends on them. :class:`SharedWork` runs each piece of work once
per scope, and this module carries the knowledge of which work a request is part of.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, Hashable
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

from ..errors import RequestRefused

T = TypeVar("T")

#: The key of the work (``("fetch", url)``, ``("judge", …)``) the current task performs.
current_work: ContextVar[Hashable | None] = ContextVar("citations_current_work", default=None)


class WorkObserver(Protocol):
    """Told, in the caller's context, each time a piece of work is needed (new or reused)."""

    def used(self, key: Hashable) -> None:
        """``key`` was needed by the code running in the current context."""
        ...

    def scope(self) -> Hashable | None:
        """Who may share work done in the current context: None for the whole run, or a key
        that keeps it to one scope (a replay-only cassette answers only from itself)."""
        ...


@dataclass
class SharedWork:
    """Memoises coroutines by key: the first caller starts the task, later callers await it.

    The task runs with :data:`current_work` set to its key, and the
    observer hears of every use, so that recorded traffic can follow shared work.
    """

    kind: str
    observer: WorkObserver | None = None
    tasks: dict[Any, asyncio.Task[Any]] = field(default_factory=dict)

    def get(self, key: Any, start: Callable[[], Awaitable[T]]) -> asyncio.Task[T]:
        """The task doing ``key``'s work in the current scope, started on first need."""
        work = (self.kind, key)
        scoped: Any = key
        if self.observer is not None:
            self.observer.used(work)
            scoped = (self.observer.scope(), key)
        task = self.tasks.get(scoped)
        if task is not None and _refused(task):
            task = None  # refused by one recording; another may hold the answer
        if task is None:

            async def run() -> T:
                current_work.set(work)
                return await start()

            task = asyncio.ensure_future(run())
            self.tasks[scoped] = task
        return task

    def release(self, scope: Hashable) -> int:
        """Forget the finished work of ``scope`` (a key :meth:`WorkObserver.scope` gave):
        once its owner is done nothing else may reuse it, and a finished task holds its
        result and the context it ran in (for a cassette, the whole parsed recording) for
        as long as it is kept. Returns how many were forgotten; running work stays."""
        done = [
            scoped
            for scoped, task in self.tasks.items()
            if isinstance(scoped, tuple) and len(scoped) == 2 and scoped[0] == scope and task.done()
        ]
        for scoped in done:
            del self.tasks[scoped]
        return len(done)

    async def drain(self) -> None:
        """Cancel what is still running and wait for it to end."""
        pending = [task for task in self.tasks.values() if not task.done()]
        for task in pending:
            task.cancel()
        for task in pending:
            with contextlib.suppress(BaseException):
                await task


def _refused(task: asyncio.Task[Any]) -> bool:
    """A finished task whose request a transport refused (say, missing from a cassette)."""
    return task.done() and not task.cancelled() and isinstance(task.exception(), RequestRefused)
