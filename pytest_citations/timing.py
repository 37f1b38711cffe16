"""The time a claim's own check took, measured where the work is done.

A claim's check is its requests (counted while each is in flight, not while it waits for a
slot of the request limit) and its model work (counted while the model runs it, not while it
waits its turn on the model's thread). Each is charged to the claim whose check started it:
work shared by claims (a page two claims cite, an identical judge call) is done once and
charged to the claim that asked first; the others waited for it, they did no work.

Claims are checked concurrently, so their times overlap: :func:`split` shares out a wall
time (a case file's verification) in proportion to them, so that the shares add up to it.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence
from contextvars import ContextVar


class WorkClock:
    """Seconds of work charged to one claim."""

    def __init__(self) -> None:
        self.seconds = 0.0

    def charge(self, seconds: float) -> None:
        """Add ``seconds`` of work (a negative span, from a clock that went back, adds 0)."""
        self.seconds += max(seconds, 0.0)


#: The clock of the claim whose check runs in the current context (tasks copy it).
_CURRENT: ContextVar[WorkClock | None] = ContextVar("citations_work_clock", default=None)


def charge(seconds: float) -> None:
    """Charge ``seconds`` of work to the claim checked in the current context, if any."""
    clock = _CURRENT.get()
    if clock is not None:
        clock.charge(seconds)


@contextlib.contextmanager
def clocked() -> Iterator[WorkClock]:
    """A new clock for the work started in this context (and the tasks it starts) until
    the block ends."""
    clock = WorkClock()
    token = _CURRENT.set(clock)
    try:
        yield clock
    finally:
        _CURRENT.reset(token)


def split(total: float, weights: Sequence[float]) -> list[float]:
    """``total`` seconds shared out in proportion to ``weights``; evenly when none of them
    weighs anything (a replay whose every answer came at once)."""
    if not weights:
        return []
    weight = sum(max(w, 0.0) for w in weights)
    if weight <= 0.0:
        return [total / len(weights)] * len(weights)
    return [total * max(w, 0.0) / weight for w in weights]


__all__ = ["WorkClock", "charge", "clocked", "split"]
