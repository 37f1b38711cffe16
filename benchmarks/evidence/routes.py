"""Selections under a word budget: units (sentences) picked best first, each with its
neighbours, merged into contiguous slices of the page; optionally the top passages whole
first. A route is built from a unit score (any function of a claim's signals) and a budget
(fixed, or earned by the claim)."""

from __future__ import annotations

import itertools
from collections.abc import Callable

import numpy as np

from benchmarks.evidence.data import Claim
from benchmarks.evidence.evaluate import Route, Sent
from benchmarks.evidence.signals import Signals

UnitScore = Callable[[Claim, Signals], np.ndarray]
Budget = Callable[[Claim, Signals, np.ndarray], float]


def fixed(words: float) -> Budget:
    return lambda claim, s, scores: words


def pick(
    claim: Claim,
    scores: np.ndarray,
    budget: float,
    radius: int = 1,
    seed: set[int] | None = None,
    gap: int = 0,
) -> list[int]:
    """Units best first, each with ``radius`` units either side, while they fit in
    ``budget`` words (a pick that does not fit with its neighbours is tried alone; one that
    does not fit alone is skipped). ``seed`` units come first whatever they cost. Two
    chosen runs with at most ``gap`` words between them are joined (the gap is paid)."""
    layout = claim.layout
    sizes = layout.unit_sizes
    count = len(sizes)
    chosen = set(seed or ())
    used = sum(sizes[u] for u in chosen)
    for unit in np.argsort(-scores, kind="stable"):
        unit = int(unit)
        if used >= budget:
            break
        for reach in (radius, 0):
            add = {u for u in range(unit - reach, unit + reach + 1) if 0 <= u < count} - chosen
            cost = sum(sizes[u] for u in add)
            if used + cost <= budget:
                chosen |= add
                used += cost
                break
    if gap:
        chosen = _close_gaps(chosen, sizes, gap, budget - used)
    return sorted(chosen)


def _close_gaps(chosen: set[int], sizes: list[float], gap: int, spare: float) -> set[int]:
    ordered = sorted(chosen)
    found = set(chosen)
    for left, right in itertools.pairwise(ordered):
        between = range(left + 1, right)
        cost = sum(sizes[u] for u in between)
        if 0 < cost <= min(gap, spare):
            found.update(between)
            spare -= cost
    return found


def units_route(
    score: UnitScore,
    budget: Budget,
    radius: int = 1,
    passages: int = 0,
    gap: int = 0,
    order: str = "score",
) -> Route:
    """Units by ``score`` under ``budget`` words; the top ``passages`` passages of the
    engine's order (and its straddled neighbour) go in whole first. Slices reach the judge
    best first (``order="score"``) or in page order (``"page"``)."""

    def route(claim: Claim, s: Signals) -> Sent:
        layout = claim.layout
        scores = score(claim, s)
        seed: set[int] = set()
        if passages:
            whole = list(s.order[:passages])
            if s.neighbour is not None and s.neighbour not in whole:
                whole.append(s.neighbour)
            seed = {u for u, p in enumerate(layout.unit_passage) if p in whole}
        chosen = pick(claim, scores, budget(claim, s, scores), radius, seed, gap)
        ranking = [int(u) for u in np.argsort(-scores, kind="stable")]
        if passages:  # the seeded passages rank first, in the engine's order
            head = [
                u for p in s.order[:passages] for u in sorted(seed) if layout.unit_passage[u] == p
            ]
            ranking = head + [u for u in ranking if u not in set(head)]
        texts = layout.slices(chosen, ranking if order == "score" else None)
        top = ranking[0] if ranking[0] in chosen else min(chosen, key=ranking.index)
        run = [top]
        while run[0] - 1 in chosen:
            run.insert(0, run[0] - 1)
        while run[-1] + 1 in chosen:
            run.append(run[-1] + 1)
        return Sent(
            texts, [layout.unit_words[u] for u in chosen], [layout.unit_words[u] for u in run]
        )

    return route
