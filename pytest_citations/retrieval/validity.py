"""Whether a recorded selection is one its chooser could have made from the recorded page,
read without a model: a recording is a file a pull request can edit, and pieces cut where no
ranking cuts (out of order, across words) would show the judge a passage the page never had.

What the recorded ranking cuts the page into is computable from the page text alone:

- **passages** (ranking 1, and ranking 2 with ``units: passages``): the page split by R1
  (:func:`~.passages.split_spans`, the recorded passage size); a text shown is the pieces of
  neighbouring whole passages, at most ``top_k`` of them and the top one's neighbour in all;
- **lines** (ranking 2, ``units: lines``): the lines of those passages cut into units
  (:func:`~.lines.split_units`); a text shown is a run of neighbouring units as
  :func:`~.choosing.run_pieces` writes it (the end of its first line from its first unit,
  whole lines between, the start of its last line to its last unit's end), and all the
  units shown hold at most the recorded word budget.

Everywhere the pieces lie inside the page, in page order within a text, and no two texts
share a character.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Sequence
from dataclasses import dataclass

from .lines import page_offset, split_units
from .passages import Span, page_text, split_spans
from .selection import LINES, PASSAGES, RANKING, Chooser, Selection, Shown

#: Float sums of unit sizes (a Chinese character is half a word) may pass the budget by this.
_SLACK = 1e-6


@dataclass(frozen=True)
class _Cut:
    """A page as one passage size cuts it: each passage's pieces, and each unit as its span
    of the page text, its line and its size."""

    passages: tuple[tuple[Span, ...], ...]
    lines: tuple[Span, ...]
    units: tuple[tuple[Span, int, float], ...]

    def passage_at(self, start: int) -> int | None:
        return next((n for n, p in enumerate(self.passages) if p and p[0][0] == start), None)


@functools.lru_cache(maxsize=16)
def _cut(markdown: str, passage_words: int) -> _Cut:
    text = page_text(markdown)
    passages = split_spans(markdown, passage_words)
    lines = [piece for passage in passages for piece in passage.pieces]
    # A passage's text is its pieces as text_of writes them, joined by a blank line: a line
    # per piece. Cut line by line, each unit's "passage" is its line.
    shown = [line for passage in passages for line in passage.text.split("\n\n")]
    units = []
    for unit in split_units(shown):
        first = page_offset(text, lines[unit.passage], unit.start)
        last = page_offset(text, lines[unit.passage], unit.end - 1) + 1
        units.append(((first, last), unit.passage, unit.size))
    return _Cut(tuple(p.pieces for p in passages), tuple(lines), tuple(units))


def _run_pieces(cut: _Cut, first: int, last: int) -> tuple[Span, ...]:
    """The pieces of the run of units ``first``..``last`` (as :func:`~.choosing.run_pieces`)."""
    (start, _), top, _ = cut.units[first]
    (_, end), bottom, _ = cut.units[last]
    pieces = list(cut.lines[top : bottom + 1])
    pieces[0] = (start, pieces[0][1])
    pieces[-1] = (pieces[-1][0], end)
    return tuple(pieces)


def _lines_problem(cut: _Cut, shown: Sequence[Shown], chooser: Chooser) -> str | None:
    starts = {span[0]: number for number, (span, _, _) in enumerate(cut.units)}
    ends = {span[1]: number for number, (span, _, _) in enumerate(cut.units)}
    words = 0.0
    for number, text in enumerate(shown, start=1):
        first, last = starts.get(text.pieces[0][0]), ends.get(text.pieces[-1][1])
        if first is None or last is None or last < first:
            return f"text {number} does not start and end on the page's line units"
        if _run_pieces(cut, first, last) != text.pieces:
            return f"text {number} is not a run of neighbouring line units of the page"
        words += sum(size for _, _, size in cut.units[first : last + 1])
    if words > chooser.evidence_words + _SLACK:
        return f"its lines hold {words:g} words, over its {chooser.evidence_words} evidence words"
    return None


def _passages_problem(cut: _Cut, shown: Sequence[Shown], chooser: Chooser) -> str | None:
    count = 0
    for number, text in enumerate(shown, start=1):
        at = first = cut.passage_at(text.pieces[0][0])
        pieces: tuple[Span, ...] = ()
        while at is not None and at < len(cut.passages) and len(pieces) < len(text.pieces):
            pieces += cut.passages[at]
            at += 1
        if first is None or at is None or pieces != text.pieces:
            return (
                f"text {number} is not whole passages of the page (of at most "
                f"{chooser.passage_words} words)"
            )
        count += at - first
    if count > chooser.top_k + 1:
        return f"it shows {count} passages, more than its top_k of {chooser.top_k} and a neighbour"
    return None


def _order_problem(size: int, shown: Sequence[Shown]) -> str | None:
    every: list[Span] = []
    for number, text in enumerate(shown, start=1):
        if not text.pieces:
            return f"text {number} has no piece"
        for (_, end), (start, _) in itertools.pairwise(text.pieces):
            if start < end:
                return f"the pieces of text {number} are not in page order"
        every += text.pieces
    if not all(0 <= start < end <= size for start, end in every):
        return "a piece lies outside the page"
    every.sort()
    if any(start < end for (_, end), (start, _) in itertools.pairwise(every)):
        return "two of its pieces overlap"
    return None


def choice_problem(markdown: str, selection: Selection) -> str | None:
    """Why ``selection`` is not a choice its chooser could have made from the page
    ``markdown`` (None when it is): see the module docstring."""
    chooser = selection.chooser
    units = chooser.units
    if not 1 <= chooser.ranking <= RANKING:
        return f"its ranking {chooser.ranking} is not one this version knows (1 to {RANKING})"
    if units not in (LINES, PASSAGES) or (units == LINES and chooser.ranking < 2):
        return f"ranking {chooser.ranking} never chose {units!r}"
    if chooser.passage_words < 1 or chooser.top_k < 1:
        return "its passage size and top_k must be at least 1"
    problem = _order_problem(len(page_text(markdown)), selection.shown)
    if problem is not None:
        return problem
    cut = _cut(markdown, chooser.passage_words)
    if units == LINES:
        return _lines_problem(cut, selection.shown, chooser)
    return _passages_problem(cut, selection.shown, chooser)
