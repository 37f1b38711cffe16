"""What GitHub Actions shows of a run: workflow commands (``::error file=…,line=…``) that put
an annotation at the case file and line of each claim and case that fails or could not be
checked, of each problem of a case file that could not be collected and each item of one
that could not be verified, and of each regression against the base run (a ``::warning``
when it does not fail the gate), all read from the run's result (:func:`annotations_of`). Pure
functions (but :func:`under_github_actions`, which reads GitHub's own variable): the plugin
decides where they are printed.

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
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from ..gating.criteria import Decision
from ..gating.messages import case_message, claim_message
from ..gating.result import CaseResult, ClaimResult
from ..gating.run_result import FileError, RunResult
from ..sanitize import strip_controls

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


Level = Literal["error", "warning", "notice"]


def _claim(claim: ClaimResult, case: CaseResult, result: RunResult) -> list[tuple[Level, str, str]]:
    """(level, title, message) of a claim: an error when it fails or could not be checked, and
    its regression against the base (an error when it fails the gate, else a warning),
    unless its own error says it already."""
    found: list[tuple[Level, str, str]] = []
    # Named only when there is something to say: most claims pass and say nothing.
    message = claim_message(claim, case)
    if message is not None and claim.decision is Decision.FAIL:
        said = f"citations: {claim.where.in_file} failed ({claim.label})"
        found.append(("error", said, message))
    elif message is not None:
        said = f"citations: {claim.where.in_file} could not be checked"
        found.append(("error", said, message))
    change = claim.change
    if change is not None and change.regressed and claim.decision is not Decision.FAIL:
        level: Level = "error" if change.fails else "warning"
        said = f"citations: {claim.where.in_file} regressed against the base"
        found.append((level, said, change.summary))
    return found


def _case(case: CaseResult) -> tuple[Level, str, str] | None:
    message = case_message(case)
    if message is None:
        return None
    name = case.info.item.in_file
    failed = case.item is Decision.FAIL
    title = f"citations: {name} failed" if failed else f"citations: {name} could not be decided"
    return "error", title, message


def _file(error: FileError) -> list[tuple[int, str, str]]:
    """(line, title, message) of each problem of a case file, or item it left unchecked."""
    if not error.collected:
        problems = error.problems or ((0, error.why),)
        return [(line, "citations: case file not collected", text) for line, text in problems]
    said = "could not be checked (its case file was not verified)"
    return [
        (item.line, f"citations: {item.in_file} {said}", error.message or error.why)
        for item in error.items
    ]


def annotations_of(result: RunResult, place: Callable[[str], str]) -> list[Annotation]:
    """Every annotation of the run, by file and line (the same under xdist). ``place`` turns
    a case file, as node ids name it, into the path GitHub knows."""
    found: list[tuple[str, int, Level, str, str]] = []
    for case in result.cases:
        for claim in case.claims:
            line = claim.where.line
            found += [(claim.where.file, line, *said) for said in _claim(claim, case, result)]
        own = _case(case) if case.decision is not None else None
        if own is not None:
            found.append((case.info.file, case.info.line, *own))
    for error in result.file_errors:
        found += [(error.file, line, "error", title, text) for line, title, text in _file(error)]
    found.sort(key=lambda entry: (entry[0], entry[1], entry[3], entry[4]))
    return [
        Annotation(level, place(file), line, title, text)
        for file, line, level, title, text in found
    ]


__all__ = [
    "Annotation",
    "annotations_of",
    "escape_data",
    "escape_property",
    "neutralise",
    "under_github_actions",
]
