"""The model's thread serves work by priority (issue 10): rankings before page indexes, on
one thread, and an error handed back to the caller."""

from __future__ import annotations

import asyncio
import threading

import pytest

from pytest_citations.retrieval.worker import INDEX, RANK, EmbeddingWorker


def test_embedding_worker_ranks_before_indexing_and_uses_one_thread() -> None:
    async def scenario() -> tuple[list[str], set[str]]:
        worker = EmbeddingWorker()
        gate = threading.Event()
        order: list[str] = []
        threads: set[str] = set()

        def job(name: str) -> str:
            threads.add(threading.current_thread().name)
            if name == "first":
                gate.wait(5)
            order.append(name)
            return name

        first = asyncio.ensure_future(worker.run(INDEX, job, "first"))
        await asyncio.sleep(0.05)  # the thread is busy with "first"
        later = [
            asyncio.ensure_future(worker.run(INDEX, job, "index-a")),
            asyncio.ensure_future(worker.run(RANK, job, "rank")),
            asyncio.ensure_future(worker.run(INDEX, job, "index-b")),
        ]
        await asyncio.sleep(0)
        gate.set()
        results = await asyncio.gather(first, *later)
        worker.shutdown()
        assert results == ["first", "index-a", "rank", "index-b"]
        return order, threads

    order, threads = asyncio.run(scenario())
    assert order == ["first", "rank", "index-a", "index-b"]
    assert len(threads) == 1


def test_embedding_worker_hands_errors_to_the_caller() -> None:
    async def scenario() -> None:
        worker = EmbeddingWorker()

        def broken() -> None:
            raise KeyError("model")

        try:
            with pytest.raises(KeyError):
                await worker.run(RANK, broken)
            assert await worker.run(RANK, len, "still serving") == 13
        finally:
            worker.shutdown()

    asyncio.run(scenario())
