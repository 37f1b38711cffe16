"""Per-unit features for the scoring heads. The cheap ones (no model work beyond the
engine's) are the route's own (:func:`benchmarks.evidence.route.unit_features`, one
implementation for the benchmark and the port); the rest need model outputs the engine
does not keep today:

* ``tokens``: MiniLM's token rows from the engine's own passes over the passage windows
  (the unit pooled inside its window, MaxSim of the claim's pieces against the unit's);
* ``alone``: every unit embedded once more by itself (extra forward passes).

``FEATURES`` names every column and its family, so heads can be trained without the costly
ones.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from benchmarks.evidence import route
from benchmarks.evidence.data import Claim
from benchmarks.evidence.signals import Signals

FEATURES: dict[str, str] = {name: "cheap" for name in route.FEATURES}
FEATURES.update(
    {
        "context_cos": "tokens",
        "context_z": "tokens",
        "maxsim_context": "tokens",
        "maxsim_context_z": "tokens",
        "neighbour_context": "tokens",
        "alone_cos": "alone",
        "alone_z": "alone",
        "maxsim_alone": "alone",
        "maxsim_alone_z": "alone",
        "neighbour_alone": "alone",
    }
)
_STOP = frozenset(
    "the a an of in on at to and or is was for by with as from that this it he she his her".split()
)


def z(values: Sequence[float] | np.ndarray) -> np.ndarray:
    """Standardised over the page (0 when constant)."""
    return route._z(values)


def content_pieces(pieces: Sequence[str]) -> np.ndarray:
    """Mask of the claim pieces worth matching: not punctuation, not a function word."""
    return np.array([bool(re.search(r"\w", p)) and p.casefold() not in _STOP for p in pieces])


def route_units(claim: Claim) -> list[route.Unit]:
    """The layout's units in the route's form (for ``spans``, exactly ``route.split_units``)."""
    layout = claim.layout
    found = []
    for (start, end), passage, size in zip(
        layout.unit_chars, layout.unit_passage, layout.unit_sizes, strict=True
    ):
        offset = layout.passage_chars[passage][0]
        found.append(route.Unit(passage, start - offset, end - offset, size))
    return found


def matrix(claim: Claim, s: Signals, ceiling: float = route.LEXICAL_CEILING) -> np.ndarray:
    """The feature matrix of a claim's units (rows) in :data:`FEATURES` order."""
    layout = claim.layout
    page = route.prepare(layout.passages, units_given=route_units(claim))
    cheap = route.unit_features(
        claim.claim,
        page,
        list(s.bm25),
        list(s.dense),
        s.coverage,
        s.order,
        ceiling,
    )
    if len(cheap) != len(layout.unit_chars):
        raise AssertionError(f"{claim.id}: the route's units are not the layout's")
    count = len(cheap)
    mask = content_pieces(s.claim_pieces)
    if not mask.any():
        mask = np.ones(len(s.claim_pieces), bool)

    def maxsim(rows: np.ndarray) -> np.ndarray:
        if not rows.size or not mask.size:
            return np.zeros(count)
        return rows.astype(np.float32)[:, mask].mean(axis=1)

    context, alone = maxsim(s.maxsim_context), maxsim(s.maxsim_alone)
    extra = [
        s.unit_context.astype(float),
        z(s.unit_context),
        context,
        z(context),
        route._beside(z(s.unit_context)),
        s.unit_alone.astype(float),
        z(s.unit_alone),
        alone,
        z(alone),
        route._beside(z(s.unit_alone)),
    ]
    return np.hstack([cheap, np.stack(extra, axis=1)])


def labels(claim: Claim) -> np.ndarray:
    """1 for a unit holding words of some gold sentence (of any gold set)."""
    gold = [span for group in claim.gold for span in group]
    return np.array(
        [any(a < ge and gs < b for gs, ge in gold) for a, b in claim.layout.unit_words], float
    )
