"""Ranking passages against a claim (R2, R3): hybrid retrieval.

Three signals, all over one page's passages:

* lexical: Okapi BM25 (:mod:`~pytest_citations.retrieval.bm25`), which finds the names, numbers and
  rare words a claim shares with its evidence;
* dense: cosine similarity of embeddings. A passage is embedded whole: as itself when the
  model reads it all, else one vector per window of the model's reach (half-overlapping,
  over the passage's full length), and the passage scores by its best window, so no tail
  goes unread. An embedder that says ``by_sentence`` (multilingual-e5-small) gets one
  vector per sentence instead, and the passage scores by its best sentence; one that names
  the scripts it ``reads`` leaves a page in any other script to BM25 alone;
* junctions: a window across each boundary of the top passage. When it beats the windows
  of the same size just before and just after the boundary, the evidence is cut in two
  there, and the judge sees the neighbour too, beside the ``top_k`` passages.

Lexical and dense scores are standardised over the page and added (:func:`fuse`), the
lexical one weighted by the share of the claim's terms the page contains at all and the
dense one by the rest (neither below 0.1): a page in the claim's language (about three
quarters of a claim's terms on WiCE) leans on BM25, an English claim against a German page,
where BM25 can only match names and numbers, on the embedding. Fusing the standardised
scores keeps how far apart the passages are, which reciprocal rank fusion throws away
(benchmarks/README.md compares the two). Scores within :data:`TIE_TOLERANCE` of each other
are a tie, which goes to the earlier passage. The judge sees the first ``top_k`` passages
of the fused order (and a straddled neighbour), adjacent ones joined into one slice of the
page so that a quote may run across their boundary (:func:`select`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np

from .embedders.base import Vectors
from .index import LEXICAL_FLOOR, PageIndex
from .passages import DEFAULT_TOP_K
from .writing import ends_sentence

#: Scores closer than this are a tie, decided by page order. Cosine similarities differ by
#: about 2e-7 between CPU kernels, thread counts and batch compositions, up to 1e-5 once
#: standardised over a page whose passages score alike; a tie decided on such noise would
#: send the judge other passages on another machine (and a replay would miss its recorded
#: call). Passages that really differ in relevance are orders of magnitude further apart.
TIE_TOLERANCE = 1e-4


def order(scores: Sequence[float]) -> list[int]:
    """Indices best first. Scores within :data:`TIE_TOLERANCE` of the score before them form
    one group of ties, in page order, so that noise never reorders them."""
    ranked = sorted(range(len(scores)), key=lambda index: (-scores[index], index))
    groups: list[list[int]] = []
    for index in ranked:
        if groups and scores[groups[-1][-1]] - scores[index] <= TIE_TOLERANCE:
            groups[-1].append(index)
        else:
            groups.append([index])
    return [index for group in groups for index in sorted(group)]


def dense_scores(claim_vector: Vectors, index: PageIndex) -> list[float]:
    """Each passage's best window's cosine with the claim."""
    best = [-math.inf] * len(index.passages)
    if len(index.vectors) == 0:
        return [0.0] * len(index.passages)
    similarities = index.vectors @ np.asarray(claim_vector).reshape(-1)
    for owner, similarity in zip(index.owners, similarities, strict=True):
        best[owner] = max(best[owner], float(similarity))
    return best


def best_window(claim_vector: Vectors, index: PageIndex, passage: int) -> float:
    """One passage's entry of :func:`dense_scores`, without scoring the rest of the page."""
    if len(index.vectors) == 0:
        return 0.0
    rows = [row for row, owner in enumerate(index.owners) if owner == passage]
    if not rows:
        return -math.inf
    return float((index.vectors[rows] @ np.asarray(claim_vector).reshape(-1)).max())


def _standardised(scores: Sequence[float]) -> list[float]:
    """Scores shifted and scaled to mean 0 and standard deviation 1 over the page (all 0
    when they are all equal: the signal cannot tell the passages apart)."""
    if not scores:
        return []
    mean = sum(scores) / len(scores)
    spread = math.sqrt(sum((score - mean) ** 2 for score in scores) / len(scores))
    if spread == 0:
        return [0.0] * len(scores)
    return [(score - mean) / spread for score in scores]


def fuse(
    lexical: Sequence[float],
    dense: Sequence[float],
    coverage: float,
    ceiling: float = 1.0 - LEXICAL_FLOOR,
) -> list[float]:
    """One score per passage: the lexical and dense scores, each standardised over the page,
    weighted ``w`` and ``1 - w``, where ``w`` follows ``coverage``, the share of the claim's
    terms the page contains (:meth:`~pytest_citations.retrieval.bm25.BM25.coverage`), from
    :data:`LEXICAL_FLOOR` to ``ceiling`` (lower beside a stronger embedder). BM25 can only
    judge the words a page shares with the claim: a page in the claim's language with its
    names and numbers leans on BM25, a page in another language on the embedding, and
    neither decides alone."""
    weight = LEXICAL_FLOOR + (ceiling - LEXICAL_FLOOR) * min(1.0, max(0.0, coverage))
    return [
        weight * word + (1.0 - weight) * meaning
        for word, meaning in zip(_standardised(lexical), _standardised(dense), strict=True)
    ]


def passage_signals(
    claim: str, claim_vector: Vectors | None, index: PageIndex
) -> tuple[list[float], list[float], float]:
    """What :func:`passage_scores` fuses: each passage's BM25 and best-window score (0
    without a claim vector, or where the embedder reads the claim or the page not), and the
    share of the claim's terms the page holds."""
    if claim_vector is not None and index.readable(claim):
        dense = dense_scores(claim_vector, index)
    else:
        dense = [0.0] * len(index.passages)
    return index.lexical.scores(claim), dense, index.lexical.coverage(claim)


def passage_scores(claim: str, claim_vector: Vectors | None, index: PageIndex) -> list[float]:
    """Each passage's score: BM25 and best-window scores fused (BM25 alone without a claim
    vector, or where the embedder reads the claim or the page not)."""
    if index.empty:
        return []
    lexical, dense, coverage = passage_signals(claim, claim_vector, index)
    return fuse(lexical, dense, coverage, index.ceiling)


def rank_passages(claim: str, claim_vector: Vectors | None, index: PageIndex) -> list[int]:
    """Every passage of the page, best first (:func:`passage_scores`, ties in page order)."""
    return order(passage_scores(claim, claim_vector, index))


def straddling_neighbour(
    claim_vector: Vectors,
    index: PageIndex,
    passage: int,
    embed: Callable[[Sequence[str]], Vectors],
) -> int | None:
    """The neighbour of ``passage`` that its evidence runs into, if it does: their boundary
    falls inside a sentence (a paragraph longer than a passage, cut by R1), and the window
    across it matches the claim better than every window of ``passage`` and than the windows
    of the same size just before and just after it. The boundary after the passage is tried
    first. Boundaries at a sentence end cost nothing: evidence does not straddle them."""
    inside = best_window(claim_vector, index, passage)
    claim = np.asarray(claim_vector).reshape(-1)
    for boundary, neighbour in ((passage, passage + 1), (passage - 1, passage - 1)):
        if not 0 <= boundary < len(index.passages) - 1 or ends_sentence(index.passages[boundary]):
            continue
        across, left, right = (float(score) for score in embed(index.junction(boundary)) @ claim)
        if across > max(inside, left, right) + TIE_TOLERANCE:  # a near tie is no straddle
            return neighbour
    return None


def select_runs(
    order: Sequence[int], k: int = DEFAULT_TOP_K, neighbour: int | None = None
) -> list[list[int]]:
    """The passages the judge is shown, as runs of neighbouring passages, best first: the
    first ``k`` of ``order``, and the top passage's ``neighbour`` when the evidence runs
    into it; passages that are neighbours on the page make one run, so that a quote running
    across their boundary is still a slice of one."""
    chosen = list(order[:k])
    if neighbour is not None and neighbour not in chosen and chosen:
        chosen.insert(1, neighbour)
    runs: list[list[int]] = []
    for passage in sorted(chosen):
        if runs and runs[-1][-1] == passage - 1:
            runs[-1].append(passage)
        else:
            runs.append([passage])
    runs.sort(key=lambda run: min(chosen.index(passage) for passage in run))
    return runs


def select(
    order: Sequence[int],
    passages: Sequence[str],
    k: int = DEFAULT_TOP_K,
    neighbour: int | None = None,
) -> list[str]:
    """The texts of :func:`select_runs`: the passages of a run joined by a blank line, as
    between paragraphs."""
    return ["\n\n".join(passages[p] for p in run) for run in select_runs(order, k, neighbour)]
