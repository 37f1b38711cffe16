"""Where each case item is and how it ended, read from its reports where the run's reports
are made (an xdist controller too: a report carries its item's location and result): the
``file``, ``line`` and own time JUnit gets, and an annotation for GitHub Actions at the line
of every item that failed or could not be checked and of every case file that could not be
collected."""

from __future__ import annotations

import contextlib
import errno
import os
import xml.etree.ElementTree as ET
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest

from ..atomic import write_atomically
from ..errors import CitationsError
from ..reports.github import Annotation
from ..reports.junit import JunitSite, with_sites
from ..reports.markdown_report import MAX_SUMMARY_BYTES, capped
from ..sanitize import strip_controls
from .results import ItemResult, problems_of


def step_summary() -> Path | None:
    """The job summary file GitHub names in ``GITHUB_STEP_SUMMARY`` (appended to)."""
    named = os.environ.get("GITHUB_STEP_SUMMARY", "").strip()
    return Path(named) if named else None


def github_place(root: Path) -> Callable[[str], str]:
    """A rootdir-relative path as GitHub knows it: relative to ``GITHUB_WORKSPACE`` (the
    repository's checkout) when it lies inside it, else as it is; with ``/``."""
    workspace = Path(os.environ.get("GITHUB_WORKSPACE") or root).resolve()

    def place(path: str) -> str:
        found = (root / path).resolve()
        try:
            return found.relative_to(workspace).as_posix()
        except ValueError:
            return Path(path).as_posix()

    return place


@dataclass(frozen=True)
class _Ending:
    file: str
    line: int
    title: str
    message: str


def _title(report: pytest.TestReport, found: ItemResult | None, domain: str) -> str:
    if found is not None and found.claim is not None:
        if report.when == "setup":
            return f"citations: {domain} could not be checked"
        return f"citations: {domain} failed ({found.claim.label})"
    if found is not None and found.case is not None and report.when == "setup":
        return f"citations: {domain} could not be decided"
    if found is not None and found.file_error is not None:
        return f"citations: {domain} could not be checked (its case file was not verified)"
    return f"citations: {domain} failed"


def _message(report: pytest.TestReport, found: ItemResult | None) -> str:
    if found is not None and found.message:
        return found.message
    lines = [line for line in report.longreprtext.splitlines() if line.strip()]
    return strip_controls(lines[-1]) if lines else "see the job's log"


@dataclass
class _Item:
    file: str
    line: int
    #: What pytest measured for the item so far (setup, call, teardown).
    measured: float = 0.0
    share: float | None = None
    waited: float = 0.0

    def site(self) -> JunitSite:
        """The item's site; its own time is what pytest measured, with the wait for its
        file's verification replaced by its share of it (a claim's)."""
        if self.share is None and not self.waited:
            return JunitSite(self.file, self.line)
        own = max(self.measured - self.waited, 0.0) + (self.share or 0.0)
        return JunitSite(self.file, self.line, own)


class ItemLog:
    """Every case item's site and, for those that failed, what they said."""

    def __init__(self) -> None:
        self._items: dict[str, _Item] = {}
        self._files: dict[str, JunitSite] = {}
        self._endings: dict[str, list[_Ending]] = {}

    @property
    def sites(self) -> dict[str, JunitSite]:
        """Each case item's (and uncollected case file's) site, by node id."""
        return {**self._files, **{nodeid: item.site() for nodeid, item in self._items.items()}}

    def add(self, report: pytest.TestReport, found: ItemResult | None) -> None:
        """One report of a case item (any phase)."""
        path, line, domain = report.location
        item = self._items.setdefault(
            report.nodeid, _Item(path, line + 1 if line is not None else 0)
        )
        item.measured += report.duration
        if found is not None:
            item.share, item.waited = found.seconds, found.waited
        if report.failed:
            ending = _Ending(
                path, item.line, _title(report, found, domain), _message(report, found)
            )
            self._endings[report.nodeid] = [ending]

    def add_collected(self, report: pytest.CollectReport) -> None:
        """A case file that could not be collected: each of its problems at its line."""
        path = report.nodeid.split("::", 1)[0]
        problems = problems_of(report)
        if not problems:
            lines = [line for line in str(report.longrepr).splitlines() if line.strip()]
            problems = [(0, strip_controls(lines[0]) if lines else "it could not be read")]
        self._files[report.nodeid] = JunitSite(path, problems[0][0])
        title = "citations: case file not collected"
        self._endings[report.nodeid] = [
            _Ending(path, line, title, message) for line, message in problems
        ]

    def annotations(self, place: Callable[[str], str]) -> list[Annotation]:
        """An ``::error`` per ending, by file and line (the same under xdist)."""
        endings = sorted(
            (ending for found in self._endings.values() for ending in found),
            key=lambda ending: (ending.file, ending.line, ending.title, ending.message),
        )
        return [Annotation("error", place(e.file), e.line, e.title, e.message) for e in endings]


def junit_path(config: pytest.Config) -> Path | None:
    """The file ``--junitxml`` writes, resolved as pytest's junitxml plugin resolves it
    (from the folder pytest started in)."""
    given = config.getoption("xmlpath", None)
    if not given:
        return None
    return Path(os.path.normpath(os.path.abspath(os.path.expanduser(os.path.expandvars(given)))))


def add_sites(path: Path, sites: Mapping[str, JunitSite], prefix: str | None) -> str | None:
    """Give the case items of the JUnit file at ``path`` their ``file``, ``line`` and own
    time (see :func:`~pytest_citations.reports.junit.with_sites`); why not, if it could not
    be (the file as pytest wrote it stays)."""
    try:
        xml = path.read_bytes()
    except OSError:
        return None  # pytest wrote no file (its junitxml plugin is off): nothing to add
    try:
        write_atomically(path, with_sites(xml, sites, prefix))
    except (CitationsError, ET.ParseError) as error:
        return f"JUnit file left as pytest wrote it: {error}"
    return None


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
