"""The lines the judge is shown, chosen under a word budget, as pieces of the page.

For one claim against one page (its units and their features, :mod:`.evidence`):

1. **Score** every unit with the head (:mod:`.head`).
2. **Choose** units best first (:func:`~.ranking.order`: scores within its tolerance are a
   tie, which goes to the earlier unit); each brings the unit before and after it
   (:data:`RADIUS`) when the ones not yet chosen among the three fit in what is left of the
   budget, else comes alone if it fits, else is skipped, until the budget is spent. A page
   that fits the budget is therefore shown whole.
3. **Show** each run of adjacent chosen units as one text, the slice of the page's passages
   (joined by a blank line, as neighbouring passages are joined) from its first unit's
   start to its last unit's end; runs best first, by their best unit.

A recording keeps each text as its pieces of the page text (:func:`run_pieces`), so that a
replay rebuilds it with :func:`~.passages.text_of` and no model: a run inside one paragraph is
one piece (a sub-span of the paragraph, cut between words), a run across paragraphs one
piece per paragraph, which ``text_of`` joins by a blank line. So every text is exactly a
slice of ``"\\n\\n".join(passages)``, and a quote copied from it passes the guard.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import numpy as np

from .evidence import PageLines, unit_features
from .head import Head, shipped_head
from .index import LEXICAL_FLOOR
from .lines import EVIDENCE_WORDS, Unit, page_offset
from .passages import Span
from .ranking import order

#: Units either side of a chosen unit that come with it.
RADIUS = 1
#: What passages are joined by on the page, as neighbouring passages are for the judge.
JOIN = "\n\n"


def choose_units(
    found: Sequence[Unit], scores: np.ndarray, budget: float, radius: int = RADIUS
) -> list[int]:
    """Units best first with ``radius`` neighbours either side, while they fit (step 2), in
    page order."""
    chosen: set[int] = set()
    used = 0.0
    for best in order([float(score) for score in scores]):
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


def runs_of(chosen: Sequence[int], scores: np.ndarray) -> list[list[int]]:
    """Runs of adjacent chosen units, the run holding the best unit first (step 3)."""
    runs: list[list[int]] = []
    for unit in sorted(chosen):
        if runs and runs[-1][-1] == unit - 1:
            runs[-1].append(unit)
        else:
            runs.append([unit])
    rank = {unit: place for place, unit in enumerate(order([float(s) for s in scores]))}
    runs.sort(key=lambda run: min(rank[u] for u in run))
    return runs


def evidence_runs(
    claim: str,
    page: PageLines,
    lexical: Sequence[float],
    dense: Sequence[float],
    coverage: float,
    ranked: Sequence[int],
    *,
    budget: float = EVIDENCE_WORDS,
    radius: int = RADIUS,
    ceiling: float = 1.0 - LEXICAL_FLOOR,
    head: Head | None = None,
) -> tuple[list[list[int]], np.ndarray]:
    """The runs of units shown for ``claim`` (best first) and every unit's score, from the
    engine's passage scores (``lexical``, ``dense``, ``coverage``, ``ceiling``, as
    :func:`~.ranking.fuse` reads them) and its order of the passages (``ranked``)."""
    if not page.units:
        return [], np.zeros(0)
    x = unit_features(claim, page, lexical, dense, coverage, ranked, ceiling)
    scores = (head or shipped_head()).score(x)
    return runs_of(choose_units(page.units, scores, budget, radius), scores), scores


def run_span(page: PageLines, run: Sequence[int]) -> Span:
    """Where a run's text lies in ``"\\n\\n".join(page.passages)``."""
    starts = list(itertools.accumulate((len(p) + len(JOIN) for p in page.passages), initial=0))
    first, last = page.units[run[0]], page.units[run[-1]]
    return starts[first.passage] + first.start, starts[last.passage] + last.end


def run_pieces(
    page: PageLines, run: Sequence[int], text: str, pieces: Sequence[Span]
) -> tuple[Span, ...]:
    """A run's pieces of the page text ``text``: ``pieces`` are the page's lines (its
    passages' pieces in page order, one per line of :attr:`PageLines.lines`), and the run
    covers the end of its first line from its first unit on, the lines between whole, and
    the start of its last line up to its last unit's end."""
    first, last = run[0], run[-1]
    found: list[Span] = []
    for line in range(page.lines[first], page.lines[last] + 1):
        start, end = pieces[line]
        if line == page.lines[first]:
            at = page.units[first].start - page.line_starts[first]
            start = page_offset(text, pieces[line], at)
        if line == page.lines[last]:
            at = page.units[last].end - 1 - page.line_starts[last]
            end = page_offset(text, pieces[line], at) + 1
        found.append((start, end))
    return tuple(found)


def line_count(page: PageLines) -> int:
    """How many lines the page's passages hold (blank ones not counted)."""
    return sum(1 for passage in page.passages for line in passage.split("\n") if line.strip())


def best_unit(run: Sequence[int], scores: np.ndarray) -> float:
    """A run's score: its best unit's."""
    return float(max(scores[u] for u in run))
