"""A page's lines as the judge may be shown them, from its text alone (no model): each
line of each passage cut into *units* of at most :data:`UNIT_WORDS` units
(:func:`~pytest_citations.retrieval.writing.units`, words in spaced scripts; a longer line is
cut by :func:`~pytest_citations.retrieval.writing.cut`, never inside a spaced word), each
unit's line, and where a character of a line as the judge reads it stands in the page text.

Retrieval scores these units (:mod:`.evidence`) and chooses them under
:data:`EVIDENCE_WORDS` (:mod:`.choosing`); a replay checks a recorded choice of lines
against them (:mod:`.validity`) without loading either.
"""

from __future__ import annotations

import bisect
import itertools
import re
from collections.abc import Sequence
from typing import NamedTuple

from .passages import Span
from .writing import cut, is_unspaced, units

#: Words (units, in scripts written without spaces) the judge is shown at most per citation
#: (``--citations-evidence-words``): the word budget the lines are chosen under. On WiCE dev
#: the engine's top 3 passages send a median of 562 and a mean of 535 words; this budget sends
#: 560 and 534.
EVIDENCE_WORDS = 560
#: A line longer than this (in units) is cut into spans of at most this many.
UNIT_WORDS = 40.0
#: The fewest evidence words other than 0: a few units of :data:`UNIT_WORDS` words, so that
#: a chosen line always comes with some of its context.
MIN_EVIDENCE_WORDS = 100

_WORD = re.compile(r"\S+")


class Unit(NamedTuple):
    """A span of one passage: ``passages[passage][start:end]``, of ``size`` units."""

    passage: int
    start: int
    end: int
    size: float


def split_units(passages: Sequence[str], size: float = UNIT_WORDS) -> list[Unit]:
    """The page's units in page order: each line of each passage, cut where it is longer
    than ``size``, each unit stripped of the whitespace around it."""
    found: list[Unit] = []
    for number, passage in enumerate(passages):
        offset = 0
        for line in passage.split("\n"):
            for a, b in line_spans(line, size):
                start, end = offset + a, offset + b
                while start < end and passage[start].isspace():
                    start += 1
                while end > start and passage[end - 1].isspace():
                    end -= 1
                if end > start:
                    found.append(Unit(number, start, end, units(passage[start:end])))
            offset += len(line) + 1
    return found


def line_spans(line: str, size: float) -> list[tuple[int, int]]:
    """A line as spans of at most ``size`` units: :func:`~.writing.cut`, with every cut that
    falls inside a spaced word ("25,|000": clause marks need no space after them) moved on
    to the word's end."""
    if units(line) <= size:
        return [(0, len(line))]
    cuts = [0]
    for _, end in cut(line, size)[:-1]:
        while (
            0 < end < len(line)
            and not line[end - 1].isspace()
            and not line[end].isspace()
            and not (is_unspaced(line[end - 1]) or is_unspaced(line[end]))
        ):
            end += 1
        if end > cuts[-1]:
            cuts.append(end)
    if cuts[-1] < len(line):
        cuts.append(len(line))
    return [(a, b) for a, b in itertools.pairwise(cuts) if b > a]


def lines_of(passages: Sequence[str], found: Sequence[Unit]) -> tuple[list[int], list[int]]:
    """Each unit's line on the page and that line's start in its passage."""
    starts: list[list[int]] = []
    for passage in passages:
        held: list[int] = []
        offset = 0
        for line in passage.split("\n"):
            if line.strip():
                held.append(offset)
            offset += len(line) + 1
        starts.append(held)
    first = list(itertools.accumulate((len(s) for s in starts), initial=0))
    lines: list[int] = []
    line_starts: list[int] = []
    for unit in found:
        place = bisect.bisect_right(starts[unit.passage], unit.start) - 1
        lines.append(first[unit.passage] + place)
        line_starts.append(starts[unit.passage][place])
    return lines, line_starts


def page_offset(text: str, piece: Span, offset: int) -> int:
    """Where the character at ``offset`` of a piece's text as ``text_of`` writes it (words
    joined by one space) stands in the page text; ``offset`` falls inside a word."""
    seen = 0
    for match in _WORD.finditer(text, piece[0], piece[1]):
        size = match.end() - match.start()
        if offset < seen + size:
            return match.start() + offset - seen
        seen += size + 1  # and the one space text_of writes after it
    raise ValueError("the offset lies outside the piece's words")
