"""What the scoring head reads of each line the judge may be shown.

A *unit* is a line of a passage (a paragraph, a heading, a list item: passages join their
paragraphs with a blank line) of at most :data:`~.lines.UNIT_WORDS` units, cut as
:mod:`.lines` says (consecutive sentences packed up to that size, a longer sentence cut at
clause marks, then between words), never inside a spaced word.

What depends on the page alone is worked out once per page (:func:`prepare`): the units,
BM25 over them and over each unit read with its two neighbours, each unit's terms, years,
figures and names, its structure (a metadata or heading line, a date line), length and
place. A claim then costs only its own half (:func:`unit_features`): the :data:`FEATURES`
of every unit, from the page's units and the engine's own passage scores (BM25, the dense
score, their fusion and the order), with no model work of its own.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from .bm25 import BM25, terms
from .index import LEXICAL_FLOOR
from .languages import is_english
from .lines import UNIT_WORDS, Unit, lines_of, split_units
from .ranking import fuse

YEAR = re.compile(r"\b(1[5-9]\d\d|20\d\d)\b")
NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
NAME = re.compile(r"\b[A-Z][\w'’-]+")
META = re.compile(r"^\(meta data\)|^#{1,6}\s")
_MONTHS = (
    "january february march april may june july august september october november december "
    "jan feb mar apr jun jul aug sep sept oct nov dec"
).split()
DATE_LINE = re.compile(
    r"\b(" + "|".join(_MONTHS) + r")\.?\s+\d{1,2}\b|\b\d{1,2}\s+(" + "|".join(_MONTHS) + r")\b",
    re.IGNORECASE,
)
#: Capitalised words that start sentences rather than name things.
_NOT_NAMES = frozenset(
    "The A An In On At It He She They This That These Those His Her Its Their We I And But Or "
    "For From With By As Of To After Before When While Since During".split()
)

#: What the head reads of each unit, in the order of its weights.
FEATURES = (
    "unit_bm25",
    "unit_bm25_raw",
    "passage_fused",
    "passage_rank",
    "passage_bm25",
    "passage_dense",
    "neighbour_bm25",
    "meta",
    "date_line",
    "shares_year",
    "shares_number",
    "shares_name",
    "log_words",
    "position",
    "first_passage",
    "window_bm25",
    "term_share",
    "unit_rank",
)


def standardised(values: Sequence[float] | np.ndarray) -> np.ndarray:
    """Values shifted and scaled to mean 0 and deviation 1 over the page (0 when equal)."""
    array = np.asarray(values, np.float64)
    spread = array.std()
    return (array - array.mean()) / spread if spread > 0 else np.zeros_like(array)


def names_in(text: str) -> set[str]:
    """The capitalised words of ``text`` that name things (case-folded)."""
    return {m.group(0).casefold() for m in NAME.finditer(text) if m.group(0) not in _NOT_NAMES}


def beside(values: np.ndarray) -> np.ndarray:
    """Each unit's better neighbour's value (the unit before or after it)."""
    if len(values) < 2:
        return np.zeros_like(values)
    before = np.concatenate([[-np.inf], values[:-1]])
    after = np.concatenate([values[1:], [-np.inf]])
    found: np.ndarray = np.maximum(before, after)
    return found


@dataclass(frozen=True)
class PageLines:
    """What the head needs of a page, whatever the claim: built once per page."""

    passages: tuple[str, ...]
    units: tuple[Unit, ...]
    english: bool
    #: BM25 over the units, and over each unit read with the unit before and after it.
    lexical: BM25
    windows: BM25
    #: Each unit's distinct terms, years, other figures and names.
    terms: tuple[frozenset[str], ...]
    years: tuple[frozenset[str], ...]
    numbers: tuple[frozenset[str], ...]
    names: tuple[frozenset[str], ...]
    #: Per unit: metadata or heading line, date line, log units, place, first passage.
    fixed: np.ndarray
    #: Lucene idf of each term over the units (as BM25 weighs it).
    idf: dict[str, float]
    #: Per unit: the number of its line on the page (lines of all passages in page order,
    #: blank ones not counted), and where that line starts in its passage.
    lines: tuple[int, ...] = ()
    line_starts: tuple[int, ...] = ()

    def text(self, unit: int) -> str:
        """A unit's text."""
        found = self.units[unit]
        return self.passages[found.passage][found.start : found.end]


def _fixed(texts: Sequence[str], found: Sequence[Unit]) -> np.ndarray:
    """The claim-free columns: metadata or heading line, date line, log units, place,
    first passage."""
    if not found:
        return np.zeros((0, 5))
    owner = np.array([u.passage for u in found])
    return np.stack(
        [
            np.array([bool(META.search(t)) for t in texts], np.float64),
            np.array([bool(DATE_LINE.search(t)) for t in texts], np.float64),
            np.log1p([u.size for u in found]),
            np.arange(len(found)) / max(len(found) - 1, 1),
            (owner == 0).astype(np.float64),
        ],
        axis=1,
    )


def prepare(
    passages: Sequence[str], size: float = UNIT_WORDS, units_given: Sequence[Unit] | None = None
) -> PageLines:
    """Split a page into units (or take ``units_given``) and index them: everything of the
    features that does not depend on the claim."""
    found = list(units_given) if units_given is not None else split_units(passages, size)
    texts = [passages[u.passage][u.start : u.end] for u in found]
    count = len(texts)
    unit_terms = tuple(frozenset(terms(text)) for text in texts)
    frequency: dict[str, int] = {}
    for held in unit_terms:
        for term in held:
            frequency[term] = frequency.get(term, 0) + 1
    lines, line_starts = lines_of(passages, found)
    return PageLines(
        passages=tuple(passages),
        units=tuple(found),
        english=is_english(passages),
        lexical=BM25(texts),
        windows=BM25([" ".join(texts[max(0, u - 1) : u + 2]) for u in range(count)]),
        terms=unit_terms,
        years=tuple(frozenset(YEAR.findall(t)) for t in texts),
        numbers=tuple(frozenset(NUMBER.findall(t)) for t in texts),
        names=tuple(frozenset(names_in(t)) for t in texts),
        fixed=_fixed(texts, found),
        idf={t: math.log(1 + (count - n + 0.5) / (n + 0.5)) for t, n in frequency.items()},
        lines=tuple(lines),
        line_starts=tuple(line_starts),
    )


def _term_share(claim: str, page: PageLines) -> np.ndarray:
    """The idf-weighted share of the claim's distinct terms each unit holds."""
    wanted = set(terms(claim))
    if not wanted:
        return np.zeros(len(page.units))
    absent = math.log(1 + (len(page.units) + 0.5) / 0.5)  # a term on no unit
    idf = {term: page.idf.get(term, absent) for term in wanted}
    total = sum(idf.values()) or 1.0
    return np.array([sum(idf[t] for t in wanted & held) / total for held in page.terms])


def unit_features(
    claim: str,
    page: PageLines,
    lexical: Sequence[float],
    dense: Sequence[float],
    coverage: float,
    order: Sequence[int],
    ceiling: float = 1.0 - LEXICAL_FLOOR,
) -> np.ndarray:
    """The :data:`FEATURES` of every unit (rows), from the engine's passage scores
    (``lexical``: BM25; ``dense``: best-window cosine; ``coverage`` and ``ceiling`` as
    :func:`~.ranking.fuse` reads them; ``order``: the passages best first) and the page's
    units."""
    count = len(page.units)
    owner = np.array([u.passage for u in page.units])
    fused = np.array(fuse(lexical, dense, coverage, ceiling))
    rank = np.empty(len(order))
    rank[list(order)] = np.arange(len(order))
    raw = np.array(page.lexical.scores(claim))
    bm25 = standardised(raw)
    years = set(YEAR.findall(claim))
    numbers = set(NUMBER.findall(claim)) - years
    names = names_in(claim)
    unit_order = np.empty(count)
    unit_order[np.argsort(-raw, kind="stable")] = np.arange(count)
    meta, date_line, log_words, position, first_passage = page.fixed.T
    columns = {
        "unit_bm25": bm25,
        "unit_bm25_raw": np.log1p(raw),
        "passage_fused": fused[owner],
        "passage_rank": 1.0 / (1.0 + rank[owner]),
        "passage_bm25": standardised(lexical)[owner],
        "passage_dense": standardised(dense)[owner],
        "neighbour_bm25": beside(bm25),
        "meta": meta,
        "date_line": date_line,
        "shares_year": [bool(years & held) for held in page.years],
        "shares_number": [bool(numbers & held) for held in page.numbers],
        "shares_name": [len(names & held) / max(len(names), 1) for held in page.names],
        "log_words": log_words,
        "position": position,
        "first_passage": first_passage,
        "window_bm25": standardised(page.windows.scores(claim)),
        "term_share": _term_share(claim, page),
        "unit_rank": 1.0 / (1.0 + unit_order),
    }
    return np.stack([np.asarray(columns[name], np.float64) for name in FEATURES], axis=1)
