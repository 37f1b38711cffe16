"""Benchmark of the drift check; see ``benchmarks/drift/__init__.py``.

Run from the repository root: ``nice -n 10 python -m benchmarks.drift [options]``. The
exit status is 1 when a check fails.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import platform
import shutil
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pytest_citations.drift import DriftReport, run_drift
from pytest_citations.recording import RecordMode

from ..engine.emulators import Emulators, settings_for
from ..engine.expectations import expect
from ..engine.instrumentation import EMBEDDERS, warm_model
from ..engine.scenario import build_scenario
from .planting import Planted, expected_fetches, plant, truth
from .world import judged_citations, record, write_case_files


def parse_arguments(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.drift", description="Benchmark of the drift check."
    )
    parser.add_argument("--claims", type=int, default=200)
    parser.add_argument("--urls", type=int, default=60)
    parser.add_argument("--files", type=int, default=10, help="case files (default 10)")
    parser.add_argument("--seed", type=int, default=2)
    parser.add_argument("--concurrency", type=int, default=4)
    parser.add_argument(
        "--latency", type=float, default=0.2, help="seconds before every emulator answer"
    )
    parser.add_argument("--embedder", choices=sorted(EMBEDDERS), default="lexical")
    parser.add_argument("--emulators", choices=("process", "thread"), default="process")
    parser.add_argument(
        "--cold",
        action="store_true",
        help="no embedding cache across runs (each run embeds every page it replays)",
    )
    parser.add_argument("--json", type=Path, metavar="PATH", help="write the figures as JSON")
    return parser.parse_args(argv)


def _progress(message: str) -> None:
    print(f"... {message}", file=sys.stderr, flush=True)


class Bench:
    """The world, its recordings and the changed web, for one seed."""

    def __init__(self, args: argparse.Namespace, project: Path) -> None:
        self.args = args
        self.model = EMBEDDERS[args.embedder]
        self.scenario = build_scenario(args.claims, args.urls, args.seed)
        self.project = project
        self.sources = write_case_files(self.scenario, project, args.files)
        self.pristine = project / "pristine"
        self.planted: Planted | None = None

    def emulators(self, pages: Any) -> Emulators:
        return Emulators(pages, self.args.latency, self.args.emulators)

    def timed(self, pages: Any, run: Any) -> tuple[Any, float, dict[str, Any]]:
        """``run(settings)`` against fresh emulators: its result, wall time, what they saw."""
        with self.emulators(pages) as emulators:
            settings = settings_for(emulators, self.args.concurrency, self.model)
            if not self.args.cold:
                # As the plugin keeps them (.pytest_cache/…/citations-embeddings): recording,
                # drift and re-record alike find the vectors of pages seen before.
                settings = settings.replace(embedding_cache_dir=self.project / "embeddings")
            start = time.perf_counter()
            result = run(settings)
            wall = time.perf_counter() - start
            stats = emulators.stats()
        return result, wall, stats

    def restore(self) -> None:
        shutil.rmtree(self.project / "cassettes", ignore_errors=True)
        shutil.copytree(self.pristine, self.project / "cassettes")

    def cassette_bytes(self) -> dict[str, bytes]:
        return {s.name: s.cassette.read_bytes() for s in self.sources}

    def drift(self, settings: Any, update: bool = False) -> DriftReport:
        return run_drift(self.sources, settings, update=update, root=self.project)

    def rerecord(self, settings: Any) -> None:
        record(self.sources, settings, RecordMode.ALL)


def _checked(report: DriftReport, expected: dict[tuple[str, str], str]) -> dict[str, Any]:
    got = {(d.nodeid, d.url): d.status.value for d in report.citations}
    wrong = {f"{k[0]} {k[1]}": (got.get(k), v) for k, v in expected.items() if got.get(k) != v}
    return {
        "citations": len(got),
        "correct": len(expected) - len(wrong),
        "wrong": wrong,
        "counts": report.counts(),
        "truth_counts": dict(Counter(expected.values())),
    }


def _update_figures(
    bench: Bench, expected: dict[tuple[str, str], str], before: dict[str, bytes]
) -> dict[str, Any]:
    """Drift with the update mode on fresh recordings, then drift again."""
    bench.restore()
    planted = bench.planted
    assert planted is not None
    report, wall, stats = bench.timed(planted.pages, lambda s: bench.drift(s, update=True))
    after = bench.cassette_bytes()
    # Case files with a citation that got a new verdict are the ones to write.
    rechecked = {
        nodeid.split("::")[0]
        for (nodeid, url), status in expected.items()
        if status in ("evidence_changed", "gone") or planted.kinds.get(url) == "homepage"
    }
    again, again_wall, again_stats = bench.timed(planted.pages, bench.drift)
    counts = again.counts()
    honest = counts["evidence_changed"] == counts["gone"] == counts["flipped"] == 0
    return {
        "wall_s": wall,
        "judge_calls": stats["judge"],
        "written": report.written,
        "notes": report.notes,
        "expected_written": sorted(f"cassettes/{name}" for name in rechecked),
        "byte_identical": sorted(name for name in before if before[name] == after[name]),
        "second_run": {
            "wall_s": again_wall,
            "counts": counts,
            "judge_calls": again_stats["judge"],
            "skipped": len(again.skipped),
        },
        "pass": sorted(report.written) == sorted(f"cassettes/{name}" for name in rechecked)
        and all(before[name] == after[name] for name in before if name not in rechecked)
        and not report.notes
        and honest
        and again_stats["judge"] == 0
        and not again.skipped,
    }


def run(args: argparse.Namespace, project: Path) -> dict[str, Any]:
    bench = Bench(args, project)
    if args.embedder == "minilm":
        warm_model(bench.model, args.seed)  # excluded from every figure
    _progress("recording the world once")
    _, record_wall, record_stats = bench.timed(
        bench.scenario.fake_pages, lambda s: record(bench.sources, s, RecordMode.ONCE)
    )
    shutil.copytree(project / "cassettes", bench.pristine)
    before = bench.cassette_bytes()
    # The text each page was judged on (the rendered page of a JavaScript page, …).
    judged_texts = {url: expect(spec).judged_markdown for url, spec in bench.scenario.pages.items()}
    texts = {url: text for url, text in judged_texts.items() if text is not None}
    judged = judged_citations([s.cassette for s in bench.sources], texts)
    bench.planted = planted = plant(bench.scenario, judged, args.seed)
    citations = [
        (c.nodeid, c.request.claim, url)
        for s in bench.sources
        for c in s.claims
        for url in c.request.urls
    ]
    expected = truth(planted, citations, judged)
    must_judge = {(c, u) for (n, c, u) in citations if expected[(n, u)] == "evidence_changed"}
    crawls, credits, sequences = expected_fetches(planted)

    _progress("drift check")
    report, drift_wall, drift_stats = bench.timed(planted.pages, bench.drift)
    _progress(f"drift: {drift_wall:.1f} s; drift with the update mode, then again")
    update = _update_figures(bench, expected, before)
    _progress("full re-record (--citations-record=all)")
    bench.restore()
    _, rerecord_wall, rerecord_stats = bench.timed(planted.pages, bench.rerecord)
    statuses = _checked(report, expected)
    figures = {
        "record": {
            "wall_s": record_wall,
            "crawls": record_stats["crawl"],
            "judge_calls": record_stats["judge"],
        },
        "planted": dict(Counter(planted.kinds.values())),
        "drift": {
            "wall_s": drift_wall,
            "crawls": drift_stats["crawl"],
            "crawl_sequences": len({u for u in drift_stats["per_url"]}),
            "credits": drift_stats["credits"],
            "judge_calls": drift_stats["judge"],
            "engine_costs": report.to_dict()["costs"],
            "plan": report.to_dict()["plan"],
            "skipped": len(report.skipped),
        },
        "expected": {
            "crawls": crawls,
            "credits": credits,
            "crawl_sequences": sequences,
            "judge_calls": len(must_judge),
        },
        "statuses": statuses,
        "update": update,
        "rerecord": {
            "wall_s": rerecord_wall,
            "crawls": rerecord_stats["crawl"],
            "credits": rerecord_stats["credits"],
            "judge_calls": rerecord_stats["judge"],
        },
    }
    figures["checks"] = {
        "crawls = one fetch sequence per distinct URL": drift_stats["crawl"] == crawls
        and figures["drift"]["crawl_sequences"] == sequences,
        "judge calls = citations whose evidence changed": drift_stats["judge"] == len(must_judge),
        "statuses = planted truth": not statuses["wrong"] and not report.skipped,
        "the report's costs = what the emulators saw": (
            report.costs.crawls,
            report.costs.credits,
            report.costs.judge_calls,
        )
        == (drift_stats["crawl"], drift_stats["credits"], drift_stats["judge"]),
        "update writes only what it re-checked": update["pass"],
    }
    return figures


def print_figures(args: argparse.Namespace, figures: dict[str, Any]) -> None:
    drift, rerecord, expected = figures["drift"], figures["rerecord"], figures["expected"]
    statuses, update = figures["statuses"], figures["update"]
    rows = [
        ("crawl requests", drift["crawls"], rerecord["crawls"], f"expected {expected['crawls']}"),
        (
            "URLs crawled (sequences)",
            drift["crawl_sequences"],
            "",
            f"expected {expected['crawl_sequences']}",
        ),
        (
            "credits",
            f"{drift['credits']:g}",
            f"{rerecord['credits']:g}",
            f"expected {expected['credits']:g}",
        ),
        (
            "judge calls",
            drift["judge_calls"],
            rerecord["judge_calls"],
            f"expected {expected['judge_calls']} (citations whose evidence changed)",
        ),
        (
            "wall time (s)",
            f"{drift['wall_s']:.1f}",
            f"{rerecord['wall_s']:.1f}",
            f"x{rerecord['wall_s'] / drift['wall_s']:.1f} faster",
        ),
    ]
    print(
        f"pytest-citations drift benchmark ({platform.python_version()}, "
        f"{multiprocessing.cpu_count()} CPUs, embedder {args.embedder}, emulators in "
        f"{args.emulators}, latency {args.latency:g} s, N={args.concurrency}, seed {args.seed}, "
        f"embedding cache {'off' if args.cold else 'kept across runs'})"
    )
    print(
        f"world: {args.claims} claims in {args.files} case files, {args.urls} URLs, "
        f"{statuses['citations']} citations; recorded once in {figures['record']['wall_s']:.1f} s "
        f"({figures['record']['crawls']} crawls, {figures['record']['judge_calls']} judge calls)"
    )
    print(f"planted: {figures['planted']}")
    print(f"\n{'':28}{'drift':>10}{'re-record':>12}")
    for name, left, right, note in rows:
        print(f"{name:28}{left!s:>10}{right!s:>12}  {note}")
    print(
        f"\nstatuses: {statuses['correct']}/{statuses['citations']} as planted; "
        f"{statuses['counts']}"
    )
    for key, (got, want) in statuses["wrong"].items():
        print(f"  WRONG {key}: got {got}, planted {want}")
    second = update["second_run"]
    print(
        f"update: wrote {len(update['written'])} cassettes in {update['wall_s']:.1f} s "
        f"({update['judge_calls']} judge calls), {len(update['byte_identical'])} byte-identical; "
        f"drift again: {second['counts']}, {second['judge_calls']} judge calls"
    )
    for name, ok in figures["checks"].items():
        print(f"{'PASS' if ok else 'FAIL'}  {name}")


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_arguments(argv)
    with tempfile.TemporaryDirectory(prefix="drift-bench-") as folder:
        figures = run(args, Path(folder))
    print_figures(args, figures)
    if args.json is not None:
        args.json.write_text(
            json.dumps(
                {"arguments": {k: str(v) for k, v in vars(args).items()}, **figures},
                indent=1,
                default=str,
            )
        )
    return 0 if all(figures["checks"].values()) else 1


if __name__ == "__main__":
    sys.exit(main())
