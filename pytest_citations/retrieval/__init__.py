"""Retrieval (R1–R3): from a fetched page to the texts the judge is shown.

In pipeline order, one module each:

- :mod:`.passages`: the page split into passages of about 200 words (R1);
- :mod:`.writing` and :mod:`.languages`: how much text a stretch of a writing system holds,
  where its sentences end, and which texts are in English (which embedder reads them);
- :mod:`.bm25`: Okapi BM25 over a page's passages, the lexical signal;
- :mod:`.embedders`: the embedding models behind one protocol and a registry, and the cache
  that never embeds a text twice;
- :mod:`.index`: a page's passages embedded and indexed, ready to rank;
- :mod:`.ranking`: the signals fused, ties decided, and the passages selected for the judge;
- :mod:`.evidence`, :mod:`.head` and :mod:`.choosing`: the page's lines, scored for the claim
  by a small head over what ranking computed, and chosen under a word budget: what the
  judge is shown by default (:mod:`.selection`: as a recording keeps it);
- :mod:`.retriever`: the embedder chosen per page and claim, and the whole step in one call;
- :mod:`.worker`: the one thread that runs the model, ranking before indexing.
"""

from __future__ import annotations

from .index import PageIndex, build_index
from .passages import DEFAULT_MAX_WORDS, split_passages
from .ranking import (
    DEFAULT_TOP_K,
    TIE_TOLERANCE,
    dense_scores,
    fuse,
    order,
    rank_passages,
    select,
    straddling_neighbour,
)
from .retriever import Retriever

__all__ = [
    "DEFAULT_MAX_WORDS",
    "DEFAULT_TOP_K",
    "TIE_TOLERANCE",
    "PageIndex",
    "Retriever",
    "build_index",
    "dense_scores",
    "fuse",
    "order",
    "rank_passages",
    "select",
    "split_passages",
    "straddling_neighbour",
]
