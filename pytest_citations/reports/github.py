"""What GitHub Actions shows of a run: workflow commands (``::error file=…,line=…``) that put
an annotation at the case file and line of each failing or unchecked item, and the shape of
a regression against the base run that the outputs show (a ``::warning`` when it does not
fail the gate). Pure functions (but :func:`under_github_actions`, which reads GitHub's own
variable): the plugin and the command line decide where they are printed.

Escaping follows GitHub's toolkit (``@actions/core`` ``command.ts``): in the message ``%``,
``\\r`` and ``\\n`` are percent-encoded; in a property also ``:`` and ``,``. So no text a page
or a case file holds can end the command early or start another one.

Every other line printed under GitHub Actions goes through :func:`neutralise`: the runner
reads a command in any line that starts with ``::`` (after white space) or holds ``##[``
anywhere (its older syntax: ``##[add-mask]…``, or ``##[stop-commands]x``, which silences
every command after it).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Literal, Protocol

from ..gating.criteria import Decision
from ..gating.run_report import RunReport
from ..sanitize import strip_controls
from .info import RunInfo

#: Characters of a message GitHub would show as an annotation; a longer one is cut (the
#: log and the reports hold the whole text).
MAX_MESSAGE = 4000
#: What breaks a command's syntax without changing what a reader sees: a zero-width space
#: (not white space to the runner, which trims only that before ``::``).
_BREAK = "\u200b"
#: Where the runner splits its input into lines.
_LINE_BREAK = re.compile(r"(\r\n|\r|\n)")


def under_github_actions() -> bool:
    """GitHub Actions sets ``GITHUB_ACTIONS=true`` in every step."""
    return os.environ.get("GITHUB_ACTIONS") == "true"


def neutralise(text: str) -> str:
    """``text`` in which the Actions runner reads no workflow command: in each line, a
    zero-width space between the ``#`` and the ``[`` of ``##[``, and between the two colons
    of a line that starts with ``::`` (after white space). The text reads the same."""
    parts = _LINE_BREAK.split(text)
    for index in range(0, len(parts), 2):
        line = parts[index].replace("##[", "##" + _BREAK + "[")
        body = line.lstrip()
        if body.startswith("::"):
            line = line[: len(line) - len(body)] + ":" + _BREAK + body[1:]
        parts[index] = line
    return "".join(parts)


class Regression(Protocol):
    """A claim (or case) that got worse against the base run, as the outputs show it. The
    comparison that finds them is not here: whatever it yields, with these attributes, is
    rendered by :func:`regression_annotations` and the Markdown summary."""

    @property
    def nodeid(self) -> str:
        """The claim's node id (``cases/x.yaml::case::claim-2``) or the case's."""
        ...

    @property
    def line(self) -> int:
        """Its 1-based line in the case file (0 when unknown)."""
        ...

    @property
    def summary(self) -> str:
        """What changed, in one line (``supported → contradicted``)."""
        ...

    @property
    def fails(self) -> bool:
        """Whether it fails the gate (its item then carries an ``::error`` already)."""
        ...


@dataclass(frozen=True)
class Annotation:
    """One annotation: its level, where it points and what it says."""

    level: Literal["error", "warning", "notice"]
    #: The file, relative to the repository's root (``GITHUB_WORKSPACE``), with ``/``.
    file: str
    #: 1-based; 0 points at the file as a whole.
    line: int
    title: str
    message: str

    def command(self) -> str:
        """The workflow command, one line: ``::error file=…,line=…,title=…::message``."""
        properties = [f"file={escape_property(self.file)}"]
        if self.line > 0:
            properties.append(f"line={self.line}")
        properties.append(f"title={escape_property(strip_controls(self.title))}")
        message = strip_controls(self.message).strip()
        if len(message) > MAX_MESSAGE:
            message = message[: MAX_MESSAGE - 1] + "…"
        return f"::{self.level} {','.join(properties)}::{escape_data(message)}"


def escape_data(text: str) -> str:
    """A command's message, percent-encoded as GitHub reads it."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """A command's property value: the message's escapes, and ``:`` and ``,``."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def regression_annotations(
    regressions: Iterable[Regression], place: Callable[[str], str]
) -> list[Annotation]:
    """A ``::warning`` for each regression that does not fail the gate (one that fails it
    is an error of its item already). ``place`` turns a node id's file into the path
    GitHub knows."""
    return [
        Annotation(
            "warning",
            place(found.nodeid.split("::", 1)[0]),
            found.line,
            f"citations: {found.nodeid.split('::', 1)[-1]} regressed against the base",
            found.summary,
        )
        for found in regressions
        if not found.fails
    ]


@dataclass(frozen=True)
class Worse:
    """A regression of the run's comparison with its base, as the outputs show it."""

    nodeid: str
    line: int
    summary: str
    fails: bool


def regressions_of(report: RunReport, info: RunInfo) -> list[Worse]:
    """The claims of ``info``'s comparison that got worse against the base. One fails the
    gate when the run fails on regressions (``--citations-fail-on-regression``) or when the
    claim's own item fails (it then carries an ``::error`` already)."""
    if info.comparison is None:
        return []
    failing = {claim.nodeid for claim in report.claims if claim.decision is Decision.FAIL}
    gate = info.gates.fail_on_regression
    found = []
    for change in info.comparison.changes:
        if not change.regressed:
            continue
        summary = f"{change.before or 'new'} → {change.after or 'removed'}"
        if change.text_before is not None and change.text_after is not None:
            summary += f" (was: {change.text_before})"
        found.append(Worse(change.nodeid, change.line, summary, gate or change.nodeid in failing))
    return found


def commands(annotations: Sequence[Annotation]) -> list[str]:
    """The workflow command of each annotation, in order."""
    return [annotation.command() for annotation in annotations]


__all__ = [
    "Annotation",
    "Regression",
    "commands",
    "escape_data",
    "escape_property",
    "neutralise",
    "regression_annotations",
    "regressions_of",
    "under_github_actions",
]
