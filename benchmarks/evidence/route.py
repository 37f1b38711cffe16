"""The recommended route, as the research commands call it: the engine's own code
(``pytest_citations/retrieval/evidence.py`` for the units and their features,
``head.py`` for the scoring head and its weights, ``choosing.py`` for the choice under the
word budget), with the research's entry points over it.

Step by step, for one claim and one page (its passages, as ``split_passages`` made them):

0. **Fallback.** When the claim and the page are in different languages by the engine's
   own test (``languages.claim_is_english`` against ``languages.is_english``), the judge gets
   today's selection (the top 3 passages of the engine's order and the straddled
   neighbour, as ``retrieval.select`` joins them): the unit features are mostly lexical.
1. **Units**: every line of every passage, cut when longer than :data:`UNIT_WORDS`.
2. **Features** (:data:`FEATURES`), all from what the engine already has.
3. **Score** each unit with the head (``head.json``, trained by
   ``python -m benchmarks.evidence train``).
4. **Choose** units best first, each with the unit before and after it, until
   :data:`BUDGET` words are spent.
5. **Send** each run of adjacent chosen units as one slice of ``"\\n\\n".join(passages)``,
   best first.

:func:`prepare` does step 1 and the page's half of step 2 once per page. Without the dense
score (``dense=None``) the route runs on BM25 alone.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from pathlib import Path

from pytest_citations.retrieval import choosing
from pytest_citations.retrieval.bm25 import BM25
from pytest_citations.retrieval.choosing import JOIN, RADIUS, evidence_runs, run_span
from pytest_citations.retrieval.choosing import choose_units as choose
from pytest_citations.retrieval.evidence import (
    DATE_LINE,
    FEATURES,
    META,
    NAME,
    NUMBER,
    YEAR,
    prepare,
    unit_features,
)
from pytest_citations.retrieval.evidence import PageLines as Page
from pytest_citations.retrieval.evidence import beside as _beside
from pytest_citations.retrieval.evidence import names_in as _names
from pytest_citations.retrieval.evidence import standardised as _z
from pytest_citations.retrieval.head import Head
from pytest_citations.retrieval.index import LEXICAL_FLOOR
from pytest_citations.retrieval.languages import claim_is_english
from pytest_citations.retrieval.lines import EVIDENCE_WORDS as BUDGET
from pytest_citations.retrieval.lines import UNIT_WORDS, Unit, line_spans, split_units
from pytest_citations.retrieval.ranking import fuse, select_runs
from pytest_citations.retrieval.ranking import order as _order

#: Passages of today's selection, sent when the claim and the page are in different
#: languages (step 0).
TOP_K = 3
#: BM25's highest weight in the passage fusion (the engine's default; 0.7 beside e5).
LEXICAL_CEILING = 1.0 - LEXICAL_FLOOR
#: The head the package ships (``train`` writes it there).
HEAD_FILE = Path(choosing.__file__).with_name("head.json")

__all__ = [
    "BUDGET",
    "DATE_LINE",
    "FEATURES",
    "HEAD_FILE",
    "JOIN",
    "META",
    "NAME",
    "NUMBER",
    "RADIUS",
    "UNIT_WORDS",
    "YEAR",
    "Head",
    "Page",
    "Unit",
    "_beside",
    "_names",
    "_z",
    "choose",
    "evidence_spans",
    "line_spans",
    "passage_spans",
    "prepare",
    "select_evidence",
    "split_units",
    "unit_features",
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
    """The texts the judge receives for ``claim``: exact slices of
    ``"\\n\\n".join(passages)``, adjacent units merged, best first (see
    :func:`evidence_spans` for the arguments)."""
    text = JOIN.join(passages.passages if isinstance(passages, Page) else passages)
    spans = evidence_spans(
        claim, passages, lexical, dense, coverage, order, budget, radius, head, ceiling, neighbour
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
    """Where :func:`select_evidence`'s texts lie in ``"\\n\\n".join(passages)``.
    ``lexical``, ``dense``, ``coverage`` and ``order`` are the engine's
    (``index.lexical.scores(claim)``, ``dense_scores(vector, index)``,
    ``index.lexical.coverage(claim)``, ``rank_passages(...)``; ``ceiling`` the index's);
    missing ones are computed from BM25 alone. ``passages`` may be the page already
    prepared (:func:`prepare`, once per page)."""
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
    runs, _ = evidence_runs(
        claim,
        page,
        lexical,
        dense,
        coverage,
        order,
        budget=budget,
        radius=radius,
        ceiling=ceiling,
        head=head,
    )
    return [run_span(page, run) for run in runs]


def passage_spans(
    passages: Sequence[str], order: Sequence[int], neighbour: int | None, k: int = TOP_K
) -> list[tuple[int, int]]:
    """Today's selection (``retrieval.select``: the top ``k`` passages and the straddled
    neighbour, adjacent ones joined) as spans of the page."""
    starts = list(itertools.accumulate((len(p) + len(JOIN) for p in passages), initial=0))
    runs = select_runs(order, k, neighbour)
    return [(starts[run[0]], starts[run[-1]] + len(passages[run[-1]])) for run in runs]
