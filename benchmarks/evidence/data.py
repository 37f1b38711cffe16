"""WiCE dev as the engine sees it: each claim's page as passages, the page as units (lines
of at most 40 words, as the route cuts them, or sentences), and the dev set's own notion of
*inside* extended from passages to any slices of the page.

The dev set's scorer (``score_retrieval.py``, :class:`Page`) says a gold sentence is inside
the chosen passages when every one of its words is in them, by word offsets. Here a choice is
any set of word ranges of the page (passages, sentences, slices), and a gold sentence is
inside when its word range is covered by their union: for passages this is exactly the
scorer's test (:func:`check_against_scorer` verifies it claim by claim).
"""

from __future__ import annotations

import bisect
import gzip
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

from benchmarks import load_script
from benchmarks.evidence import route
from pytest_citations.retrieval.writing import sentence_spans, units

WICE_DIR = Path(__file__).resolve().parents[3] / "shared" / "data" / "wice-dev"
if not WICE_DIR.exists():  # a worktree beside the main checkout
    WICE_DIR = Path("/work/shared/data/wice-dev")
XQUAD_DIR = WICE_DIR.parent / "xquad-dev"
LONG_PAGE = 5
#: A unit longer than this (a run-on line: menus, tables) is cut at clauses, then words.
UNIT_WORDS = 40.0
#: Passages are joined like this in what the judge receives (``retrieval.select``).
JOIN = "\n\n"

Span = tuple[int, int]


def load_scorer(folder: Path = WICE_DIR) -> ModuleType:
    """The dev set's ``score_retrieval.py``."""
    return load_script(folder / "score_retrieval.py")


@dataclass
class Layout:
    """A page as the engine's passages, joined as the judge would read them all
    (``text``), with every passage and every unit as a character span and a word span of
    it. Units follow ``mode`` (below); every cut falls between words."""

    passages: list[str]
    #: ``"sentences"``: every sentence of a line is a unit (cut when over ``unit_size``);
    #: ``"spans"``: consecutive sentences of a line packed into units of at most
    #: ``unit_size`` words (a short line is one unit).
    mode: str = "spans"
    unit_size: float = UNIT_WORDS
    text: str = ""
    passage_chars: list[Span] = field(default_factory=list)
    passage_words: list[Span] = field(default_factory=list)
    unit_chars: list[Span] = field(default_factory=list)
    unit_words: list[Span] = field(default_factory=list)
    unit_passage: list[int] = field(default_factory=list)
    #: Index of the unit's line (paragraph) on the page: units of one line read as one.
    unit_line: list[int] = field(default_factory=list)
    unit_sizes: list[float] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.text = JOIN.join(self.passages)
        starts = []
        position = 0
        for passage in self.passages:
            starts.append(position)
            self.passage_chars.append((position, position + len(passage)))
            position += len(passage) + len(JOIN)
        self._word_starts: list[int] = []  # character offset of each word of ``text``
        inside = False
        for offset, character in enumerate(self.text):
            if character.isspace():
                inside = False
            elif not inside:
                inside = True
                self._word_starts.append(offset)
        self.passage_words = [self.words_of(span) for span in self.passage_chars]
        line = -1
        for number, (start, _) in enumerate(self.passage_chars):
            passage = self.passages[number]
            offset = 0
            for piece in passage.split("\n"):
                if piece.strip():
                    line += 1
                for a, b in _unit_spans(piece, self.mode, self.unit_size):
                    span = (start + offset + a, start + offset + b)
                    if self.text[span[0] : span[1]].strip():
                        self.unit_chars.append(_stripped(self.text, span))
                        self.unit_passage.append(number)
                        self.unit_line.append(line)
                offset += len(piece) + 1
        self.unit_words = [self.words_of(span) for span in self.unit_chars]
        #: Script-aware size of each unit (whitespace words in spaced scripts).
        self.unit_sizes = [units(self.text[a:b]) for a, b in self.unit_chars]

    def words_of(self, span: Span) -> Span:
        """The word range (first word, one past the last) a character span holds whole or
        in part."""
        first = bisect.bisect_left(self._word_starts, span[0])
        # a word starting before span[0] but running into it counts too
        if first > 0 and self._word_end(first - 1) > span[0]:
            first -= 1
        last = bisect.bisect_left(self._word_starts, span[1])
        return first, last

    def _word_end(self, word: int) -> int:
        start = self._word_starts[word]
        end = start
        while end < len(self.text) and not self.text[end].isspace():
            end += 1
        return end

    def unit_text(self, unit: int) -> str:
        start, end = self.unit_chars[unit]
        return self.text[start:end]

    def slices(self, units_chosen: Iterable[int], order: Sequence[int] | None = None) -> list[str]:
        """The chosen units as the judge receives them: units next to each other on the page
        (no unit between them) merged into one slice of ``text``; slices in the order of
        their best unit in ``order`` (default: page order)."""
        chosen = sorted(set(units_chosen))
        runs: list[list[int]] = []
        for unit in chosen:
            if runs and runs[-1][-1] == unit - 1:
                runs[-1].append(unit)
            else:
                runs.append([unit])
        if order is not None:
            rank = {unit: position for position, unit in enumerate(order)}
            runs.sort(key=lambda run: min(rank.get(u, len(rank)) for u in run))
        return [self.text[self.unit_chars[run[0]][0] : self.unit_chars[run[-1]][1]] for run in runs]


def _unit_spans(line: str, mode: str, size: float) -> list[Span]:
    if mode == "spans":  # the route's own units
        return route.line_spans(line, size)
    spans: list[Span] = []
    for start, end in sentence_spans(line):
        piece = line[start:end]
        if units(piece) <= size:
            spans.append((start, end))
        else:
            spans.extend((start + a, start + b) for a, b in route.line_spans(piece, size))
    return spans


def _stripped(text: str, span: Span) -> Span:
    start, end = span
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def covered(ranges: Iterable[Span]) -> list[Span]:
    """Word ranges merged into disjoint sorted ranges."""
    merged: list[list[int]] = []
    for start, end in sorted(ranges):
        if start >= end:
            continue
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    return [(a, b) for a, b in merged]


def inside(gold: Span, ranges: list[Span]) -> bool:
    """All words of ``gold`` lie in the (merged) ranges; an empty sentence never does."""
    start, end = gold
    if start >= end:
        return False
    index = bisect.bisect_right(ranges, (start, float("inf"))) - 1
    return index >= 0 and ranges[index][0] <= start and end <= ranges[index][1]


@dataclass
class Claim:
    """One scored WiCE claim: its text, its page, its gold sets as word ranges."""

    id: str
    claim: str
    layout: Layout
    #: Alternative gold sets, each a list of word ranges (one per gold sentence).
    gold: list[list[Span]]
    row: dict[str, Any]
    #: The dev set's page layout (``score_retrieval.LAYOUTS``).
    page_layout: str = "sentence_paragraphs"

    @property
    def long(self) -> bool:
        return len(self.layout.passages) > LONG_PAGE

    def hits(self, ranges: Iterable[Span]) -> tuple[bool, bool]:
        """(a whole gold set is inside, some gold sentence is inside)."""
        merged = covered(ranges)
        whole = any(all(inside(s, merged) for s in group) for group in self.gold)
        some = any(inside(s, merged) for group in self.gold for s in group)
        return whole, some


def load_claims(
    scorer: ModuleType | None = None,
    limit: int = 0,
    mode: str = "spans",
    unit_words: float = UNIT_WORDS,
    layout: str = "sentence_paragraphs",
) -> list[Claim]:
    """The 306 scored claims (supported or partially supported, with a gold set)."""
    scorer = scorer or load_scorer()
    with gzip.open(WICE_DIR / "wice_dev.jsonl.gz", "rt", encoding="utf-8") as handle:
        rows = [json.loads(line) for line in handle]
    rows = [row for row in rows if row["kind"] == "claim"]
    if limit:
        rows = rows[:limit]
    found = []
    for row in rows:
        if row["label"] == "not_supported" or not scorer.gold_sets(row):
            continue
        page = scorer.Page(row["evidence"], layout, 200)
        units_of = Layout(list(page.passages), mode, unit_words)
        spans, position = [], 0
        for sentence in row["evidence"]:
            count = len(sentence.split())
            spans.append((position, position + count))
            position += count
        if position != len(units_of.text.split()):
            raise AssertionError(f"{row['id']}: the passages changed the page's words")
        gold = [[spans[i] for i in group] for group in scorer.gold_sets(row)]
        found.append(Claim(row["id"], row["claim"], units_of, gold, row, layout))
    return found


def check_against_scorer(claims: Sequence[Claim], scorer: ModuleType, k: int = 3) -> int:
    """Claims where the extended test disagrees with the scorer's ``Page.hits`` on the first
    ``k`` passages in page order and in a scattered order (0 when it reproduces it)."""
    wrong = 0
    for claim in claims:
        page = scorer.Page(claim.row["evidence"], claim.page_layout, 200)
        n = len(page.passages)
        for chosen in (list(range(min(k, n))), list(range(0, n, 2))[:k], list(range(n))[-k:]):
            expected = page.hits(scorer.gold_sets(claim.row), chosen)
            ranges = [claim.layout.passage_words[p] for p in chosen]
            wrong += claim.hits(ranges) != expected
    return wrong


def words(texts: Sequence[str]) -> int:
    """Words the judge receives (``str.split``, as R1 counts them)."""
    return sum(len(text.split()) for text in texts)
