"""A small scoring head over :mod:`benchmarks.evidence.features`: logistic regression (and a
one-hidden-layer perceptron) in plain numpy, trained on WiCE dev units and evaluated by
k-fold cross-validation over claims, so no claim is scored by weights fitted on it."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np


@dataclass
class Head:
    """Weights of a fitted head; ``columns`` picks the features it reads."""

    columns: list[int]
    mean: np.ndarray
    scale: np.ndarray
    weights: np.ndarray  # linear: (F + 1,), bias last
    hidden: np.ndarray | None = None  # MLP: (F + 1, H), then weights (H + 1,)

    def score(self, x: np.ndarray) -> np.ndarray:
        x = (x[:, self.columns] - self.mean) / self.scale
        x = np.hstack([x, np.ones((len(x), 1))])
        if self.hidden is not None:
            x = np.hstack([np.tanh(x @ self.hidden), np.ones((len(x), 1))])
        return x @ self.weights


def fit(
    xs: Sequence[np.ndarray],
    ys: Sequence[np.ndarray],
    columns: list[int],
    l2: float = 1e-3,
    hidden: int = 0,
    steps: int = 400,
    per_claim: bool = True,
    seed: int = 0,
    listwise: bool = False,
) -> Head:
    """Fit on claims' unit matrices; with ``per_claim`` every claim weighs the same (a long
    page does not outvote a short one), positives and negatives balanced within it."""
    x = np.vstack([m[:, columns] for m in xs])
    y = np.concatenate(ys)
    if listwise and not hidden:
        return _listwise(xs, ys, columns, x, l2, steps)
    weight = np.concatenate([_weights(t) if per_claim else np.ones(len(t)) for t in ys])
    weight = weight / weight.sum()
    mean, scale = x.mean(axis=0), x.std(axis=0)
    scale[scale == 0] = 1.0
    x = np.hstack([(x - mean) / scale, np.ones((len(x), 1))])
    rng = np.random.default_rng(seed)
    if hidden:
        first = rng.normal(0, 0.3, (x.shape[1], hidden))
        second = np.zeros(hidden + 1)
        params = [first, second]
    else:
        params = [np.zeros(x.shape[1])]
    moments = [(np.zeros_like(p), np.zeros_like(p)) for p in params]
    for step in range(1, steps + 1):
        if hidden:
            h = np.tanh(x @ params[0])
            hb = np.hstack([h, np.ones((len(h), 1))])
            p = 1 / (1 + np.exp(-(hb @ params[1])))
            error = weight * (p - y)
            g2 = hb.T @ error + l2 * params[1]
            back = np.outer(error, params[1][:-1]) * (1 - h**2)
            g1 = x.T @ back + l2 * params[0]
            grads = [g1, g2]
        else:
            p = 1 / (1 + np.exp(-(x @ params[0])))
            grads = [x.T @ (weight * (p - y)) + l2 * params[0]]
        for i, (g, (m, v)) in enumerate(zip(grads, moments, strict=True)):  # Adam
            m[...] = 0.9 * m + 0.1 * g
            v[...] = 0.999 * v + 0.001 * g * g
            rate = 0.05 * np.sqrt(1 - 0.999**step) / (1 - 0.9**step)
            params[i] = params[i] - rate * m / (np.sqrt(v) + 1e-8)
    if hidden:
        return Head(columns, mean, scale, params[1], params[0])
    return Head(columns, mean, scale, params[0])


def _listwise(
    xs: Sequence[np.ndarray],
    ys: Sequence[np.ndarray],
    columns: list[int],
    x: np.ndarray,
    l2: float,
    steps: int,
) -> Head:
    """A linear head fitted by a softmax over each claim's units, whose target spreads evenly
    over the gold units (claims without one are left out): it learns to rank within a page,
    which is all a budget needs."""
    mean, scale = x.mean(axis=0), x.std(axis=0)
    scale[scale == 0] = 1.0
    blocks = [
        ((m[:, columns] - mean) / scale, t / t.sum())
        for m, t in zip(xs, ys, strict=True)
        if t.sum()
    ]
    w = np.zeros(len(columns))
    m1, v1 = np.zeros_like(w), np.zeros_like(w)
    for step in range(1, steps + 1):
        g = l2 * w
        for block, target in blocks:
            logits = block @ w
            p = np.exp(logits - logits.max())
            p /= p.sum()
            g += block.T @ (p - target) / len(blocks)
        m1 = 0.9 * m1 + 0.1 * g
        v1 = 0.999 * v1 + 0.001 * g * g
        rate = 0.05 * np.sqrt(1 - 0.999**step) / (1 - 0.9**step)
        w = w - rate * m1 / (np.sqrt(v1) + 1e-8)
    return Head(columns, mean, scale, np.append(w, 0.0))


def _weights(y: np.ndarray) -> np.ndarray:
    positives = y.sum()
    negatives = len(y) - positives
    w = np.where(y > 0, 0.5 / max(positives, 1), 0.5 / max(negatives, 1))
    return w


def folds(ids: Sequence[str], k: int, seed: int = 0) -> list[set[str]]:
    """``k`` disjoint held-out sets of claim ids."""
    shuffled = list(ids)
    random.Random(seed).shuffle(shuffled)
    return [set(shuffled[i::k]) for i in range(k)]
