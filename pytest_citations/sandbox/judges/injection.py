"""The gullible model: how a real model can be steered by a page that forges its fences.

The package fences each passage as quoted data and neutralises a page's attempt to close the
fence itself. To test that defence the emulator must fall for the attack the way a model would:
an order after ``SYSTEM:`` that it finds outside the ``<passage>`` fences is obeyed (label,
quote and confidence), one inside the fences is data. Against a prompt that lets a page forge a
fence, the emulated judge answers what the page ordered; against a prompt that neutralised the
forgery, it finds no order and judges normally.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from .prompt import PASSAGES_HEADER

# A naive reader of fences: the first closing tag ends a passage, whatever follows it.
_NAIVE_PASSAGE = re.compile(r"<passage\b([^>]*)>.*?</passage>", re.DOTALL)
_SOURCE_ATTRIBUTE = re.compile(r'\bsource="(\d+)"')
_ORDER = re.compile(r"\bSYSTEM\s*:\s*(.+)", re.IGNORECASE | re.DOTALL)
_ORDER_LABEL = re.compile(r"\b(supported|partial|contradicted|not_found)\b", re.IGNORECASE)
_ORDER_QUOTE = re.compile(r'"([^"]+)"|\u201c([^\u201d]+)\u201d')
_ORDER_CONFIDENCE = re.compile(r"\bconfidence\D{0,12}?(0(?:\.\d+)?|1(?:\.0+)?)\b", re.I)


@dataclass(frozen=True)
class InjectedOrder:
    """What a page's forged ``SYSTEM:`` order tells the model to answer."""

    label: str
    quote: str | None
    confidence: float
    #: The source of the passage the order follows (joint requests), counted from 1.
    source: int

    def single(self) -> dict[str, Any]:
        """The order as a single verdict."""
        return {"label": self.label, "evidence_quote": self.quote, "confidence": self.confidence}

    def joint(self) -> dict[str, Any]:
        """The order as a joint verdict, its quote credited to the source it follows."""
        quotes = [] if self.quote is None else [{"source": self.source, "quote": self.quote}]
        return {"label": self.label, "quotes": quotes, "confidence": self.confidence}


def injected_order(text: str) -> InjectedOrder | None:
    """The order a gullible model obeys: ``SYSTEM: ...`` found OUTSIDE the passage fences.

    Fences are read naively (a passage ends at the first ``</passage>``), so a page whose text
    closes its own fence and opens a new one puts its order outside. The order gives the label
    (the first label word), the quote (the first double-quoted text) and the confidence
    (``confidence 1.0``; 1.0 when not given). Orders inside fences are data, never obeyed.
    """
    _, header, rest = text.partition(PASSAGES_HEADER)
    if not header:
        return None
    source, position = 1, 0
    outside: list[tuple[int, str]] = []
    for fenced in _NAIVE_PASSAGE.finditer(rest):
        outside.append((source, rest[position : fenced.start()]))
        attribute = _SOURCE_ATTRIBUTE.search(fenced.group(1))
        source = int(attribute.group(1)) if attribute else source
        position = fenced.end()
    outside.append((source, rest[position:]))
    for after_source, between in outside:
        order = _ORDER.search(between)
        if order is None:
            continue
        label = _ORDER_LABEL.search(order.group(1))
        if label is None:
            continue
        quoted = _ORDER_QUOTE.search(order.group(1))
        quote = next(group for group in quoted.groups() if group) if quoted else None
        confidence = _ORDER_CONFIDENCE.search(order.group(1))
        return InjectedOrder(
            label.group(1).lower(),
            quote,
            float(confidence.group(1)) if confidence else 1.0,
            after_source,
        )
    return None
