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
- :mod:`.lines`, :mod:`.evidence`, :mod:`.head` and :mod:`.choosing`: the page's lines,
  scored for the claim by a small head over what ranking computed, and chosen under a word
  budget: what the judge is shown by default (:mod:`.selection`: as a recording keeps it;
  :mod:`.validity`: whether a recorded choice is one retrieval makes);
- :mod:`.retriever`: the embedder chosen per page and claim, and the whole step in one call;
- :mod:`.worker`: the one thread that runs the model, ranking before indexing.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from .passages import DEFAULT_MAX_WORDS, DEFAULT_TOP_K, split_passages

if TYPE_CHECKING:
    from .index import PageIndex, build_index
    from .ranking import (
        TIE_TOLERANCE,
        dense_scores,
        fuse,
        order,
        rank_passages,
        select,
        straddling_neighbour,
    )
    from .retriever import Retriever

#: The names of the model side (numpy, the embedders), by module: imported when first
#: named, so that a run which recalls every choice from its recording (a replay) loads
#: none of it.
_MODEL_SIDE = {
    "PageIndex": "index",
    "build_index": "index",
    "TIE_TOLERANCE": "ranking",
    "dense_scores": "ranking",
    "fuse": "ranking",
    "order": "ranking",
    "rank_passages": "ranking",
    "select": "ranking",
    "straddling_neighbour": "ranking",
    "Retriever": "retriever",
}


def __getattr__(name: str) -> object:
    module = _MODEL_SIDE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{module}"), name)


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
