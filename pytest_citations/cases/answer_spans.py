"""Where each claim stands in its case's answer, found once when the case file is read so
that every report marks the same characters: the provider's span (``span:``, written by
``pytest-citations import``) when the answer holds it, else the claim's own text, else the
sentence it was rewritten from (``from:``), else nothing. A claim is looked for as the
answer writes it, less what a claim's text never holds: runs of white space count as one
space, the citation markers (``[1]``, ``[1, 3]``) are skipped, and so is a space before a
closing punctuation mark (``°C [1].`` reads ``°C.``). The span found is the answer's own
characters, as offsets into the answer as every output shows it: without control sequences
(:mod:`pytest_citations.sanitize` takes them out of every text a case file gives). Each
claim takes the first occurrence no earlier claim has taken, so a sentence the answer
repeats marks each of its claims once."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from ..sanitize import strip_controls
from .model import Claim

_MARKER = re.compile(r"\[\s*\d+(?:\s*[,;–-]\s*\d+)*\s*\]")
_CLOSING = frozenset(".,;:!?")

Span = tuple[int, int]


def _normalised(text: str, offsets: bool) -> tuple[str, list[int]]:
    """``text`` as claims are compared (see the module), and for each of its characters the
    offset in ``text`` it came from (only when ``offsets``: a claim's text needs none)."""
    skipped = {i for m in _MARKER.finditer(text) for i in range(m.start(), m.end())}
    kept: list[tuple[str, int]] = []
    for index, character in enumerate(text):
        if index in skipped:
            continue
        if character.isspace():
            if kept and kept[-1][0] != " ":
                kept.append((" ", index))
            continue
        if character in _CLOSING and kept and kept[-1][0] == " ":
            kept.pop()
        kept.append((character, index))
    while kept and kept[-1][0] == " ":
        kept.pop()
    return "".join(c for c, _ in kept), [i for _, i in kept] if offsets else []


def _occurrences(haystack: str, needle: str) -> list[int]:
    found, start = [], haystack.find(needle)
    while needle and start >= 0:
        found.append(start)
        start = haystack.find(needle, start + 1)
    return found


def find_span(answer: str, text: str, taken: Sequence[Span] = ()) -> Span | None:
    """Where ``text`` stands in ``answer`` (see the module): the first occurrence that
    overlaps none of the spans ``taken``; None when there is none."""
    return _find(_normalised(answer, True), text, taken)


def _find(answer: tuple[str, list[int]], text: str, taken: Sequence[Span]) -> Span | None:
    plain, offsets = answer
    wanted = _normalised(text, False)[0].strip()
    for start in _occurrences(plain, wanted):
        span = (offsets[start], offsets[start + len(wanted) - 1] + 1)
        if not any(span[0] < end and begin < span[1] for begin, end in taken):
            return span
    return None


def place_claims(answer: str | None, claims: Sequence[Claim]) -> tuple[Claim, ...]:
    """``claims`` with their :attr:`~.model.Claim.answer_span` set: the provider's span when
    the answer holds it, else the claim's text, else its ``from:`` sentence, else None (and
    None for all without an answer)."""
    if not answer or not answer.strip():
        return tuple(claims)
    read = _normalised(strip_controls(answer), True)
    taken: list[Span] = []
    placed = []
    for claim in claims:
        span = None
        for text in (claim.span, claim.text, claim.sentence):
            span = span or (_find(read, text, taken) if text else None)
        if span is not None:
            taken.append(span)
        placed.append(replace(claim, answer_span=span))
    return tuple(placed)


__all__ = ["Span", "find_span", "place_claims"]
