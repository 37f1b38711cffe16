"""The embedding cache: no text is embedded twice, in memory for the run and, with a folder,
on disk across runs (:mod:`.store`)."""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from .base import Embedder, Traits, Vectors
from .store import VectorStore


def text_key(text: str) -> str:
    """The cache key of a text: its SHA-256."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class EmbeddingCache:
    """Wraps an embedder so that no text is embedded twice: in memory for the run, and on
    disk across runs when a folder is given. Thread-safe; missing texts go to the model
    in one batch."""

    def __init__(self, embedder: Embedder, folder: Path | None = None) -> None:
        self.embedder = embedder
        self.name = embedder.name
        #: What retrieval reads of the embedder (the cache passes every trait through).
        self.traits = Traits(embedder)
        self._memory: dict[str, Vectors] = {}
        self._lock = threading.Lock()
        self._store = VectorStore.open(folder) if folder is not None else None
        #: The size of the embedder's vectors, once it made one: a stored vector of another
        #: size is not this model's, whatever the file says.
        self._size: int | None = None
        self.computed = 0

    def embed(self, texts: Sequence[str]) -> Vectors:
        """Vectors for ``texts``, computing only those never seen before."""
        return self._embed(texts, self.embedder.embed, "")

    def embed_queries(self, texts: Sequence[str]) -> Vectors:
        """Vectors for claims: the embedder's ``embed_queries`` when it has one (e5 embeds a
        query unlike a passage), else :meth:`embed`."""
        queries = self.traits.embed_queries
        if queries is None:
            return self.embed(texts)
        return self._embed(texts, queries, "query\0")

    def _embed(
        self, texts: Sequence[str], compute: Callable[[Sequence[str]], Vectors], role: str
    ) -> Vectors:
        if not texts:
            return np.zeros((0, 0), dtype=np.float32)
        keys = [text_key(role + text) for text in texts]
        with self._lock:
            missing = {
                key: text for key, text in zip(keys, texts, strict=True) if not self._fits(key)
            }
            if self._store is not None and missing:
                self._memory.update(self._store.get(self.name, list(missing)))
            # Twice: a vector read before the model's size was known may prove of another
            # size once the model made one (the file lied, and the store sets it aside).
            for _ in range(2):
                todo = [(key, text) for key, text in missing.items() if not self._fits(key)]
                self._compute(todo, compute)
            return np.stack([self._memory[key] for key in keys])

    def _fits(self, key: str) -> bool:
        """Whether the vector of ``key`` is at hand, of the embedder's size when known."""
        vector = self._memory.get(key)
        return vector is not None and (self._size is None or vector.size == self._size)

    def _compute(
        self, todo: list[tuple[str, str]], compute: Callable[[Sequence[str]], Vectors]
    ) -> None:
        if not todo:
            return
        computed = compute([text for _, text in todo])
        fresh = {key: computed[row] for row, (key, _) in enumerate(todo)}
        self.computed += len(todo)
        self._memory.update(fresh)
        self._size = computed.shape[1]
        if self._store is not None:
            self._store.put(self.name, fresh)

    def close(self) -> None:
        """Close the disk cache."""
        if self._store is not None:
            self._store.release()
            self._store = None
