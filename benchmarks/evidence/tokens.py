"""MiniLM's token embeddings (the transformer's last layer, before mean pooling), with the
character offsets of each word piece, kept on disk so a text is run through the model once.

The pooled vector the engine uses is the mean of exactly these rows (attention mask, special
tokens included) normalised; :func:`check_pooling` verifies it against ``model.encode``. So
late interaction (MaxSim) and sentence vectors pooled inside a passage's own window cost no
forward pass beyond the one the engine already makes: only keeping rows it now throws away.
"""

from __future__ import annotations

import hashlib
import sqlite3
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from pytest_citations.retrieval.embedders import DEFAULT_EMBEDDING_MODEL
from pytest_citations.retrieval.embedders.minilm import (
    _load_sentence_transformer,
    resolve_model_path,
)

BATCH = 32
MAX_TOKENS = 256
Tokens = tuple[np.ndarray, np.ndarray]  # (rows float16 [n, 384], offsets int32 [n, 2])


def _model() -> Any:
    return _load_sentence_transformer(resolve_model_path(DEFAULT_EMBEDDING_MODEL))


def forward(texts: Sequence[str]) -> list[Tokens]:
    """Token rows and offsets of each text (padding dropped, special tokens kept)."""
    import torch

    model = _model()
    encoder = model[0].auto_model
    encoded = model.tokenizer(
        list(texts),
        padding=True,
        truncation=True,
        max_length=MAX_TOKENS,
        return_offsets_mapping=True,
        return_tensors="pt",
    )
    offsets = encoded.pop("offset_mapping").numpy().astype(np.int32)
    with torch.no_grad():
        hidden = encoder(**encoded).last_hidden_state.numpy()
    lengths = encoded["attention_mask"].sum(1).numpy()
    return [(hidden[row, :n].astype(np.float16), offsets[row, :n]) for row, n in enumerate(lengths)]


class TokenStore:
    """Token embeddings by text, in an SQLite file (``tokens.sqlite``) in ``folder``."""

    def __init__(self, folder: Path) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(folder / "tokens.sqlite", timeout=60)
        self._db.execute(
            "CREATE TABLE IF NOT EXISTS tokens (key TEXT PRIMARY KEY, n INTEGER, "
            "rows BLOB, offsets BLOB)"
        )
        self.computed = 0

    @staticmethod
    def key(text: str) -> str:
        return hashlib.sha256(text.encode("utf-8")).hexdigest()

    def get(self, texts: Sequence[str], label: str = "") -> list[Tokens]:
        """Tokens of every text, computing the missing ones (longest first, in batches)."""
        keys = [self.key(text) for text in texts]
        found: dict[str, Tokens] = {}
        unique = list(dict.fromkeys(keys))
        for start in range(0, len(unique), 500):
            chunk = unique[start : start + 500]
            marks = ",".join("?" * len(chunk))
            for key, n, rows, offsets in self._db.execute(
                f"SELECT key, n, rows, offsets FROM tokens WHERE key IN ({marks})", chunk
            ):
                found[key] = (
                    np.frombuffer(rows, np.float16).reshape(n, -1),
                    np.frombuffer(offsets, np.int32).reshape(n, 2),
                )
        todo = list({k: t for k, t in zip(keys, texts, strict=True) if k not in found}.items())
        todo.sort(key=lambda item: -len(item[1]))
        started = time.perf_counter()
        for start in range(0, len(todo), BATCH):
            batch = todo[start : start + BATCH]
            results = forward([text for _, text in batch])
            rows = []
            for (key, _), (vectors, offsets) in zip(batch, results, strict=True):
                found[key] = (vectors, offsets)
                rows.append((key, len(vectors), vectors.tobytes(), offsets.tobytes()))
            self._db.executemany("INSERT OR REPLACE INTO tokens VALUES (?, ?, ?, ?)", rows)
            self._db.commit()
            self.computed += len(batch)
            if (start // BATCH) % 50 == 49:
                rate = (start + len(batch)) / (time.perf_counter() - started)
                print(
                    f"  tokens {label}: {start + len(batch)}/{len(todo)} ({rate:.1f} texts/s)",
                    file=sys.stderr,
                )
        return [found[key] for key in keys]

    def close(self) -> None:
        self._db.close()


def pooled(tokens: Tokens) -> np.ndarray:
    """The sentence vector of a text from its token rows (mean, normalised)."""
    rows = tokens[0].astype(np.float32)
    vector = rows.mean(axis=0)
    return vector / (np.linalg.norm(vector) or 1.0)


def check_pooling(texts: Sequence[str]) -> float:
    """Largest difference between pooled token rows and ``model.encode``."""
    reference = _model().encode(list(texts), normalize_embeddings=True)
    mine = np.stack([pooled(t) for t in forward(texts)])
    return float(np.abs(mine - reference).max())
