"""A page's passages ready to rank: embedded whole or window by window (or sentence by
sentence), and indexed for BM25."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from .bm25 import BM25
from .embedders.base import DEFAULT_WINDOW, Embedder, Traits, Vectors
from .passages import Passage, Span
from .writing import edge, script_of, script_of_claim, sentences, units, windows

#: Neither signal weighs less than this: a page holding every word of the claim still lets
#: meaning speak, and a page sharing none still lets a shared name count. 0.1 measured as
#: well as 0 on both development sets (WiCE all@3 0.931 against 0.928; XQuAD within 0.01 in
#: every language), 0.2 and 0.25 a little worse.
LEXICAL_FLOOR = 0.1


@dataclass(frozen=True)
class PageIndex:
    """A page's passages, ready to rank: window vectors and BM25."""

    passages: list[str]
    #: Name of the embedder the vectors come from: claims must be embedded with it too.
    embedder: str
    #: One row per window, in passage order; ``owners[i]`` is the passage of row ``i``.
    vectors: Vectors
    owners: tuple[int, ...]
    lexical: BM25
    #: The page's script (:func:`~pytest_citations.retrieval.writing.script_of`) and the scripts the
    #: embedder reads (None: all); in any other, its vectors are noise and BM25 ranks alone.
    script: str = "LATIN"
    reads: frozenset[str] | None = None
    #: BM25's highest weight in :func:`fuse` (the embedder's ``lexical_ceiling``).
    ceiling: float = 1.0 - LEXICAL_FLOOR
    #: The embedder's reach in units: the size of the windows around a boundary.
    reach: float = DEFAULT_WINDOW
    #: Each passage's pieces of the page text (empty for an index of bare texts).
    pieces: tuple[tuple[Span, ...], ...] = ()

    def junction(self, boundary: int) -> tuple[str, str, str]:
        """The text across the boundary after passage ``boundary`` (the end of that passage
        and the start of the next), and the windows of the same size just before and just
        after the boundary. Built only when a claim's top passage borders it."""
        head, tail = self.passages[boundary], self.passages[boundary + 1]
        across = (
            edge(head, self.reach / 2, head=False) + " " + edge(tail, self.reach / 2, head=True)
        )
        return across, edge(head, self.reach, head=False), edge(tail, self.reach, head=True)

    def readable(self, claim: str) -> bool:
        """Whether the embedder reads both the page and the claim."""
        return self.reads is None or {self.script, script_of_claim(claim)} <= self.reads

    @property
    def empty(self) -> bool:
        """True for a page without passages."""
        return not self.passages


def traits_of(embedder: Embedder) -> Traits:
    """What retrieval reads of an embedder (a cache hands over its model's traits)."""
    held = getattr(embedder, "traits", None)
    return held if isinstance(held, Traits) else Traits(embedder)


def reaches(passages: Sequence[str], embedder: Embedder) -> list[float | None]:
    """The window size, in units, for each passage (None: embed it whole). An embedder with a
    tokenizer (``token_counts`` and ``max_tokens``) embeds a passage whole when it fits, and
    otherwise in windows sized by that passage's own word pieces per unit, so the rule is
    the same in every script; one without uses its ``window`` (None: it reads any length)."""
    traits = traits_of(embedder)
    size, count = traits.window, traits.token_counts
    limit = traits.max_tokens if count is not None else None
    if size is None or not passages:
        return [None] * len(passages)
    if count is None or limit is None:
        return [size] * len(passages)
    found: list[float | None] = []
    for passage, tokens in zip(passages, count(passages), strict=True):
        if tokens <= limit:
            found.append(None)
        else:  # 10% to spare: word pieces do not spread evenly over a passage
            found.append(max(1.0, 0.9 * units(passage) * limit / tokens))
    return found


def pieces(passages: Sequence[str], embedder: Embedder) -> tuple[list[str], list[int]]:
    """What the embedder reads of each passage, and the passage of each piece: its sentences
    when the embedder scores a passage by its best sentence (``by_sentence``), else the
    passage whole or window by window where it is longer than the model reads."""
    texts: list[str] = []
    owners: list[int] = []
    traits = traits_of(embedder)
    if traits.by_sentence:
        size = traits.window
        units_of = [
            [w for s in sentences(passage) or [passage] for w in windows(s, size)]
            for passage in passages
        ]
    else:
        units_of = [
            windows(passage, size)
            for passage, size in zip(passages, reaches(passages, embedder), strict=True)
        ]
    for index, found in enumerate(units_of):
        texts.extend(found)
        owners.extend([index] * len(found))
    return texts, owners


def build_index(passages: Sequence[str] | Sequence[Passage], embedder: Embedder) -> PageIndex:
    """Embed a page's passages (:func:`pieces`) and index them for BM25. A page in a script
    the embedder does not read is not embedded at all: BM25 ranks it alone. Passages with
    their pieces of the page (:func:`~.passages.split_spans`) keep them in the index."""
    texts = [p.text if isinstance(p, Passage) else p for p in passages]
    spans = tuple(p.pieces for p in passages if isinstance(p, Passage))
    script = script_of("\n".join(texts))
    traits = traits_of(embedder)
    reads = traits.reads
    embedded, owners = pieces(texts, embedder) if reads is None or script in reads else ([], [])
    return PageIndex(
        passages=texts,
        embedder=embedder.name,
        vectors=embedder.embed(embedded) if embedded else np.zeros((0, 0), np.float32),
        owners=tuple(owners),
        lexical=BM25(texts),
        script=script,
        reads=reads,
        ceiling=traits.lexical_ceiling or 1.0 - LEXICAL_FLOOR,
        reach=traits.window or DEFAULT_WINDOW,
        pieces=spans if len(spans) == len(texts) else (),
    )


def passages_of(index: PageIndex) -> list[str] | list[Passage]:
    """The passages an index was built from, pieces included when it has them."""
    if not index.pieces:
        return list(index.passages)
    return [
        Passage(text, pieces) for text, pieces in zip(index.passages, index.pieces, strict=True)
    ]
