"""What a run under GitHub Actions needs of the machine it runs on: where GitHub's job
summary is, and appending the summary (the annotations and the summary's text are the run's
result rendered, in :mod:`pytest_citations.reports`; the path of a case file as GitHub
knows it is :class:`~pytest_citations.reports.info.SourceLinks`)."""

from __future__ import annotations

import contextlib
import errno
import os
from collections.abc import Sequence
from pathlib import Path

from ..reports.markdown_report import MAX_SUMMARY_BYTES, capped


def step_summary() -> Path | None:
    """The job summary file GitHub names in ``GITHUB_STEP_SUMMARY`` (appended to)."""
    named = os.environ.get("GITHUB_STEP_SUMMARY", "").strip()
    return Path(named) if named else None


def append_summary(path: Path, markdown: str, whole: Sequence[str] = ()) -> str | None:
    """Append ``markdown`` to the job summary at ``path`` (GitHub's contract: every step
    appends to its own file), cut to what the file has room for under GitHub's limit (see
    :func:`~pytest_citations.reports.markdown_report.capped`; ``whole`` names the report
    files), in one append or not at all (a full disk leaves the file as it was); why not,
    if it could not be."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o644)
    except OSError as error:
        return f"job summary not written to {path}: {error.strerror or error}"
    try:
        size = os.fstat(fd).st_size
        text = capped(markdown, MAX_SUMMARY_BYTES - size, whole)
        if not text:
            return f"job summary not written to {path}: it holds {size} bytes already"
        try:
            _write_all(fd, text.encode("utf-8"))
        except OSError as error:
            with contextlib.suppress(OSError):
                os.ftruncate(fd, size)
            why = error.strerror or error
            return f"job summary not written to {path}: {why} (left as it was)"
    finally:
        os.close(fd)
    return None


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        if written <= 0:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        view = view[written:]
