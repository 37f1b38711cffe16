#!/usr/bin/env python
"""The rankings tried against WiCE's all@3 goal, replayed from the signal dumps of
``retrieval_wice.py``, so that each figure of benchmarks/README.md's list can be checked:

    python benchmarks/retrieval_wice.py --cache-dir CACHE --dump /tmp/minilm.json
    python benchmarks/retrieval_wice.py --cache-dir CACHE --model multilingual-e5-small \\
        --dump /tmp/e5.json
    python benchmarks/wice_fusions.py /tmp/minilm.json --e5 /tmp/e5.json

Every row ranks the same passages (the scorer's default layout) and is scored by the dev set's
own ``score_retrieval.py``. The last row fits a logistic regression over all the signals and
scores it by 5-fold cross-validation, so no claim is ranked by weights fitted on it.
"""

from __future__ import annotations

import argparse
import gzip
import itertools
import json
import math
import random
import re
import sys
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from benchmarks import load_script  # noqa: E402
from pytest_citations.retrieval.bm25 import terms  # noqa: E402
from pytest_citations.retrieval.index import LEXICAL_FLOOR  # noqa: E402
from pytest_citations.retrieval.ranking import _order, _standardised  # noqa: E402

DATA_DIR = HERE.parent.parent / "shared" / "data" / "wice-dev"
NUMBER = re.compile(r"\d+")
Ranking = Callable[[dict[str, Any]], list[int]]


class PairBM25:
    """BM25 as the engine computes it, with ``k1``/``b`` free and word pairs counted too."""

    def __init__(self, passages: Sequence[str], k1: float, b: float, pairs: float) -> None:
        self.k1, self.b, self.pairs = k1, b, pairs
        tokens = [terms(passage) for passage in passages]
        self.counts = [Counter(t) + Counter(itertools.pairwise(t)) for t in tokens]
        self.lengths = [len(t) for t in tokens]
        self.average = (sum(self.lengths) / len(self.lengths)) or 1.0
        documents: Counter[Any] = Counter()
        for counts in self.counts:
            documents.update(counts.keys())
        size = len(tokens)
        self.idf = {t: math.log(1 + (size - n + 0.5) / (n + 0.5)) for t, n in documents.items()}

    def scores(self, query: str, weight: dict[str, float] | None = None) -> list[float]:
        words = terms(query)
        query_terms: list[Any] = [*dict.fromkeys(words)]
        if self.pairs:
            query_terms += [*dict.fromkeys(itertools.pairwise(words))]
        found = []
        for counts, length in zip(self.counts, self.lengths, strict=True):
            norm = self.k1 * (1 - self.b + self.b * length / self.average)
            score = 0.0
            for term in query_terms:
                frequency = counts.get(term, 0)
                if frequency:
                    factor = self.pairs if isinstance(term, tuple) else 1.0
                    factor *= (weight or {}).get(term, 1.0)
                    score += (
                        factor * self.idf[term] * frequency * (self.k1 + 1) / (frequency + norm)
                    )
            found.append(score)
        return found


def fused(lexical: Sequence[float], dense: Sequence[float], coverage: float) -> list[float]:
    """The engine's fusion (``retrieval.fuse``) of any two signals."""
    weight = LEXICAL_FLOOR + (0.9 - LEXICAL_FLOOR) * min(1.0, max(0.0, coverage))
    return [
        weight * a + (1 - weight) * b
        for a, b in zip(_standardised(lexical), _standardised(dense), strict=True)
    ]


def rankings(passages: dict[str, list[str]], e5: dict[str, Any] | None) -> dict[str, Ranking]:
    """Name -> ranking of a claim (its row, with the dump's signals under ``signals``)."""

    def project(c: dict[str, Any]) -> list[int]:
        return list(c["signals"]["project"])

    def bm25(k1: float, b: float, pairs: float, hybrid: bool) -> Ranking:
        def rank(c: dict[str, Any]) -> list[int]:
            s = c["signals"]
            lexical = PairBM25(passages[c["id"]], k1, b, pairs).scores(c["claim"])
            return _order(fused(lexical, s["dense"], s["coverage"]) if hybrid else lexical)

        return rank

    def with_bonus(bonus: Callable[[dict[str, Any], int], float]) -> Ranking:
        def rank(c: dict[str, Any]) -> list[int]:
            s = c["signals"]
            base = fused(s["bm25"], s["dense"], s["coverage"])
            return _order([score + bonus(c, i) for i, score in enumerate(base)])

        return rank

    def first_in_top3(c: dict[str, Any]) -> list[int]:
        order = project(c)
        if 0 not in order[:3]:
            order.remove(0)
            order.insert(2, 0)
        return order

    def smoothed(c: dict[str, Any]) -> list[int]:
        s = c["signals"]
        base = fused(s["bm25"], s["dense"], s["coverage"])
        near = [[base[j] for j in (i - 1, i + 1) if 0 <= j < len(base)] for i in range(len(base))]
        return _order([v + 0.1 * max(n, default=0.0) for v, n in zip(base, near, strict=True)])

    def figure_slot(c: dict[str, Any]) -> list[int]:
        order, texts = project(c), passages[c["id"]]
        held = set().union(*(NUMBER.findall(texts[i]) for i in order[:3]))
        for figure in sorted(set(NUMBER.findall(c["claim"])) - held):
            holders = [i for i in order[2:] if figure in NUMBER.findall(texts[i])]
            if holders:
                return [*order[:2], holders[0], *(i for i in order[2:] if i != holders[0])]
        return order

    def residual(c: dict[str, Any]) -> list[int]:
        """Each next passage ranked with the claim's terms already shown weighing 0.8."""
        s, index = c["signals"], PairBM25(passages[c["id"]], 1.2, 0.75, 0.0)
        picked: list[int] = []
        weight: dict[str, float] = {}
        for _ in range(min(3, len(s["dense"]))):
            score = fused(index.scores(c["claim"], weight), s["dense"], s["coverage"])
            best = max((i for i in range(len(score)) if i not in picked), key=score.__getitem__)
            picked.append(best)
            weight.update({t: 0.8 for t in terms(c["claim"]) if index.counts[best].get(t)})
        return picked + [i for i in project(c) if i not in picked]

    found: dict[str, Ranking] = {
        "hybrid (the engine)": project,
        "BM25 k1 1.5": bm25(1.5, 0.75, 0.0, False),
        "hybrid, BM25 with word pairs (0.5)": bm25(1.2, 0.75, 0.5, True),
        "hybrid, BM25 with word pairs (1.0)": bm25(1.2, 0.75, 1.0, True),
        "hybrid, BM25 k1 0.9 b 0.4": bm25(0.9, 0.4, 0.0, True),
        "hybrid + first passage 0.3": with_bonus(lambda c, i: 0.3 * (i == 0)),
        "hybrid + 1 / (1 + position)": with_bonus(lambda c, i: 0.3 / (1 + i)),
        "first passage always in the top 3": first_in_top3,
        "hybrid + 0.1 x best neighbour": smoothed,
        "a missing figure's passage third": figure_slot,
        "residual terms (greedy top 3)": residual,
    }
    if e5 is not None:

        def three_way(c: dict[str, Any]) -> list[int]:
            s = c["signals"]
            dense = [
                a + b
                for a, b in zip(
                    _standardised(e5[c["id"]]["dense"]), _standardised(s["dense"]), strict=True
                )
            ]
            return _order(fused(s["bm25"], dense, s["coverage"]))

        found["BM25 + MiniLM + e5"] = three_way
    return found


def features(c: dict[str, Any], texts: list[str], e5: dict[str, Any] | None) -> np.ndarray:
    s = c["signals"]
    columns = [_standardised(s["bm25"]), _standardised(s["dense"])]
    if e5 is not None:
        columns.append(_standardised(e5[c["id"]]["dense"]))
    figures = set(NUMBER.findall(c["claim"]))
    size = len(texts)
    rows = []
    for i in range(size):
        shared = len(figures & set(NUMBER.findall(texts[i]))) / len(figures) if figures else 0.0
        signals = [column[i] for column in columns]
        rows.append(
            [
                *signals,
                *(v * s["coverage"] for v in signals[:2]),
                float(i == 0),
                1 / (1 + i),
                shared,
                math.log(size),
            ]
        )
    return np.array(rows)


def logistic(x: np.ndarray, y: np.ndarray, steps: int = 3000, rate: float = 0.5) -> np.ndarray:
    """Weights (bias last) of an L2-regularised logistic regression, by gradient descent."""
    x = np.hstack([x, np.ones((len(x), 1))])
    w = np.zeros(x.shape[1])
    for _ in range(steps):
        p = 1 / (1 + np.exp(-(x @ w)))
        w -= rate * (x.T @ (p - y) / len(y) + 1e-3 * w)
    return w


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dump", type=Path, help="retrieval_wice.py --dump, MiniLM (the default)")
    parser.add_argument("--e5", type=Path, help="the same with --model multilingual-e5-small")
    parser.add_argument("--data-dir", type=Path, default=DATA_DIR)
    args = parser.parse_args()
    scorer = load_script(args.data_dir / "score_retrieval.py")
    with gzip.open(args.data_dir / "wice_dev.jsonl.gz", "rt", encoding="utf-8") as handle:
        rows = [json.loads(line) for line in handle]
    signals = json.loads(args.dump.read_text())
    e5 = json.loads(args.e5.read_text()) if args.e5 else None
    claims = [r for r in rows if r["kind"] == "claim" and r["label"] != "not_supported"]
    claims = [dict(c, signals=signals[c["id"]]) for c in claims if scorer.gold_sets(c)]
    pages = {c["id"]: scorer.Page(c["evidence"], "sentence_paragraphs", 200) for c in claims}
    passages = {cid: page.passages for cid, page in pages.items()}
    long_pages = [c for c in claims if len(passages[c["id"]]) > 5]

    def all_at_3(group: list[dict[str, Any]], order: dict[str, list[int]]) -> float:
        return scorer.score(group, pages, order)["all@3"]

    print(
        f"WiCE dev: {len(claims)} scored claims, {len(long_pages)} on pages of more than 5 passages"
    )
    print("| ranking | all@3 | long pages all@3 |\n|---|---|---|")
    for name, rank in rankings(passages, e5).items():
        order = {c["id"]: rank(c) for c in claims}
        print(f"| {name} | {all_at_3(claims, order):.3f} | {all_at_3(long_pages, order):.3f} |")

    table = {c["id"]: features(c, passages[c["id"]], e5) for c in claims}
    wanted = {}
    for c in claims:
        y = np.zeros(len(passages[c["id"]]))
        for group in scorer.gold_sets(c):
            for sentence in group:
                y[pages[c["id"]].touches[sentence]] = 1
        wanted[c["id"]] = y
    ids = [c["id"] for c in claims]
    random.Random(0).shuffle(ids)
    order = {}
    for fold in range(5):
        held = set(ids[fold::5])
        train = [i for i in ids if i not in held]
        w = logistic(
            np.vstack([table[i] for i in train]), np.concatenate([wanted[i] for i in train])
        )
        for i in held:
            order[i] = _order(list(table[i] @ w[:-1]))
    name = "logistic regression over every signal, 5-fold"
    print(f"| {name} | {all_at_3(claims, order):.3f} | {all_at_3(long_pages, order):.3f} |")


if __name__ == "__main__":
    main()
