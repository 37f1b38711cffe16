"""The engine's retrieval as rankers for the dev sets' own scorers (``--ranker``), so that the
same figures can be taken on data this project has not seen:

    python ../shared/data/wice-dev/score_retrieval.py --no-project \\
        --ranker benchmarks/rankers.py:hybrid

A ranker is ``f(claim, passages) -> passage indices, best first``. ``hybrid`` is what the
verifier does with its default setting (the embedder by language, BM25 and best-window
scores fused); ``bm25`` is the engine's BM25 alone. Vectors are cached on disk in the folder
``CITATIONS_BENCH_CACHE`` names, when set.
"""

from __future__ import annotations

import functools
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pytest_citations.retrieval.bm25 import BM25
from pytest_citations.retrieval.embedders import DEFAULT_EMBEDDING_MODEL
from pytest_citations.retrieval.ranking import order
from pytest_citations.retrieval.retriever import Retriever


@functools.lru_cache(maxsize=1)
def _retriever() -> Retriever:
    folder = os.environ.get("CITATIONS_BENCH_CACHE")
    model = os.environ.get("CITATIONS_EMBEDDING_MODEL") or DEFAULT_EMBEDDING_MODEL
    return Retriever.named(model, Path(folder) if folder else None)


def hybrid(claim: str, passages: list[str]) -> list[int]:
    """The engine's ranking of the passages for the claim."""
    retriever = _retriever()
    return retriever.rank(claim, retriever.index(passages))


def bm25(claim: str, passages: list[str]) -> list[int]:
    """The engine's BM25 alone."""
    return order(BM25(passages).scores(claim))
