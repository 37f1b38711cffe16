"""A claim's label from its citations' labels (A1)."""

from __future__ import annotations

from collections.abc import Iterable

from ..labels import Label
from ..verdicts import CitationVerdict


def aggregate(labels: Iterable[Label]) -> Label:
    """The claim's label from its citations' labels, by a fixed rule (A1).

    One contradiction outweighs every support; otherwise any support carries the claim,
    then any partial support (004, C3); the claim is unreachable only when every citation
    is; every other mix, an empty one included, is not_found.
    """
    seen = list(labels)
    for label in (Label.CONTRADICTED, Label.SUPPORTED, Label.PARTIAL):
        if label in seen:
            return label
    if seen and all(label is Label.UNREACHABLE for label in seen):
        return Label.UNREACHABLE
    return Label.NOT_FOUND


def aggregate_verdicts(verdicts: Iterable[CitationVerdict]) -> Label:
    """:func:`aggregate` over verdicts."""
    return aggregate(verdict.label for verdict in verdicts)
