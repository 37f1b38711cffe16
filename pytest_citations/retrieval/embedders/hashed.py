"""A hashed bag of words: deterministic, instant, no model (``lexical``)."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence

import numpy as np

from .base import Vectors, normalise

_WORD = re.compile(r"\w+", re.UNICODE)


class LexicalEmbedder:
    """Hashed bag of words: deterministic, instant, no model. For tests of everything around
    retrieval, and for machines that cannot run a transformer; it ranks by shared words."""

    name = "lexical"
    #: The hashing is this package's own: its version is that of the algorithm.
    version = "lexical 1"
    requires: tuple[str, ...] = ()
    #: A bag of words reads any length.
    window: float | None = None

    def __init__(self, dimensions: int = 1024) -> None:
        self.dimensions = dimensions

    def embed(self, texts: Sequence[str]) -> Vectors:
        """One hashed count vector per text, normalised."""
        matrix = np.zeros((len(texts), self.dimensions), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in _WORD.findall(text.lower()):
                digest = hashlib.blake2b(word.encode(), digest_size=8).digest()
                matrix[row, int.from_bytes(digest, "little") % self.dimensions] += 1.0
        return normalise(matrix)
