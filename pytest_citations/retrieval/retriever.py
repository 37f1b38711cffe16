"""The retrieval step in one call: the embedder that reads both the claim and the page, the
page indexed once, the passages selected for the judge."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from .choosing import best_unit, evidence_runs, line_count, run_pieces
from .embedders import embedder_names, make_embedder
from .embedders.base import Embedder, Vectors
from .embedders.cache import EmbeddingCache
from .evidence import PageLines, prepare
from .index import PageIndex, build_index, passages_of
from .languages import claim_is_english, is_english
from .lines import EVIDENCE_WORDS
from .passages import DEFAULT_MAX_WORDS, DEFAULT_TOP_K, Passage, page_text
from .ranking import (
    fuse,
    order,
    passage_scores,
    passage_signals,
    select_runs,
    straddling_neighbour,
)
from .selection import LINES, PASSAGES, Chooser, Selection, Shown

#: Pages whose prepared lines a retriever keeps (a page is cited by several claims, often
#: one after the other).
PREPARED_PAGES = 64


class Retriever:
    """Indexes pages and picks the passages the judge sees, with the embedder that reads
    both the claim and the page: ``english`` when both are in English, ``other`` (when
    given) for the rest (a German page, or a German claim against an English page, which
    then gets a second index). Vectors go through an :class:`EmbeddingCache` per embedder,
    on disk when ``cache_dir`` is given. Blocking: call it from one worker thread."""

    def __init__(
        self,
        english: Embedder,
        other: Embedder | None = None,
        cache_dir: Path | None = None,
    ) -> None:
        self._english = EmbeddingCache(english, cache_dir)
        self._other = EmbeddingCache(other, cache_dir) if other is not None else None
        #: English pages indexed again by ``other``, for claims in other languages.
        self._reindexed: dict[int, tuple[PageIndex, PageIndex]] = {}
        #: The lines of the pages chosen from lately, by their passages (oldest first).
        self._prepared: dict[tuple[str, ...], PageLines] = {}

    @classmethod
    def named(cls, model: str, cache_dir: Path | None = None) -> Retriever:
        """The retriever for an embedding model setting (see
        :func:`~pytest_citations.retrieval.embedders.embedder_names`)."""
        english, other = embedder_names(model)
        return cls(
            make_embedder(english),
            make_embedder(other) if other is not None else None,
            cache_dir,
        )

    @property
    def embedders(self) -> list[EmbeddingCache]:
        """The embedders in use, English first."""
        return [self._english] + ([self._other] if self._other is not None else [])

    def embedder_for(self, passages: Sequence[str]) -> EmbeddingCache:
        """The embedder for a page: the English one unless the page is not in English."""
        if self._other is None or is_english(passages):
            return self._english
        return self._other

    def index(self, passages: Sequence[str] | Sequence[Passage]) -> PageIndex:
        """Embed and index a page's passages (with their pieces when they are
        :class:`~.passages.Passage` objects)."""
        texts = [p.text if isinstance(p, Passage) else p for p in passages]
        return build_index(passages, self.embedder_for(texts))

    def _cache(self, index: PageIndex) -> EmbeddingCache:
        return next(
            (cache for cache in self.embedders if cache.name == index.embedder), self._english
        )

    def for_claim(self, claim: str, index: PageIndex) -> PageIndex:
        """The index to rank ``claim`` in: ``index``, or, for a claim not in English against
        a page the English model indexed, the page indexed by the other model (once)."""
        if self._other is None or index.embedder != self._english.name or claim_is_english(claim):
            return index
        held = self._reindexed.get(id(index))
        if held is None or held[0] is not index:
            held = (index, build_index(passages_of(index), self._other))
            self._reindexed[id(index)] = held
        return held[1]

    def warm(self, claims: Sequence[str]) -> None:
        """Embed the English claims with the English model in one batch (the cache keeps
        them), before any page is ranked; the others meet their model when ranked. A run
        without English claims never loads the English model for them."""
        english = [claim for claim in dict.fromkeys(claims) if claim_is_english(claim)]
        if self._other is None:
            english = list(dict.fromkeys(claims))
        if english:
            self._english.embed_queries(english)

    def claim_vector(self, claim: str, index: PageIndex) -> Vectors:
        """The claim embedded as a query by the index's embedder (cached)."""
        vector: Vectors = self._cache(index).embed_queries([claim])[0]
        return vector

    def _vector(self, claim: str, index: PageIndex) -> Vectors | None:
        """The claim's vector, or None where the embedder reads the claim or page not."""
        return self.claim_vector(claim, index) if index.readable(claim) else None

    def rank(self, claim: str, index: PageIndex) -> list[int]:
        """Every passage of the page, best first (:func:`passage_scores`, ties in page
        order)."""
        if index.empty:
            return []
        index = self.for_claim(claim, index)
        return order(passage_scores(claim, self._vector(claim, index), index))

    def select(self, claim: str, index: PageIndex, k: int = DEFAULT_TOP_K) -> list[str]:
        """The passages the judge sees for the claim: the best ``k`` and, when the evidence
        runs across a boundary of the best one, its neighbour (:func:`select_runs`)."""
        index, runs, _ = self._runs(claim, index, k)
        return ["\n\n".join(index.passages[p] for p in run) for run in runs]

    def choose(
        self,
        claim: str,
        index: PageIndex,
        k: int = DEFAULT_TOP_K,
        *,
        markdown: str,
        setting: str = "",
        passage_words: int = DEFAULT_MAX_WORDS,
        evidence_words: int = EVIDENCE_WORDS,
    ) -> Selection | None:
        """What the judge is shown for the claim, as a :class:`~.selection.Selection` a
        recording keeps: lines of the page chosen under ``evidence_words`` words
        (:mod:`.choosing`), or, where ``evidence_words`` is 0 or the claim and the page are in
        different languages (the lines' features are mostly lexical), what :meth:`select`
        chooses. Each text is shown as its pieces of ``markdown``'s text, with its score and
        the settings that chose it (``setting``: the run's embedding setting). None for a
        page without passages. The index must hold its passages' pieces of that page (an
        index of :func:`~.passages.split_spans`)."""
        if index.empty:
            return None
        if not index.pieces:
            raise ValueError("choose() needs an index of passages with their pieces")
        index = self.for_claim(claim, index)
        vector = self._vector(claim, index)
        lexical, dense, coverage = passage_signals(claim, vector, index)
        fused = fuse(lexical, dense, coverage, index.ceiling)
        ranked = order(fused)
        lines = self.lines(index) if evidence_words else None
        if lines is not None and claim_is_english(claim) == lines.english:
            runs, scores = evidence_runs(
                claim,
                lines,
                lexical,
                dense,
                coverage,
                ranked,
                budget=evidence_words,
                ceiling=index.ceiling,
            )
            shown = self._lines_shown(lines, runs, scores, index, page_text(markdown))
            units = LINES
        else:
            shown = self._passages_shown(index, vector, fused, ranked, k)
            units = PASSAGES
        cache = self._cache(index)
        chooser = Chooser(
            setting or cache.name,
            cache.name,
            cache.traits.version,
            k,
            passage_words,
            evidence_words=evidence_words,
            units=units,
        )
        return Selection(shown, chooser)

    def lines(self, index: PageIndex) -> PageLines:
        """The page's lines, prepared for the head once per page (:func:`~.evidence.prepare`;
        the last :data:`PREPARED_PAGES` pages are kept)."""
        key = tuple(index.passages)
        held = self._prepared.pop(key, None) or prepare(index.passages)
        self._prepared[key] = held
        while len(self._prepared) > PREPARED_PAGES:
            self._prepared.pop(next(iter(self._prepared)))
        return held

    @staticmethod
    def _lines_shown(
        lines: PageLines, runs: list[list[int]], scores: np.ndarray, index: PageIndex, text: str
    ) -> tuple[Shown, ...]:
        pieces = [piece for passage in index.pieces for piece in passage]
        if len(pieces) != line_count(lines):
            raise ValueError("the index's pieces are not its passages' lines")
        return tuple(
            Shown(
                run_pieces(lines, run, text, pieces),
                round(best_unit(run, scores), 6),
                _start(lines.text(run[0])),
            )
            for run in runs
        )

    def _passages_shown(
        self,
        index: PageIndex,
        vector: Vectors | None,
        scores: list[float],
        ranked: list[int],
        k: int,
    ) -> tuple[Shown, ...]:
        neighbour = (
            None
            if vector is None
            else straddling_neighbour(vector, index, ranked[0], self._cache(index).embed)
        )
        return tuple(
            Shown(
                tuple(piece for passage in run for piece in index.pieces[passage]),
                round(max(scores[passage] for passage in run), 6),
                _start(index.passages[run[0]]),
            )
            for run in select_runs(ranked, k, neighbour)
        )

    def _runs(
        self, claim: str, index: PageIndex, k: int
    ) -> tuple[PageIndex, list[list[int]], list[float]]:
        """The index the claim is ranked in, the runs of passages shown, and every
        passage's score."""
        if index.empty:
            return index, [], []
        index = self.for_claim(claim, index)
        vector = self._vector(claim, index)
        scores = passage_scores(claim, vector, index)
        ranked = order(scores)
        neighbour = (
            None
            if vector is None
            else straddling_neighbour(vector, index, ranked[0], self._cache(index).embed)
        )
        return index, select_runs(ranked, k, neighbour), scores

    def missing(self) -> tuple[str, ...]:
        """The modules its embedders need that are not installed (none for the hashed bag
        of words): retrieval cannot run here without them."""
        return tuple(name for cache in self.embedders for name in cache.traits.missing())

    def close(self) -> None:
        """Close the disk caches."""
        for cache in self.embedders:
            cache.close()


def _start(text: str, words: int = 12) -> str:
    """The first words of a passage, for a reviewer."""
    found = text.split()
    return " ".join(found[:words]) + (" …" if len(found) > words else "")
