"""The recommended route, self-contained so that it can be ported into
``pytest_citations/retrieval.py``: the judge receives the spans of the page that a small
scoring head rates best, each with the span before and after it, under a word budget, as
contiguous slices of the page.

Step by step, for one claim and one page (its passages, as ``split_passages`` made them):

0. **Fallback.** When the claim and the page are in different languages by the engine's
   own test (``languages.claim_is_english`` against ``languages.is_english``: an English
   claim on a German page, a German claim on an English page), the judge gets today's
   selection (the top 3 passages of the engine's order and the straddled neighbour, as
   ``retrieval.select`` joins them): the unit features are mostly lexical, and BM25 sees
   little of a claim across languages.
1. **Units.** Every line of every passage (a paragraph, a heading, a list item) is one unit
   when it holds at most :data:`UNIT_WORDS` words; a longer line is cut by
   ``scripts.cut`` (consecutive sentences packed up to that size, a longer sentence cut at
   clause marks, then between words), never inside a spaced word.
2. **Features** (:data:`FEATURES`, all computed from what the engine already has: BM25 over
   the page's units and over each unit read with its two neighbours, the engine's BM25 and
   dense scores of the unit's passage and their fusion, the passage's rank, the unit's
   length and place, and the page's structure: a metadata or heading line, a date line, a
   year, a figure or a name the unit shares with the claim).
3. **Score** each unit with the head: a logistic regression over the standardised features
   (``head.json``: 18 weights with the 18 means and scales they standardise by; trained by
   ``python -m benchmarks.evidence train``).
4. **Choose** units best first; each brings the unit before and after it
   (:data:`RADIUS`), or comes alone when the three do not fit, or is skipped when it does
   not fit alone, until :data:`BUDGET` words are spent. A page of at most :data:`BUDGET`
   words is sent whole.
5. **Send** each run of adjacent chosen units as one slice of the page (passages joined by a
   blank line, as ``retrieval.select`` joins neighbours), slices ordered by their best
   unit's score, best first. Every slice is a substring of ``"\\n\\n".join(passages)``, so a
   quote copied from it passes the guard.

Step 1 and the page's half of step 2 depend on the page only: :func:`prepare` does them once
per page (the engine would keep the result beside its ``PageIndex``), so a claim costs only
its own scoring. No model runs beyond the engine's own embedding of the page: the dense
score is the one ``rank_passages`` computed. Without it (``dense=None``) the route runs on
BM25 alone.
"""

from __future__ import annotations

import itertools
import json
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

import numpy as np

from pytest_citations.retrieval.bm25 import BM25, terms
from pytest_citations.retrieval.index import LEXICAL_FLOOR
from pytest_citations.retrieval.languages import claim_is_english, is_english
from pytest_citations.retrieval.ranking import fuse
from pytest_citations.retrieval.ranking import order as _order
from pytest_citations.retrieval.writing import cut, is_unspaced, units

#: Words the judge receives at most (the engine's top 3 passages send a median of 562 and a
#: mean of 535 on WiCE dev; this budget sends 560 and 534).
BUDGET = 560.0
#: A line longer than this is cut into spans of at most this many words.
UNIT_WORDS = 40.0
#: Units either side of a chosen unit that come with it.
RADIUS = 1
#: Passages of today's selection, sent when the claim and the page are in different
#: languages (step 0).
TOP_K = 3
#: BM25's highest weight in the passage fusion (the engine's default; 0.7 beside e5).
LEXICAL_CEILING = 1.0 - LEXICAL_FLOOR
HEAD_FILE = Path(__file__).with_name("head.json")
JOIN = "\n\n"

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


class Unit(NamedTuple):
    """A span of one passage: ``passages[passage][start:end]``, of ``size`` words."""

    passage: int
    start: int
    end: int
    size: float


def split_units(passages: Sequence[str], size: float = UNIT_WORDS) -> list[Unit]:
    """The page's units in page order (step 1)."""
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
    """A line as spans of at most ``size`` words: ``scripts.cut``, with every cut that falls
    inside a spaced word ("25,|000": clause marks need no space after them) moved on to the
    word's end."""
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


def _z(values: Sequence[float] | np.ndarray) -> np.ndarray:
    array = np.asarray(values, np.float64)
    spread = array.std()
    return (array - array.mean()) / spread if spread > 0 else np.zeros_like(array)


def _names(text: str) -> set[str]:
    return {m.group(0).casefold() for m in NAME.finditer(text) if m.group(0) not in _NOT_NAMES}


def _beside(values: np.ndarray) -> np.ndarray:
    """Each unit's better neighbour's value (the unit before or after it)."""
    if len(values) < 2:
        return np.zeros_like(values)
    before = np.concatenate([[-np.inf], values[:-1]])
    after = np.concatenate([values[1:], [-np.inf]])
    found: np.ndarray = np.maximum(before, after)
    return found


@dataclass(frozen=True)
class Page:
    """What the route needs of a page, whatever the claim: built once per page (beside the
    engine's ``PageIndex``), so a claim costs only its own scoring."""

    passages: tuple[str, ...]
    units: tuple[Unit, ...]
    english: bool
    #: BM25 over the units, and over each unit read with the unit before and after it.
    lexical: BM25
    windows: BM25
    #: Each unit's distinct terms, years, other figures and names; its structure flags.
    terms: tuple[frozenset[str], ...]
    years: tuple[frozenset[str], ...]
    numbers: tuple[frozenset[str], ...]
    names: tuple[frozenset[str], ...]
    #: Per unit: metadata or heading line, date line, log words, place, first passage.
    fixed: np.ndarray
    #: Lucene idf of each term over the units (as BM25 weighs it).
    idf: dict[str, float]


def prepare(
    passages: Sequence[str], size: float = UNIT_WORDS, units_given: Sequence[Unit] | None = None
) -> Page:
    """Split a page into units (or take ``units_given``) and index them (step 1 and the
    page's half of step 2)."""
    found = list(units_given) if units_given is not None else split_units(passages, size)
    texts = [passages[u.passage][u.start : u.end] for u in found]
    count = len(texts)
    unit_terms = tuple(frozenset(terms(text)) for text in texts)
    frequency: dict[str, int] = {}
    for held in unit_terms:
        for term in held:
            frequency[term] = frequency.get(term, 0) + 1
    years = tuple(frozenset(YEAR.findall(t)) for t in texts)
    owner = np.array([u.passage for u in found])
    fixed = (
        np.stack(
            [
                np.array([bool(META.search(t)) for t in texts], np.float64),
                np.array([bool(DATE_LINE.search(t)) for t in texts], np.float64),
                np.log1p([u.size for u in found]),
                np.arange(count) / max(count - 1, 1),
                (owner == 0).astype(np.float64),
            ],
            axis=1,
        )
        if count
        else np.zeros((0, 5))
    )
    return Page(
        passages=tuple(passages),
        units=tuple(found),
        english=is_english(passages),
        lexical=BM25(texts),
        windows=BM25([" ".join(texts[max(0, u - 1) : u + 2]) for u in range(count)]),
        terms=unit_terms,
        years=years,
        numbers=tuple(frozenset(NUMBER.findall(t)) for t in texts),
        names=tuple(frozenset(_names(t)) for t in texts),
        fixed=fixed,
        idf={t: math.log(1 + (count - n + 0.5) / (n + 0.5)) for t, n in frequency.items()},
    )


def _term_share(claim: str, page: Page) -> np.ndarray:
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
    page: Page,
    lexical: Sequence[float],
    dense: Sequence[float],
    coverage: float,
    order: Sequence[int],
    ceiling: float = LEXICAL_CEILING,
) -> np.ndarray:
    """The :data:`FEATURES` of every unit (rows), from the engine's passage scores
    (``lexical``: BM25; ``dense``: best-window cosine; their fusion as ``rank_passages``
    makes it) and the page's units (the claim's half of step 2)."""
    count = len(page.units)
    owner = np.array([u.passage for u in page.units])
    fused = np.array(fuse(lexical, dense, coverage, ceiling))
    rank = np.empty(len(order))
    rank[list(order)] = np.arange(len(order))
    raw = np.array(page.lexical.scores(claim))
    bm25 = _z(raw)
    years = set(YEAR.findall(claim))
    numbers = set(NUMBER.findall(claim)) - years
    names = _names(claim)
    unit_order = np.empty(count)
    unit_order[np.argsort(-raw, kind="stable")] = np.arange(count)
    meta, date_line, log_words, position, first_passage = page.fixed.T
    columns = {
        "unit_bm25": bm25,
        "unit_bm25_raw": np.log1p(raw),
        "passage_fused": fused[owner],
        "passage_rank": 1.0 / (1.0 + rank[owner]),
        "passage_bm25": _z(lexical)[owner],
        "passage_dense": _z(dense)[owner],
        "neighbour_bm25": _beside(bm25),
        "meta": meta,
        "date_line": date_line,
        "shares_year": [bool(years & held) for held in page.years],
        "shares_number": [bool(numbers & held) for held in page.numbers],
        "shares_name": [len(names & held) / max(len(names), 1) for held in page.names],
        "log_words": log_words,
        "position": position,
        "first_passage": first_passage,
        "window_bm25": _z(page.windows.scores(claim)),
        "term_share": _term_share(claim, page),
        "unit_rank": 1.0 / (1.0 + unit_order),
    }
    return np.stack([np.asarray(columns[name], np.float64) for name in FEATURES], axis=1)


@dataclass(frozen=True)
class Head:
    """A linear scoring head over standardised features (step 3)."""

    features: tuple[str, ...]
    mean: np.ndarray
    scale: np.ndarray
    weights: np.ndarray

    @classmethod
    def load(cls, path: Path = HEAD_FILE) -> Head:
        data = json.loads(path.read_text(encoding="utf-8"))
        return cls(
            tuple(data["features"]),
            np.array(data["mean"]),
            np.array(data["scale"]),
            np.array(data["weights"]),
        )

    def score(self, x: np.ndarray) -> np.ndarray:
        if self.features != FEATURES:
            raise ValueError("the head was trained on other features")
        scores: np.ndarray = ((x - self.mean) / self.scale) @ self.weights
        return scores


def choose(found: Sequence[Unit], scores: np.ndarray, budget: float, radius: int) -> list[int]:
    """Units best first with ``radius`` neighbours either side, while they fit (step 4)."""
    chosen: set[int] = set()
    used = 0.0
    for best in _order(list(scores)):
        if used >= budget:
            break
        for reach in (radius, 0):
            add = {u for u in range(best - reach, best + reach + 1) if 0 <= u < len(found)}
            add -= chosen
            cost = sum(found[u].size for u in add)
            if used + cost <= budget:
                chosen |= add
                used += cost
                break
    return sorted(chosen)


def slices(
    passages: Sequence[str], found: Sequence[Unit], chosen: Sequence[int], scores: np.ndarray
) -> list[tuple[int, int]]:
    """Runs of adjacent chosen units as ``(start, end)`` offsets into the page,
    ``"\n\n".join(passages)``, best run first (step 5)."""
    starts = list(itertools.accumulate((len(p) + len(JOIN) for p in passages), initial=0))
    runs: list[list[int]] = []
    for unit in sorted(chosen):
        if runs and runs[-1][-1] == unit - 1:
            runs[-1].append(unit)
        else:
            runs.append([unit])
    runs.sort(key=lambda run: (-max(scores[u] for u in run), run[0]))
    return [
        (
            starts[found[run[0]].passage] + found[run[0]].start,
            starts[found[run[-1]].passage] + found[run[-1]].end,
        )
        for run in runs
    ]


def select_evidence(
    claim: str,
    passages: Sequence[str] | Page,
    lexical: Sequence[float] | None = None,
    dense: Sequence[float] | None = None,
    coverage: float | None = None,
    order: Sequence[int] | None = None,
    budget: float = BUDGET,
    radius: int = RADIUS,
    head: Head | None = None,
    ceiling: float = LEXICAL_CEILING,
    neighbour: int | None = None,
) -> list[str]:
    """The texts the judge receives for ``claim`` on a page of ``passages``: exact slices of
    ``"\n\n".join(passages)``, adjacent units merged, best first. ``lexical``, ``dense``,
    ``coverage`` and ``order`` are the engine's (``index.lexical.scores(claim)``,
    ``dense_scores(vector, index)``, ``index.lexical.coverage(claim)``,
    ``rank_passages(...)``; ``ceiling`` the index's); missing ones are computed from BM25
    alone."""
    text = JOIN.join(passages.passages if isinstance(passages, Page) else passages)
    spans = evidence_spans(
        claim,
        passages,
        lexical,
        dense,
        coverage,
        order,
        budget,
        radius,
        head,
        ceiling,
        neighbour,
    )
    return [text[start:end] for start, end in spans]


def evidence_spans(
    claim: str,
    passages: Sequence[str] | Page,
    lexical: Sequence[float] | None = None,
    dense: Sequence[float] | None = None,
    coverage: float | None = None,
    order: Sequence[int] | None = None,
    budget: float = BUDGET,
    radius: int = RADIUS,
    head: Head | None = None,
    ceiling: float = LEXICAL_CEILING,
    neighbour: int | None = None,
) -> list[tuple[int, int]]:
    """Where :func:`select_evidence`'s texts lie in ``"\n\n".join(passages)``. ``passages``
    may be the page already prepared (:func:`prepare`, once per page)."""
    page = passages if isinstance(passages, Page) else prepare(passages)
    texts = page.passages
    if not texts:
        return []
    if lexical is None or coverage is None:
        index = BM25(texts)
        lexical, coverage = index.scores(claim), index.coverage(claim)
    if dense is None:
        dense = [0.0] * len(texts)
    if order is None:
        order = _order(fuse(lexical, dense, coverage, ceiling))
    if claim_is_english(claim) != page.english:  # step 0
        return passage_spans(texts, order, neighbour)
    if not page.units:
        return []
    x = unit_features(claim, page, lexical, dense, coverage, order, ceiling)
    scores = (head or _default_head()).score(x)
    return slices(texts, page.units, choose(page.units, scores, budget, radius), scores)


def passage_spans(
    passages: Sequence[str], order: Sequence[int], neighbour: int | None, k: int = TOP_K
) -> list[tuple[int, int]]:
    """Today's selection (``retrieval.select``: the top ``k`` passages and the straddled
    neighbour, adjacent ones joined) as spans of the page."""
    starts = list(itertools.accumulate((len(p) + len(JOIN) for p in passages), initial=0))
    chosen = list(order[:k])
    if neighbour is not None and neighbour not in chosen and chosen:
        chosen.insert(1, neighbour)
    runs: list[list[int]] = []
    for passage in sorted(chosen):
        if runs and runs[-1][-1] == passage - 1:
            runs[-1].append(passage)
        else:
            runs.append([passage])
    runs.sort(key=lambda run: min(chosen.index(p) for p in run))
    return [(starts[run[0]], starts[run[-1]] + len(passages[run[-1]])) for run in runs]


_HEAD: list[Head] = []


def _default_head() -> Head:
    if not _HEAD:
        _HEAD.append(Head.load())
    return _HEAD[0]
