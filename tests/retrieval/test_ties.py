"""Ties in ranking are decided the same way on every machine: cosine similarities differ by
about 2e-7 between CPU kernels (``ATEN_CPU_CAPABILITY``), thread counts and batch
compositions, so scores closer than ``TIE_TOLERANCE`` are a tie, and a tie goes to the earlier
passage (R2). Otherwise a recording made on one machine sends the judge passages that a
replay on another never asks for."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Sequence

import numpy as np
import pytest

from pytest_citations.retrieval.embedders.base import Vectors
from pytest_citations.retrieval.embedders.hashed import LexicalEmbedder
from pytest_citations.retrieval.index import build_index
from pytest_citations.retrieval.passages import split_passages
from pytest_citations.retrieval.ranking import TIE_TOLERANCE, rank_passages

#: One paragraph, and the same paragraph again in another letter case: the same words to
#: BM25 and to an uncased model, so their true scores are equal.
PARAGRAPH = (
    "The reservoir holds 4,200 cubic metres of water and supplies the northern district with "
    "drinking water throughout the dry season, according to the water board. "
) * 5
FILLER = [
    f"Paragraph {n} is about the history of the town hall, its clock tower and the market "
    f"square where traders met every {n % 7 + 1} days to sell grain and wool. " * 5
    for n in range(12)
]
PAGE = "\n\n".join([*FILLER[:4], PARAGRAPH, *FILLER[4:8], PARAGRAPH.upper(), *FILLER[8:]])
CLAIM = "The reservoir supplies drinking water to the northern district in the dry season."


class Noisy:
    """A bag-of-words embedder whose vectors carry the noise another CPU kernel adds."""

    name = "noisy-lexical"
    window = None

    def __init__(self, seed: int) -> None:
        self._inner = LexicalEmbedder()
        self._noise = np.random.default_rng(seed)

    def embed(self, texts: Sequence[str]) -> Vectors:
        vectors = self._inner.embed([text.lower() for text in texts])
        noise = self._noise.normal(0.0, 2e-7, vectors.shape).astype(np.float32)
        return vectors + noise


def test_noise_never_reorders_passages_whose_scores_tie() -> None:
    passages = split_passages(PAGE)
    tied = [i for i, passage in enumerate(passages) if "reservoir" in passage.lower()]
    assert len(tied) == 2
    orders = []
    for seed in range(8):
        embedder = Noisy(seed)
        index = build_index(passages, embedder)
        claim = embedder.embed([CLAIM])[0]
        orders.append(rank_passages(CLAIM, claim, index))

    assert all(order == orders[0] for order in orders), orders
    assert orders[0][:2] == tied  # the tie goes to the earlier passage


def test_the_tolerance_is_far_above_the_noise_and_far_below_real_differences() -> None:
    assert 1e-6 < TIE_TOLERANCE <= 1e-3


#: Retrieval with all-MiniLM-L6-v2 in a fresh process: the passages the judge is sent.
SCRIPT = """
import json, sys
from pytest_citations.retrieval.embedders import make_embedder
from pytest_citations.retrieval.embedders.cache import EmbeddingCache
from pytest_citations.retrieval.passages import split_passages
from pytest_citations.retrieval import Retriever
page, claims = json.loads(sys.stdin.read())
retriever = Retriever(make_embedder("all-MiniLM-L6-v2"))
retriever.warm(claims[1:])  # another batch composition for every claim but the first
index = retriever.index(split_passages(page))
print(json.dumps([retriever.select(claim, index) for claim in claims]))
"""


@pytest.mark.parametrize(
    "machine",
    [{"ATEN_CPU_CAPABILITY": "default"}, {"OMP_NUM_THREADS": "1"}],
    ids=["default-kernel", "one-thread"],
)
def test_minilm_sends_the_judge_the_same_passages_on_another_machine(
    machine: dict[str, str],
) -> None:
    """The same page ranked by the real model under the default CPU kernel and another one
    (or one thread): the judge is sent the same passages, tied ones in page order."""
    claims = [CLAIM, "The northern district gets its drinking water from the reservoir.", CLAIM]
    stdin = json.dumps([PAGE, claims])

    def selected(extra: dict[str, str]) -> list[list[str]]:
        env = {**os.environ, **extra}
        done = subprocess.run(
            [sys.executable, "-c", SCRIPT], input=stdin, env=env, capture_output=True,
            text=True, timeout=300, check=True,
        )  # fmt: skip
        loaded: list[list[str]] = json.loads(done.stdout)
        return loaded

    here, there = selected({}), selected(machine)

    assert here == there
    for chosen in here:
        tied = [passage for passage in chosen if "reservoir" in passage.lower()]
        assert tied[0].startswith("The reservoir")  # the earlier, lower-case one first
