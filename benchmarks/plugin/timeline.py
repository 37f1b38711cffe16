"""Where a live ``pytest --citations`` run spends the time the model does not: one live run of
the plugin benchmark's world, with every call of the model timed.

    python -m benchmarks.plugin.timeline --concurrency 16

It prints embedding alone (measured just before), the run's wall time, how long the model
was busy inside it, when the first and the last model call happened, and the gaps between
calls. Busy time above embedding alone is the model slowed by other work on the same cores;
gaps are the model waiting for work; the time after the last call is the run's tail. The
figures in benchmarks/README.md ("What changed") were taken with it. Measurement only: the
model's class is wrapped for the one run and restored after.
"""

from __future__ import annotations

import argparse
import contextlib
import tempfile
import threading
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from pytest_citations.retrieval.embedders import minilm as embeddings

from ..engine.emulators import Emulators
from ..engine.expectations import predict
from ..engine.instrumentation import EMBEDDERS, embed_alone, warm_model
from ..engine.scenario import build_scenario
from .__main__ import environment, live_environment, run_pytest, write_project

Call = tuple[float, float, int]


@contextlib.contextmanager
def model_calls() -> Iterator[list[Call]]:
    """(start, end, texts) of every model call made off the main thread while inside."""
    calls: list[Call] = []
    original = embeddings.SentenceTransformerEmbedder.embed

    def timed(self: Any, texts: Sequence[str]) -> Any:
        start = time.perf_counter()
        try:
            return original(self, texts)
        finally:
            if threading.current_thread() is not threading.main_thread():
                calls.append((start, time.perf_counter(), len(texts)))

    embeddings.SentenceTransformerEmbedder.embed = timed  # type: ignore[method-assign]
    try:
        yield calls
    finally:
        embeddings.SentenceTransformerEmbedder.embed = original  # type: ignore[method-assign]


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.plugin.timeline")
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--files", type=int, default=20)
    parser.add_argument("--latency", type=float, default=0.2)
    parser.add_argument("--seed", type=int, default=2)
    args = parser.parse_args(argv)
    scenario = build_scenario(200, 60, args.seed)
    model = EMBEDDERS["minilm"]
    warm_model(model, args.seed)
    alone, _ = embed_alone(predict(scenario).embed_groups, model)
    with tempfile.TemporaryDirectory(prefix="citations-timeline-") as scratch:
        folder = Path(scratch) / "project"
        write_project(scenario, args.files, folder)
        emulators = Emulators(scenario.fake_pages, args.latency, "process")
        with emulators, environment(live_environment(emulators)), model_calls() as calls:
            origin = time.perf_counter()
            live = run_pytest(folder, model, args.concurrency, "all", folder / "live.json")
    if not calls:
        raise SystemExit("the model was never called")
    busy = sum(end - start for start, end, _ in calls)
    gaps = [(calls[i][0] - calls[i - 1][1], calls[i - 1][1] - origin) for i in range(1, len(calls))]
    print(f"N={args.concurrency}: embedding alone {alone:.2f} s, live wall {live['wall']:.2f} s")
    print(
        f"model busy {busy:.2f} s in {len(calls)} calls ({sum(c[2] for c in calls)} texts); "
        f"first call at {calls[0][0] - origin:.2f} s, last done at {calls[-1][1] - origin:.2f} s, "
        f"tail {live['wall'] - (calls[-1][1] - origin):.2f} s"
    )
    long_gaps = ", ".join(f"{gap:.2f} s at {at:.1f} s" for gap, at in gaps if gap > 0.05)
    print(f"gaps between calls {sum(g for g, _ in gaps):.2f} s; over 50 ms: {long_gaps or 'none'}")


if __name__ == "__main__":
    main()
