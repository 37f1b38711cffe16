"""The deterministic guard (G1–G3): a verdict counts only if its quote stands in the passages."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from .labels import Label, Reason

_QUOTES = str.maketrans(
    {
        "\u2018": "'",  # ‘
        "\u2019": "'",  # ’
        "\u201a": "'",  # ‚
        "\u201b": "'",  # ‛
        "\u2032": "'",  # ′
        "\u201c": '"',  # “
        "\u201d": '"',  # ”
        "\u201e": '"',  # „
        "\u201f": '"',  # ‟
        "\u2033": '"',  # ″
        "\u00ab": '"',  # «
        "\u00bb": '"',  # »
    }
)
_WHITESPACE = re.compile(r"\s+")

#: Labels the judge may give that claim evidence and so need a quote that passes the guard.
EVIDENCE_LABELS = frozenset({Label.SUPPORTED, Label.PARTIAL, Label.CONTRADICTED})


def normalize(text: str) -> str:
    """Straighten typographic quotes and collapse whitespace (G1)."""
    return _WHITESPACE.sub(" ", text.translate(_QUOTES)).strip()


def quote_in_passages(quote: str, passages: Sequence[str]) -> bool:
    """True when the normalized quote is a non-empty substring of one normalized passage."""
    needle = normalize(quote)
    return bool(needle) and any(needle in normalize(passage) for passage in passages)


@dataclass(frozen=True)
class Guarded:
    """A judgement after the guard: what the citation verdict will carry."""

    label: Label
    evidence_quote: str | None
    confidence: float
    reason: str | None


def guard(label: Label, quote: str | None, confidence: float, passages: Sequence[str]) -> Guarded:
    """Accept a judgement only when its quote stands in the passages (G2, G3).

    supported, partial and contradicted need a matching quote; without one they become
    not_found with confidence 0 and reason ``evidence_quote_not_in_source``. A not_found
    carrying a quote absent from the passages gets the same reason. A not_found never keeps
    a quote. The model's confidence survives only when the quote passes.
    """
    quote = quote if quote and quote.strip() else None
    if label in EVIDENCE_LABELS:
        if quote is not None and quote_in_passages(quote, passages):
            return Guarded(label, quote, confidence, None)
        return Guarded(Label.NOT_FOUND, None, 0.0, Reason.QUOTE_NOT_IN_SOURCE)
    if quote is not None and not quote_in_passages(quote, passages):
        return Guarded(Label.NOT_FOUND, None, 0.0, Reason.QUOTE_NOT_IN_SOURCE)
    return Guarded(Label.NOT_FOUND, None, confidence, None)
