"""Training the route's scoring head (``head.json``) on WiCE dev, and how well it does on
claims it was not trained on.

The head is a logistic regression over :data:`benchmarks.evidence.route.FEATURES` (units
labelled 1 when they hold words of a gold sentence; every claim weighs the same, its
positives and negatives balanced). Its figures come from k-fold cross-validation over
claims, repeated over several shuffles: each claim's slices are chosen by a head fitted
without it, through ``route.evidence_spans`` itself. The in-sample figure (the shipped
head on the claims it was fitted on) is printed beside it.

    python -m benchmarks.evidence train --cache-dir CACHE

Licence: the weights are fitted on WiCE's annotations (Kamoi et al., EMNLP 2023,
https://github.com/ryokamoi/wice), released under ODC-BY 1.0: attribution required. The
dense signal among the features comes from all-MiniLM-L6-v2 (Apache-2.0).
"""

from __future__ import annotations

import json
import math
import statistics
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from benchmarks.evidence import evaluate, features, head, route
from benchmarks.evidence.data import Claim
from benchmarks.evidence.evaluate import Figures, Sent
from benchmarks.evidence.signals import Signals

FOLDS = 10
SEEDS = 5
COLUMNS = [list(features.FEATURES).index(name) for name in route.FEATURES]
LICENCE = (
    "Fitted on WiCE dev (Kamoi, Goyal, Rodriguez, Durrett: WiCE: Real-World Entailment for "
    "Claims in Wikipedia, EMNLP 2023; https://github.com/ryokamoi/wice), whose annotations "
    "are released under ODC-BY 1.0 (attribution required). Dense features from "
    "all-MiniLM-L6-v2 (Apache-2.0)."
)


def as_route_head(fitted: head.Head) -> route.Head:
    """The fitted head in the route's form (the bias dropped: it does not change an order)."""
    return route.Head(route.FEATURES, fitted.mean, fitted.scale, fitted.weights[:-1])


def fit(claims: Sequence[Claim], x: dict[str, np.ndarray], y: dict[str, np.ndarray]) -> route.Head:
    return as_route_head(head.fit([x[c.id] for c in claims], [y[c.id] for c in claims], COLUMNS))


def sent(claim: Claim, s: Signals, fitted: route.Head, budget: float = route.BUDGET) -> Sent:
    spans = route.evidence_spans(
        claim.claim,
        claim.layout.passages,
        list(s.bm25),
        list(s.dense),
        s.coverage,
        s.order,
        budget=budget,
        head=fitted,
        neighbour=s.neighbour,
    )
    return evaluate.spans_sent(claim, spans)


def cross_validated(
    claims: Sequence[Claim],
    signals: dict[str, Signals],
    x: dict[str, np.ndarray],
    y: dict[str, np.ndarray],
    seed: int,
    budgets: Sequence[float] = (route.BUDGET,),
) -> dict[float, Figures]:
    """The route's figures at each budget, every claim scored by a head fitted without it."""
    heads: dict[str, route.Head] = {}
    for held in head.folds([c.id for c in claims], FOLDS, seed):
        fitted = fit([c for c in claims if c.id not in held], x, y)
        heads.update({i: fitted for i in held})
    return {
        budget: evaluate.score(
            f"route, {budget:g} words (CV seed {seed})",
            lambda c, s, b=budget: sent(c, s, heads[c.id], b),
            claims,
            signals,
        )
        for budget in budgets
    }


def paired(claims: Sequence[Claim], signals: dict[str, Signals], figures: Figures) -> str:
    """Claim by claim against today's selection: claims only the route gets whole, claims
    only today gets whole, and the two-sided sign test's p-value on them."""
    today = set(evaluate.score("", evaluate.today(), claims, signals).misses)
    route_misses = set(figures.misses)
    gained, lost = len(today - route_misses), len(route_misses - today)
    n = gained + lost
    tail = sum(math.comb(n, k) for k in range(min(gained, lost) + 1)) / 2**n if n else 1.0
    return (
        f"against today, claim by claim: {gained} gained, {lost} lost, "
        f"{len(today & route_misses)} missed by both (sign test p = {min(1.0, 2 * tail):.2g})"
    )


def write(fitted: route.Head, path: Path, figures: dict[str, float]) -> None:
    path.write_text(
        json.dumps(
            {
                "features": list(fitted.features),
                "mean": [round(float(v), 6) for v in fitted.mean],
                "scale": [round(float(v), 6) for v in fitted.scale],
                "weights": [round(float(v), 6) for v in fitted.weights],
                "trained_on": "WiCE dev, 306 claims (supported or partially supported)",
                "figures": figures,
                "licence": LICENCE,
            },
            indent=1,
        )
        + "\n",
        encoding="utf-8",
    )


def run(claims: list[Claim], signals: dict[str, Signals], out: Path = route.HEAD_FILE) -> None:
    x = {c.id: features.matrix(c, signals[c.id]) for c in claims}
    y = {c.id: features.labels(c) for c in claims}
    print(evaluate.HEADER)
    print(evaluate.score("today (top 3 + straddle)", evaluate.today(), claims, signals).row())
    runs = []
    for seed in range(SEEDS):
        figures = cross_validated(claims, signals, x, y, seed)[route.BUDGET]
        runs.append(figures)
        print(figures.row(), flush=True)
    print(paired(claims, signals, runs[0]))
    shipped = fit(claims, x, y)
    inside = evaluate.score(
        "route, in-sample (the shipped head)", lambda c, s: sent(c, s, shipped), claims, signals
    )
    print(inside.row())
    summary = {
        "cv_all_judge": round(statistics.mean(f.all_judge for f in runs), 3),
        "cv_long_all_judge": round(statistics.mean(f.long_all_judge for f in runs), 3),
        "in_sample_all_judge": round(inside.all_judge, 3),
        "in_sample_long_all_judge": round(inside.long_all_judge, 3),
        "median_words": inside.median_words,
        "mean_words": round(inside.mean_words, 1),
    }
    print(json.dumps(summary))
    write(shipped, out, summary)
