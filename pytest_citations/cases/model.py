"""What a case file holds once read: cases, their claims, and the error that names every
problem of a broken file."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import CitationsError


class CaseFileError(CitationsError):
    """A case file that cannot be used. ``problems`` holds every problem found, each as
    ``(line, message)`` with a 1-based line (0 when unknown); ``line`` and ``message`` are
    the first one's."""

    def __init__(
        self, path: Path | str, line: int, message: str, more: Sequence[tuple[int, str]] = ()
    ) -> None:
        self.path = Path(path)
        self.problems = [(line, message), *more]
        self.line, self.message = self.problems[0]
        super().__init__("\n".join(self.lines(str(self.path))))

    def lines(self, where: str) -> list[str]:
        """One ``where:line: message`` line per problem."""
        return [
            f"{where}:{line}: {message}" if line else f"{where}: {message}"
            for line, message in self.problems
        ]


@dataclass(frozen=True)
class Claim:
    """One claim of a case, with the URLs it cites (resolved from markers)."""

    index: int
    text: str
    urls: tuple[str, ...]
    markers: tuple[str, ...]
    line: int
    topic: str | None = None
    #: A human label for judge calibration (004, C5).
    expect: str | None = None
    #: General phrasing that may stand without a citation (004, C7).
    general: bool = False
    #: True when the claim was split from the answer rather than written out (C1).
    derived: bool = False
    #: The cited documents without a URL (``Title, pages 3-4``): they cannot be fetched.
    documents: tuple[str, ...] = ()
    #: The answer's text the provider attributed the claim's sources to (``span:``).
    span: str | None = None
    #: The answer's sentence the claim was rewritten or split from (``from:``).
    sentence: str | None = None
    #: Where the claim stands in its case's answer, ``(start, end)`` offsets into it
    #: (:func:`~.answer_spans.place_claims`); None without an answer or when not found.
    answer_span: tuple[int, int] | None = None

    @property
    def name(self) -> str:
        """The item name: ``claim-1``, ``claim-2`` … (stable while the order holds)."""
        return f"claim-{self.index}"


@dataclass(frozen=True)
class Case:
    """One question with its answer, citations and claims."""

    id: str
    path: Path
    line: int
    question: str | None
    answer: str | None
    citations: dict[str, str]
    claims: tuple[Claim, ...]
    min_precision: float | None = None
    retrieved: tuple[str, ...] = ()
    #: Marker of each retrieved URL when ``retrieved:`` is a mapping (``3: https://…``).
    retrieved_markers: dict[str, str] = field(default_factory=dict)
    criteria: dict[str, Any] = field(default_factory=dict)
    #: The case's ``tags:`` (they become pytest markers), and the line they stand on.
    tags: tuple[str, ...] = ()
    tags_line: int = 0
    #: Marker -> a cited document without a URL (``Title, pages 3-4``).
    documents: dict[str, str] = field(default_factory=dict)
