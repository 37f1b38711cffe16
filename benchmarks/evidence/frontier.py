"""The frontier on WiCE dev: every route at every budget tried, with all@judge (overall and
on pages of more than 5 passages), any@1 and the words the judge receives.

Heads are scored by 10-fold cross-validation over claims (each claim's slices chosen by a
head fitted without it), repeated over :data:`SEEDS` shuffles; a row gives the mean over the
shuffles and, for all@judge, the spread (sd). Unit scores of each (head, shuffle) are cached
beside the signals, so a second run takes minutes.

    python -m benchmarks.evidence frontier --cache-dir CACHE
"""

from __future__ import annotations

import pickle
import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.evidence import evaluate, features, head, route, routes, train
from benchmarks.evidence.data import Claim
from benchmarks.evidence.evaluate import Figures, Route
from benchmarks.evidence.signals import Signals

FOLDS = 10
SEEDS = 3
BUDGETS = (300, 400, 450, 500, 535, 560, 600, 700, 800)
FAMILIES = {
    "cheap": ("cheap",),
    "cheap+tokens": ("cheap", "tokens"),
    "cheap+alone": ("cheap", "alone"),
    "all": ("cheap", "tokens", "alone"),
}
HEADER = (
    "| route | budget | all@judge (sd) | long pages | any@1 | median words | mean words "
    "| slices |\n|---|---|---|---|---|---|---|---|"
)
Scores = dict[str, np.ndarray]


def columns(family: str) -> list[int]:
    wanted = FAMILIES[family]
    return [i for i, name in enumerate(features.FEATURES) if features.FEATURES[name] in wanted]


def cross_validated(
    claims: Sequence[Claim],
    x: dict[str, np.ndarray],
    y: dict[str, np.ndarray],
    cols: list[int],
    seed: int = 0,
    folds: int = FOLDS,
    **options: Any,
) -> Scores:
    """Each claim's unit scores from a head fitted on the other folds."""
    found: Scores = {}
    for held in head.folds([c.id for c in claims], folds, seed):
        train_ids = [c.id for c in claims if c.id not in held]
        fitted = head.fit([x[i] for i in train_ids], [y[i] for i in train_ids], cols, **options)
        for i in held:
            found[i] = fitted.score(x[i])
    return found


def by(scores: Scores) -> routes.UnitScore:
    return lambda claim, s: scores[claim.id]


def today_words(k: int = 3) -> routes.Budget:
    """The words today's selection sends for this claim: the same cost, claim by claim."""

    def budget(claim: Claim, s: Signals, scores: np.ndarray) -> float:
        chosen = list(s.order[:k])
        if s.neighbour is not None and s.neighbour not in chosen:
            chosen.append(s.neighbour)
        return float(sum(len(claim.layout.passages[p].split()) for p in chosen))

    return budget


def facts(claim: str) -> int:
    """Years, other figures and names the claim states (distinct)."""
    years = set(route.YEAR.findall(claim))
    return len(years) + len(set(route.NUMBER.findall(claim)) - years) + len(route._names(claim))


def earned(base: float, beta: float, mean_facts: float) -> routes.Budget:
    """A budget the claim earns: ``base`` moved by ``beta`` per fact above the mean."""
    return lambda c, s, scores: base * (1 + beta * (facts(c.claim) - mean_facts) / mean_facts)


def prefixed(f: Frontier, scores: Scores, cap: int) -> routes.UnitScore:
    """The head's scores with the page's structure lines (metadata, heading or date lines)
    that share a year or a name with the claim moved to the top, at most ``cap`` of them."""
    names = list(features.FEATURES)
    meta, date, year, name = (
        names.index(n) for n in ("meta", "date_line", "shares_year", "shares_name")
    )

    def score(claim: Claim, s: Signals) -> np.ndarray:
        x, found = f.x[claim.id], scores[claim.id].copy()
        lines = np.where(
            ((x[:, meta] > 0) | (x[:, date] > 0)) & ((x[:, year] > 0) | (x[:, name] > 0))
        )[0]
        top = sorted(lines, key=lambda u: -found[u])[:cap]
        for place, unit in enumerate(top):
            found[unit] = scores[claim.id].max() + 1 + cap - place
        return found

    return score


@dataclass
class Frontier:
    claims: list[Claim]
    signals: dict[str, Signals]
    cache: Path
    rows: list[str] = field(default_factory=list)
    x: dict[str, np.ndarray] = field(default_factory=dict)
    y: dict[str, np.ndarray] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.x = {c.id: features.matrix(c, self.signals[c.id]) for c in self.claims}
        self.y = {c.id: features.labels(c) for c in self.claims}

    def scores(self, family: str, **options: Any) -> list[Scores]:
        """Cross-validated unit scores of a head, one per shuffle (cached)."""
        tag = "_".join(f"{k}{v}" for k, v in sorted(options.items()))
        path = self.cache / f"cv_{family}_{tag or 'logistic'}.pkl"
        held: list[Scores] = pickle.loads(path.read_bytes()) if path.exists() else []
        while len(held) < SEEDS:
            seed = len(held)
            held.append(
                cross_validated(self.claims, self.x, self.y, columns(family), seed, **options)
            )
            path.write_bytes(pickle.dumps(held))
        return held[:SEEDS]

    def row(
        self, name: str, budget: str, make: Callable[[Scores], Route], runs: list[Scores]
    ) -> None:
        figures = [evaluate.score(name, make(run), self.claims, self.signals) for run in runs]
        self.emit(name, budget, figures)

    def emit(self, name: str, budget: str, figures: Sequence[Figures]) -> None:
        def mean(attribute: str) -> float:
            return statistics.mean(getattr(f, attribute) for f in figures)

        spread = statistics.pstdev(f.all_judge for f in figures) if len(figures) > 1 else 0.0
        line = (
            f"| {name} | {budget} | {mean('all_judge'):.3f} ({spread:.3f}) | "
            f"{mean('long_all_judge'):.3f} | {mean('any_at_1'):.3f} | "
            f"{mean('median_words'):.0f} | {mean('mean_words'):.0f} | {mean('slices'):.1f} |"
        )
        self.rows.append(line)
        print(line, flush=True)


def run(
    claims: list[Claim], signals: dict[str, Signals], cache: Path, short: bool = False
) -> list[str]:
    """Every row of the frontier table (printed as it comes); ``short``: only today's and
    the route's (for another unit or page layout)."""
    f = Frontier(claims, signals, cache)
    if short:
        return run_short(f)
    print(HEADER)
    today_rows(f)
    untrained_rows(f)
    cheap_rows(f)
    costly_rows(f)
    for seed in range(2):
        f.emit(f"route, choices made by nested CV (seed {seed})", "560", [nested(f, seed)])
    shipped = train.fit(claims, f.x, f.y)
    f.emit(
        "route.py with the shipped head (in-sample)",
        "560",
        [evaluate.score("", lambda c, s: train.sent(c, s, shipped), claims, signals)],
    )
    return f.rows


def today_rows(f: Frontier) -> None:
    """Today's selection at every ``top_k``."""
    claims, signals = f.claims, f.signals
    for k in range(1, 7):
        f.emit(
            f"today: top {k} passages + straddled neighbour",
            "-",
            [evaluate.score("", evaluate.today(k), claims, signals)],
        )
    f.emit(
        "today: top 3, no neighbour",
        "-",
        [evaluate.score("", evaluate.today(3, straddle=False), claims, signals)],
    )


def untrained_rows(f: Frontier) -> None:
    """Spans ranked without a head."""
    none: list[Scores] = [{}]  # rankings that need no training

    def unit_bm25(c: Claim, s: Signals) -> np.ndarray:
        return features.z(s.unit_bm25)

    def hand(c: Claim, s: Signals) -> np.ndarray:
        x = f.x[c.id]
        names = list(features.FEATURES)
        return x[:, names.index("unit_bm25")] + x[:, names.index("passage_fused")]

    for budget in (500, 560, 600):
        f.row(
            "spans by unit BM25, r1 (no training)",
            str(budget),
            lambda _, b=budget: routes.units_route(unit_bm25, routes.fixed(b), 1),
            none,
        )
        f.row(
            "spans by unit BM25 + passage fusion, r1 (no training)",
            str(budget),
            lambda _, b=budget: routes.units_route(hand, routes.fixed(b), 1),
            none,
        )


def cheap_rows(f: Frontier) -> None:
    """The cheap head at every budget, and the variants of its choice and budget."""
    cheap = f.scores("cheap")
    for budget in BUDGETS:
        f.row(
            "**route**: spans by the cheap head, r1",
            str(budget),
            lambda run, b=budget: routes.units_route(by(run), routes.fixed(b), 1),
            cheap,
        )
    for radius in (0, 2):
        f.row(
            f"spans by the cheap head, r{radius}",
            "560",
            lambda run, r=radius: routes.units_route(by(run), routes.fixed(560), r),
            cheap,
        )
    f.row(
        "cheap head, r1, top passage whole first",
        "560",
        lambda run: routes.units_route(by(run), routes.fixed(560), 1, passages=1),
        cheap,
    )
    f.row(
        "cheap head, r1, gaps of <= 10 words filled",
        "560",
        lambda run: routes.units_route(by(run), routes.fixed(560), 1, gap=10),
        cheap,
    )
    f.row(
        "cheap head, r1, budget = today's words claim by claim",
        "today's",
        lambda run: routes.units_route(by(run), today_words(3), 1),
        cheap,
    )
    for cap in (1, 3):
        f.row(
            f"cheap head, r1, structure prefix (at most {cap} lines first)",
            "560",
            lambda run, k=cap: routes.units_route(prefixed(f, run, k), routes.fixed(560), 1),
            cheap,
        )
    mean_facts = statistics.mean(facts(c.claim) for c in f.claims)
    for base, beta in ((550, 0.1), (560, 0.2)):
        f.row(
            f"cheap head, r1, earned budget ({beta:g} per fact above the mean)",
            f"{base} base",
            lambda run, b=base, e=beta: routes.units_route(by(run), earned(b, e, mean_facts), 1),
            cheap,
        )


def costly_rows(f: Frontier) -> None:
    """Other heads: other losses, and the features that need model outputs."""
    f.row(
        "cheap head, listwise loss, r1",
        "560",
        lambda run: routes.units_route(by(run), routes.fixed(560), 1),
        f.scores("cheap", listwise=True),
    )
    f.row(
        "cheap head, MLP (8 hidden), r1",
        "560",
        lambda run: routes.units_route(by(run), routes.fixed(560), 1),
        f.scores("cheap", hidden=8, steps=600),
    )
    for family, options in (
        ("cheap+tokens", {}),
        ("cheap+tokens", {"listwise": True}),
        ("cheap+alone", {}),
        ("all", {}),
    ):
        runs = f.scores(family, **options)
        label = family + (", listwise" if options else "")
        for budget in (500, 560, 600):
            f.row(
                f"spans by the {label} head, r1",
                str(budget),
                lambda run, b=budget: routes.units_route(by(run), routes.fixed(b), 1),
                runs,
            )


def run_short(f: Frontier) -> list[str]:
    print(HEADER)
    for k in (3, 5):
        f.emit(
            f"today: top {k} passages + straddled neighbour",
            "-",
            [evaluate.score("", evaluate.today(k), f.claims, f.signals)],
        )
    cheap = f.scores("cheap")
    for budget in (500, 560, 600):
        f.row(
            "spans by the cheap head, r1",
            str(budget),
            lambda run, b=budget: routes.units_route(by(run), routes.fixed(b), 1),
            cheap,
        )
    tokens = f.scores("cheap+tokens", listwise=True)
    f.row(
        "spans by the cheap+tokens head, listwise, r1",
        "560",
        lambda run: routes.units_route(by(run), routes.fixed(560), 1),
        tokens,
    )
    return f.rows


#: The cheap features before the three added while studying the misses (window BM25, term
#: share, unit rank): the nested check chooses between the two sets without the outer fold.
EARLIER = [n for n in route.FEATURES if n not in ("window_bm25", "term_share", "unit_rank")]


def nested(f: Frontier, seed: int = 0, inner: int = 5) -> Figures:
    """The route's figure with its choices (feature set, radius) made inside each training
    fold by an inner cross-validation, so that the outer claims never steer them: how much
    choosing them on the whole dev set flatters the route."""
    names = list(features.FEATURES)
    options = {
        "18 cheap": [names.index(n) for n in route.FEATURES],
        "15 cheap": [names.index(n) for n in EARLIER],
    }
    chosen_scores: Scores = {}
    radius_of: dict[str, int] = {}
    for held in head.folds([c.id for c in f.claims], FOLDS, seed):
        training = [c for c in f.claims if c.id not in held]
        best: tuple[float, str, int] = (-1.0, "", 0)
        for label, cols in options.items():
            inner_scores = cross_validated(training, f.x, f.y, cols, seed, folds=inner)
            for radius in (0, 1, 2):
                got = evaluate.score(
                    "",
                    routes.units_route(by(inner_scores), routes.fixed(route.BUDGET), radius),
                    training,
                    f.signals,
                ).all_judge
                best = max(best, (got, label, radius))
        _, label, radius = best
        fitted = head.fit(
            [f.x[c.id] for c in training], [f.y[c.id] for c in training], options[label]
        )
        print(f"  nested: fold chose {label}, r{radius}", flush=True)
        for i in held:
            chosen_scores[i] = fitted.score(f.x[i])
            radius_of[i] = radius

    def choose(c: Claim, s: Signals) -> evaluate.Sent:
        return routes.units_route(by(chosen_scores), routes.fixed(route.BUDGET), radius_of[c.id])(
            c, s
        )

    return evaluate.score("nested", choose, f.claims, f.signals)
