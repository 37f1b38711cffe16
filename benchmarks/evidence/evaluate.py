"""Scoring a route: what it sends the judge for each WiCE claim, and whether one whole gold
set is inside (all@judge), on all claims and on pages of more than 5 passages, with any@1
(the route's best unit holds a gold sentence) and the words the judge receives.

A route is ``f(claim, signals) -> Sent``: the texts (exact slices of the page, in the order
the judge reads them), the word ranges they cover, and the word ranges of the first text
(any@1: the first text the judge reads holds a gold sentence; for today's selection that is
the top passage, with any neighbour joined to it).
"""

from __future__ import annotations

import bisect
import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from benchmarks.evidence.data import Claim, Span, words
from benchmarks.evidence.signals import Signals, word_starts
from pytest_citations import retrieval
from pytest_citations.retrieval.passages import page_text
from pytest_citations.retrieval.selection import Selection


@dataclass
class Sent:
    texts: list[str]
    ranges: list[Span]
    first: list[Span]


Route = Callable[[Claim, Signals], Sent]


@dataclass
class Figures:
    name: str
    all_judge: float
    long_all_judge: float
    any_at_1: float
    median_words: float
    mean_words: float
    slices: float
    n: int
    misses: list[str]

    def row(self) -> str:
        return (
            f"| {self.name} | {self.all_judge:.3f} | {self.long_all_judge:.3f} | "
            f"{self.any_at_1:.3f} | {self.median_words:.0f} | {self.mean_words:.0f} | "
            f"{self.slices:.1f} |"
        )


HEADER = (
    "| route | all@judge | long pages | any@1 | median words | mean words | slices |\n"
    "|---|---|---|---|---|---|---|"
)


def score(name: str, route: Route, claims: Sequence[Claim], signals: dict[str, Signals]) -> Figures:
    whole: dict[str, bool] = {}
    first = 0
    counts, slices = [], []
    for claim in claims:
        sent = route(claim, signals[claim.id])
        for text in sent.texts:  # every text must be an exact slice of the page
            if text not in claim.layout.text:
                raise AssertionError(f"{name}: {claim.id} sent text that is not on the page")
        whole[claim.id] = claim.hits(sent.ranges)[0]
        first += claim.hits(sent.first)[1]
        counts.append(words(sent.texts))
        slices.append(len(sent.texts))
    long = [c for c in claims if c.long]
    return Figures(
        name=name,
        all_judge=sum(whole.values()) / len(claims),
        long_all_judge=sum(whole[c.id] for c in long) / max(len(long), 1),
        any_at_1=first / len(claims),
        median_words=statistics.median(counts),
        mean_words=statistics.mean(counts),
        slices=statistics.mean(slices),
        n=len(claims),
        misses=[c.id for c in claims if not whole[c.id]],
    )


def today(k: int = retrieval.DEFAULT_TOP_K, straddle: bool = True) -> Route:
    """The engine's selection: the top ``k`` passages and the straddled neighbour, joined by
    ``retrieval.select``."""

    def route(claim: Claim, s: Signals) -> Sent:
        layout = claim.layout
        neighbour = s.neighbour if straddle else None
        texts = retrieval.select(s.order, layout.passages, k, neighbour)
        chosen = list(s.order[:k])
        if neighbour is not None and neighbour not in chosen:
            chosen.insert(1, neighbour)
        top = [s.order[0]]  # the top passage and the chosen passages joined to it
        while top[0] - 1 in chosen:
            top.insert(0, top[0] - 1)
        while top[-1] + 1 in chosen:
            top.append(top[-1] + 1)
        return Sent(
            texts,
            [layout.passage_words[p] for p in chosen],
            [layout.passage_words[p] for p in top],
        )

    return route


def spans_sent(claim: Claim, spans: list[tuple[int, int]]) -> Sent:
    """A selection given as character spans of the page (the route's ``evidence_spans``)."""
    layout = claim.layout
    ranges = [layout.words_of(span) for span in spans]
    return Sent([layout.text[a:b] for a, b in spans], ranges, ranges[:1])


def selection_sent(markdown: str, selection: Selection | None) -> Sent:
    """What the engine's :class:`Selection` sends for a page (``Retriever.choose``): its
    texts, rebuilt from the page, and the word ranges of their pieces (the page's words are
    the dev set's, in order)."""
    if selection is None:
        return Sent([], [], [])
    starts = word_starts(page_text(markdown))
    ranges = [
        [(bisect.bisect_left(starts, a), bisect.bisect_left(starts, b)) for a, b in shown.pieces]
        for shown in selection.shown
    ]
    texts = selection.texts(page_text(markdown))
    return Sent(texts, [r for held in ranges for r in held], ranges[0])


def sent_score(name: str, sent: dict[str, Sent], claims: Sequence[Claim]) -> Figures:
    """:func:`score` of what was sent for each claim already (by claim id)."""
    unused: dict[str, Any] = {claim.id: None for claim in claims}
    return score(name, lambda claim, _: sent[claim.id], claims, unused)
