"""Retrieval's model side, for the choices a run makes now (a recording, or a replay that
holds no choice for a claim): the retriever with its embedders and their cache, the one
thread the model runs on, and each page split and indexed once. The retrieval step builds
it the first time it must choose (:meth:`.retrieving.RetrievalStep.model`): a replay that
recalls every choice never loads an embedder, nor numpy."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from ..fetchers import FetchResult
from ..retrieval.embedders import canonical_name
from ..retrieval.index import PageIndex
from ..retrieval.passages import split_spans
from ..retrieval.retriever import Retriever
from ..retrieval.selection import PASSAGES, Selection
from ..retrieval.worker import INDEX, RANK, EmbeddingWorker
from .sharing import SharedWork

if TYPE_CHECKING:
    from ..retrieval.embedders.base import Embedder
    from .settings import Settings


class RetrievalModel:
    """Chooses passages now, on the model's thread: ranking before indexing more pages."""

    def __init__(self, settings: Settings, embedder: Embedder | None = None) -> None:
        self.settings = settings
        # Hybrid retrieval, the embedder chosen by the page's language unless one is given.
        self.retriever = (
            Retriever(embedder, cache_dir=settings.embedding_cache_dir)
            if embedder is not None
            else Retriever.named(settings.embedding_model, settings.embedding_cache_dir)
        )
        self._worker = EmbeddingWorker()
        # Indexing sends nothing: one index per page text serves every cassette's scope.
        self._indexes = SharedWork("index")

    async def warm(self, claims: Sequence[str]) -> None:
        """Embed the claims in one batch before pages arrive (Retriever.warm)."""
        await self._worker.run(RANK, self.retriever.warm, claims)

    async def choose(self, claim: str, page: FetchResult, ranking: int | None) -> Selection | None:
        """The choice made now for ``claim`` against ``page``, by today's ranking, or by
        ranking 1 (the top passages, 0 evidence words) for a recording made with it."""
        index = await self._index(page)
        # Ranking goes before indexing more pages: it sends a judge call out at once.
        return await self._worker.run(RANK, self._chosen, claim, index, page.text, ranking)

    def _chosen(
        self, claim: str, index: PageIndex, text: str, ranking: int | None
    ) -> Selection | None:
        settings = self.settings
        chosen = self.retriever.choose(
            claim,
            index,
            settings.top_k,
            markdown=text,
            setting=canonical_name(settings.embedding_model),
            passage_words=settings.passage_words,
            evidence_words=0 if ranking == 1 else settings.evidence_words,
        )
        if chosen is None:
            return None
        if ranking == 1:
            older = replace(chosen.chooser, ranking=1, evidence_words=0, units=PASSAGES)
            chosen = replace(chosen, chooser=older)
        # The judge is asked about passages chosen now as often as the run says.
        return replace(chosen, votes=settings.judge_votes)

    def _index(self, page: FetchResult) -> asyncio.Task[PageIndex]:
        async def run() -> PageIndex:
            passages = split_spans(page.text, self.settings.passage_words)
            return await self._worker.run(INDEX, self.retriever.index, passages)

        return self._indexes.get((page.digest, self.settings.passage_words), run)

    async def aclose(self) -> None:
        """Cancel the indexing still running, stop the model's thread, close the caches."""
        await self._indexes.drain()
        self._worker.shutdown()
        self.retriever.close()
