"""What the benchmark measures around the engine, without changing its code paths: an
embedder wrapper that records each model call, httpx event hooks on the client the engine
would build itself, CPU time and peak memory; one timed (or traced) run, the embedding alone,
and the model's warm-up.
"""

from __future__ import annotations

import asyncio
import gc
import random
import resource
import sys
import time
import tracemalloc
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any

import httpx

from pytest_citations import ClaimRequest, ClaimVerdict, Settings, Verifier
from pytest_citations.network.usage import Usage
from pytest_citations.retrieval.embedders import DEFAULT_EMBEDDING_MODEL, make_embedder
from pytest_citations.retrieval.embedders.base import Embedder, Vectors

from .emulators import Emulators, settings_for
from .prose import VOCABULARY
from .scenario import Scenario

#: (kind, start, end) of one HTTP request; kind is crawl, storage or judge.
HttpEvent = tuple[str, float, float]
#: (start, end, texts) of one model call.
EmbedCall = tuple[float, float, list[str]]


#: The benchmarks' embedders by short name. ``minilm`` is the default setting, which reads
#: English with all-MiniLM-L6-v2: the world's prose comes from an English vocabulary with
#: almost no function words ("West bit sea local view physical buy"), and every page and
#: claim of it reads as English (ASCII letters and no other language's function words).
EMBEDDERS = {"minilm": DEFAULT_EMBEDDING_MODEL, "lexical": "lexical"}


class TimedEmbedder:
    """Wraps the embedder the engine would build itself; records each model call."""

    def __init__(self, inner: Embedder) -> None:
        self.inner = inner
        self.name = inner.name
        self.calls: list[EmbedCall] = []

    def embed(self, texts: Sequence[str]) -> Vectors:
        start = time.perf_counter()
        vectors = self.inner.embed(texts)
        self.calls.append((start, time.perf_counter(), list(texts)))
        return vectors


def cpu_seconds() -> float:
    """CPU time of this process (every thread; not the emulators' child process)."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def maxrss_mib() -> float:
    # Linux reports KiB, macOS bytes.
    scale = 1 if sys.platform == "darwin" else 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * scale / 2**20


@dataclass
class RunResult:
    """What one run of ``verify_many`` gave and cost; times are relative to its start."""

    concurrency: int
    wall: float
    emulator: dict[str, Any]
    usage: dict[str, Any]
    verdicts: list[ClaimVerdict]
    embed_calls: list[EmbedCall]
    http_events: list[HttpEvent]
    tracemalloc_peak: float | None
    maxrss: float
    cpu: float


Hook = Callable[[Any], Awaitable[None]]


def timing_hooks(events: list[HttpEvent]) -> dict[str, list[Hook]]:
    """httpx event hooks that append each request's kind, start and end to ``events``."""

    async def on_request(request: httpx.Request) -> None:
        request.extensions["bench_start"] = time.perf_counter()

    async def on_response(response: httpx.Response) -> None:
        request = response.request
        kind = (
            "judge"
            if request.method == "POST"
            else "storage"
            if request.url.path.rstrip("/").endswith("storage")
            else "crawl"
        )
        events.append((kind, request.extensions.get("bench_start", 0.0), time.perf_counter()))

    return {"request": [on_request], "response": [on_response]}


async def _verify(
    settings: Settings,
    requests: list[ClaimRequest],
    embedder: TimedEmbedder,
    events: list[HttpEvent],
) -> tuple[list[ClaimVerdict], Usage, float]:
    http = settings.http_client()  # the client the Verifier would make, plus timing hooks
    # The engine's HttpClient (network.py) sends through its transport chain, not through an
    # httpx.AsyncClient, so these hooks are never called: the crawl and judge timeline figures
    # stay empty ("-") until the timing moves into a transport wrapper.
    http.event_hooks = timing_hooks(events)  # type: ignore[attr-defined]
    start = time.perf_counter()
    try:
        async with Verifier(settings, embedder=embedder, http=http) as verifier:
            verdicts = await verifier.verify_many(requests)
            usage = verifier.usage
        wall = time.perf_counter() - start
    finally:
        await http.aclose()
    return verdicts, usage, wall


def run_once(
    scenario: Scenario,
    concurrency: int,
    latency: float,
    embedding_model: str,
    mode: str,
    trace: bool,
) -> RunResult:
    """Verify every claim once with fresh emulators and a fresh Verifier; ``trace`` also
    measures the tracemalloc peak (which slows the run)."""
    with Emulators(scenario.fake_pages, latency, mode) as emulators:
        settings = settings_for(emulators, concurrency, embedding_model)
        embedder = TimedEmbedder(make_embedder(embedding_model))
        events: list[HttpEvent] = []
        gc.collect()
        if trace:
            tracemalloc.start()
        cpu = cpu_seconds()
        verdicts, usage, wall = asyncio.run(_verify(settings, scenario.requests, embedder, events))
        cpu = cpu_seconds() - cpu
        peak = None
        if trace:
            peak = tracemalloc.get_traced_memory()[1] / 2**20
            tracemalloc.stop()
        stats = emulators.stats()
    # Relative times: the first event of the run is the Verifier start.
    origin = min([call[0] for call in embedder.calls] + [e[1] for e in events] or [0.0])
    return RunResult(
        concurrency,
        wall,
        stats,
        usage.to_dict(),
        verdicts,
        [(s - origin, e - origin, texts) for s, e, texts in embedder.calls],
        [(kind, s - origin, e - origin) for kind, s, e in events],
        peak,
        maxrss_mib(),
        cpu,
    )


def embed_alone(groups: list[list[str]], embedding_model: str) -> tuple[float, float]:
    """Embed the same texts in the same batches with a fresh embedder instance (model
    loaded); returns (wall seconds, CPU seconds)."""
    embedder = make_embedder(embedding_model)
    gc.collect()
    cpu = cpu_seconds()
    start = time.perf_counter()
    for group in groups:
        if group:
            embedder.embed(group)
    return time.perf_counter() - start, cpu_seconds() - cpu


def warm_model(embedding_model: str, seed: int) -> float:
    """Load the model and run it once on passage-sized texts outside the measured set."""
    rng = random.Random(seed + 1)
    texts = [" ".join(rng.choice(VOCABULARY) for _ in range(200)) for _ in range(8)]
    start = time.perf_counter()
    make_embedder(embedding_model).embed(texts)
    return time.perf_counter() - start
