"""What the command prints under GitHub Actions: every line of its standard output and error
as text in which the runner reads no workflow command (:func:`~pytest_citations.reports.
github.neutralise`). A merge prints a pull request's claims, an import its answers, drift
what pages say; the command prints no workflow command of its own."""

from __future__ import annotations

import contextlib
import io
import sys
from collections.abc import Iterator
from typing import Any, TextIO

from ..reports.github import neutralise, under_github_actions


class CommandFreeStream(io.TextIOBase):
    """A text stream that writes whole lines to ``stream``, each neutralised; a line not
    ended yet waits for its end (or :meth:`finish`), so that ``##`` and ``[`` written
    apart are still seen together."""

    def __init__(self, stream: TextIO) -> None:
        super().__init__()
        self.stream = stream
        self._pending = ""

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        self._pending += text
        end = max(self._pending.rfind("\n"), self._pending.rfind("\r")) + 1
        if end:
            self.stream.write(neutralise(self._pending[:end]))
            self._pending = self._pending[end:]
        return len(text)

    def flush(self) -> None:
        self.stream.flush()

    def finish(self) -> None:
        """Write the line not ended yet, and flush."""
        if self._pending:
            self.stream.write(neutralise(self._pending))
            self._pending = ""
        self.stream.flush()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.stream, name)  # encoding, errors, isatty, fileno, buffer…


@contextlib.contextmanager
def command_free_output() -> Iterator[None]:
    """Under GitHub Actions, standard output and error through :class:`CommandFreeStream`
    while the command runs; elsewhere as they are."""
    if not under_github_actions():
        yield
        return
    out, err = CommandFreeStream(sys.stdout), CommandFreeStream(sys.stderr)
    sys.stdout, sys.stderr = out, err
    try:
        yield
    finally:
        sys.stdout, sys.stderr = out.stream, err.stream
        out.finish()
        err.finish()


__all__ = ["CommandFreeStream", "command_free_output"]
