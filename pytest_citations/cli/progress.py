"""The progress of a batch on standard error: claims done, rate and time left (tqdm), on a
terminal only, so that logs and pipes get no redrawn lines."""

from __future__ import annotations

from types import TracebackType
from typing import TextIO

from tqdm import tqdm


class Progress:
    """A progress bar the verifier calls with ``(done, total)``; silent when ``quiet`` or
    when ``stream`` is not a terminal. Use it as a context manager, so that it is closed."""

    def __init__(self, stream: TextIO, total: int, *, quiet: bool = False) -> None:
        self.shown = not quiet and stream.isatty()
        self._bar = tqdm(
            total=total,
            unit="claim",
            file=stream,
            disable=not self.shown,
            dynamic_ncols=True,
            # Rate and time left over the whole run: claims take uneven times.
            smoothing=0,
        )

    def __call__(self, done: int, total: int) -> None:
        if total != self._bar.total:
            self._bar.total = total
        self._bar.update(done - self._bar.n)

    def __enter__(self) -> Progress:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self._bar.close()
