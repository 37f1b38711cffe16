"""Ranking passages against a claim (R2, R3)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .embeddings import Vectors

DEFAULT_TOP_K = 3


def rank(claim_vector: Vectors, passage_vectors: Vectors, k: int = DEFAULT_TOP_K) -> list[int]:
    """Indices of the ``k`` passages most similar to the claim; ties go to the earlier one.

    Vectors are L2-normalised, so the dot product is the cosine similarity.
    """
    if k < 1 or len(passage_vectors) == 0:
        return []
    scores = passage_vectors @ np.asarray(claim_vector).reshape(-1)
    order = sorted(range(len(scores)), key=lambda index: (-float(scores[index]), index))
    return order[:k]


def top_k_passages(
    claim_vector: Vectors, passages: Sequence[str], passage_vectors: Vectors, k: int = DEFAULT_TOP_K
) -> list[str]:
    """The ``k`` best passages, most similar first."""
    return [passages[index] for index in rank(claim_vector, passage_vectors, k)]
