"""Benchmark of the verification engine against the local emulators.

Run from the repository root: ``python -m benchmarks.engine [options]`` (``--help`` lists
them); ``benchmarks/README.md`` explains every figure. The exit status is 1 on FAIL.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .expectations import Predicted, predict
from .instrumentation import EMBEDDERS, RunResult, embed_alone, maxrss_mib, run_once, warm_model
from .report import Environment, figures, header, print_report, write_json
from .scenario import Scenario, build_scenario


def parse_arguments(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.engine", description=(__doc__ or "").split("\n\n")[0]
    )
    parser.add_argument("--concurrency", type=int, nargs="+", default=[4, 16])
    parser.add_argument("--claims", type=int, default=200)
    parser.add_argument("--urls", type=int, default=60)
    parser.add_argument(
        "--latency",
        type=float,
        default=0.2,
        help="seconds before every fetch and judge answer (default 0.2)",
    )
    parser.add_argument("--embedder", choices=sorted(EMBEDDERS), default="minilm")
    parser.add_argument("--seed", type=int, default=2)
    parser.add_argument(
        "--emulators",
        choices=("process", "thread"),
        default="process",
        help="run the emulators in a child process (default) or in threads",
    )
    parser.add_argument(
        "--no-tracemalloc",
        action="store_true",
        help="skip the extra traced run per limit that measures the tracemalloc peak",
    )
    parser.add_argument("--json", type=Path, metavar="PATH", help="write the figures as JSON")
    args = parser.parse_args(argv)
    if any(n < 1 for n in args.concurrency):
        parser.error("concurrency limits must be at least 1")
    return args


def _progress(message: str) -> None:
    print(f"... {message}", file=sys.stderr, flush=True)


def timed_runs(
    args: argparse.Namespace, scenario: Scenario, predicted: Predicted, model: str
) -> tuple[list[RunResult], list[dict[str, Any]]]:
    """One run per concurrency limit, each with its figures.

    The embedding time alone is measured before and after each run and averaged, so that
    a drift in machine load (a shared CI box) hits the run and its ideal alike.
    """
    results: list[dict[str, Any]] = []
    runs: list[RunResult] = []
    before = embed_alone(predicted.embed_groups, model)
    _progress(f"embedding alone: {before[0]:.1f} s")
    for n in args.concurrency:
        run = run_once(scenario, n, args.latency, model, args.emulators, trace=False)
        runs.append(run)
        _progress(f"N={n}: {run.wall:.1f} s")
        after = embed_alone(predicted.embed_groups, model)
        _progress(f"embedding alone: {after[0]:.1f} s")
        embed_seconds = (before[0] + after[0]) / 2
        embed_cpu = (before[1] + after[1]) / 2
        result = figures(run, predicted, embed_seconds, embed_cpu, args.latency)
        result["embedding_alone_before_after_s"] = [before[0], after[0]]
        results.append(result)
        before = after
    return runs, results


def traced_runs(
    args: argparse.Namespace,
    scenario: Scenario,
    model: str,
    runs: list[RunResult],
    results: list[dict[str, Any]],
) -> None:
    """The tracemalloc peak of each limit, from a separate, untimed run.

    tracemalloc slows allocation-heavy Python (the HTTP stack) about fourfold, which on two
    cores also slows the model.
    """
    for run, result in zip(runs, results, strict=True):
        traced = run_once(
            scenario, run.concurrency, args.latency, model, args.emulators, trace=True
        )
        _progress(f"N={run.concurrency} traced: {traced.wall:.1f} s")
        result["tracemalloc_peak_mib"] = traced.tracemalloc_peak
        result["traced_run_wall_s"] = traced.wall
        result["traced_run_same_requests"] = all(
            traced.emulator[key] == run.emulator[key] for key in ("crawl", "judge", "per_url")
        )


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_arguments(argv)
    model = EMBEDDERS[args.embedder]
    scenario = build_scenario(args.claims, args.urls, args.seed)
    predicted = predict(scenario)

    load = warm_model(model, args.seed)  # excluded from every figure below
    env = Environment(args, load, os.getloadavg()[0], maxrss_mib())
    runs, results = timed_runs(args, scenario, predicted, model)
    if not args.no_tracemalloc:
        traced_runs(args, scenario, model, runs, results)

    print_report(header(env, scenario, predicted), results)
    if args.json is not None:
        write_json(args.json, env, scenario, predicted, results)
    return 0 if all(r["pass"] for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
