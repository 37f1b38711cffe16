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
from bisect import bisect_left, insort
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


def find_span(answer: str, text: str, taken: Sequence[Span] = ()) -> Span | None:
    """Where ``text`` stands in ``answer`` (see the module): the first occurrence that
    overlaps none of the spans ``taken``; None when there is none."""
    placer = _Placer(answer)
    for begin, end in sorted(taken):  # as one set of spans, none overlapping another
        if placer.taken and begin < placer.taken[-1][1]:
            first, last = placer.taken.pop()
            begin, end = first, max(end, last)
        placer.taken.append((begin, end))
    return placer.find(text)


class _Placer:
    """One answer's claims placed in turn. An occurrence a claim skipped (it overlaps a span
    taken) stays taken, so the next claim of the same text resumes after it: thousands of
    claims of one sentence the answer repeats take linear time, not cubic."""

    def __init__(self, answer: str) -> None:
        self.plain, self.offsets = _normalised(answer, True)
        self.taken: list[Span] = []  # sorted, none overlapping
        self.resume: dict[str, int] = {}

    def find(self, text: str) -> Span | None:
        """The first occurrence of ``text`` that overlaps no span taken, taken in turn; None
        when there is none."""
        wanted = _normalised(text, False)[0].strip()
        if not wanted:
            return None
        start = self.plain.find(wanted, self.resume.get(wanted, 0))
        while start >= 0:
            span = (self.offsets[start], self.offsets[start + len(wanted) - 1] + 1)
            if not self._overlaps(span):
                self.resume[wanted] = start + 1
                insort(self.taken, span)
                return span
            start = self.plain.find(wanted, start + 1)
        self.resume[wanted] = len(self.plain)
        return None

    def _overlaps(self, span: Span) -> bool:
        at = bisect_left(self.taken, span)
        return any(
            begin < span[1] and span[0] < end for begin, end in self.taken[max(at - 1, 0) : at + 1]
        )


def place_claims(answer: str | None, claims: Sequence[Claim]) -> tuple[Claim, ...]:
    """``claims`` with their :attr:`~.model.Claim.answer_span` set: the provider's span when
    the answer holds it, else the claim's text, else its ``from:`` sentence, else None (and
    None for all without an answer)."""
    if not answer or not answer.strip():
        return tuple(claims)
    placer = _Placer(strip_controls(answer))
    placed = []
    for claim in claims:
        span = None
        for text in (claim.span, claim.text, claim.sentence):
            span = span or (placer.find(text) if text else None)
        placed.append(replace(claim, answer_span=span))
    return tuple(placed)


__all__ = ["Span", "find_span", "place_claims"]
