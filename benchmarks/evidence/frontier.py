"""The frontier on WiCE dev: every route at every budget tried, with all@judge (overall and
on pages of more than 5 passages), any@1 and the words the judge receives.

Heads are scored by k-fold cross-validation over claims (each claim ranked by weights fitted
without it); the in-sample figure of the same head is printed beside, to show how much the
dev set flatters it.

    python -m benchmarks.evidence frontier --cache-dir /work/wt/evidence-cache
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from benchmarks.evidence import evaluate, features, head, routes
from benchmarks.evidence.data import Claim
from benchmarks.evidence.evaluate import Figures, Route
from benchmarks.evidence.signals import Signals

FOLDS = 10
GROUPS = {
    "cheap": ("cheap",),
    "cheap+tokens": ("cheap", "tokens"),
    "cheap+alone": ("cheap", "alone"),
    "all": ("cheap", "tokens", "alone"),
}


@dataclass
class Table:
    claims: list[Claim]
    signals: dict[str, Signals]
    rows: list[Figures]

    def add(self, name: str, route: Route) -> Figures:
        figures = evaluate.score(name, route, self.claims, self.signals)
        self.rows.append(figures)
        print(figures.row(), flush=True)
        return figures


def columns(group: str) -> list[int]:
    wanted = GROUPS[group]
    return [i for i, name in enumerate(features.FEATURES) if features.FEATURES[name] in wanted]


def cross_validated(
    claims: Sequence[Claim],
    x: dict[str, np.ndarray],
    y: dict[str, np.ndarray],
    cols: list[int],
    folds: int = FOLDS,
    seed: int = 0,
    **options: float,
) -> dict[str, np.ndarray]:
    """Each claim's unit scores from a head fitted on the other folds."""
    found: dict[str, np.ndarray] = {}
    for held in head.folds([c.id for c in claims], folds, seed):
        train = [c.id for c in claims if c.id not in held]
        fitted = head.fit([x[i] for i in train], [y[i] for i in train], cols, **options)  # type: ignore[arg-type]
        for i in held:
            found[i] = fitted.score(x[i])
    return found


def in_sample(
    claims: Sequence[Claim],
    x: dict[str, np.ndarray],
    y: dict[str, np.ndarray],
    cols: list[int],
    **options: float,
) -> dict[str, np.ndarray]:
    ids = [c.id for c in claims]
    fitted = head.fit([x[i] for i in ids], [y[i] for i in ids], cols, **options)  # type: ignore[arg-type]
    return {i: fitted.score(x[i]) for i in ids}


def by(scores: dict[str, np.ndarray]) -> routes.UnitScore:
    return lambda claim, s: scores[claim.id]


def today_words(k: int = 3) -> routes.Budget:
    """The words today's selection sends for this claim: the same cost, claim by claim."""

    def budget(claim: Claim, s: Signals, scores: np.ndarray) -> float:
        chosen = list(s.order[:k])
        if s.neighbour is not None and s.neighbour not in chosen:
            chosen.append(s.neighbour)
        return float(sum(len(claim.layout.passages[p].split()) for p in chosen))

    return budget


def summary(rows: Sequence[Figures]) -> str:
    return "\n".join([evaluate.HEADER, *(r.row() for r in rows)])


def median(values: Sequence[float]) -> float:
    return float(statistics.median(values))


Builder = Callable[[], Route]
