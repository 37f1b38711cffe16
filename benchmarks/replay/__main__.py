"""``python -m benchmarks.replay``: what a replay costs with the recorded choices, beside the
legacy replay of the same cassettes without them (see the package docstring)."""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .install import core_install
from .measure import Runner, cold_and_warm, summarise
from .report import render, verdicts
from .world import MODES, examples_project, new_project, record, scale_project, worlds, write_cases


def parse_arguments(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.replay",
        description="replay with recorded choices against the legacy replay",
    )
    parser.add_argument("--scale", default="1,3,10", help="suite sizes, e.g. 1,3,10")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each timing (median)")
    parser.add_argument("--claims", type=int, default=200)
    parser.add_argument("--urls", type=int, default=60)
    parser.add_argument("--files", type=int, default=20, help="case files per world")
    parser.add_argument("--seed", type=int, default=2)
    parser.add_argument(
        "--embedder", help="record and replay with this embedder (default: the default)"
    )
    parser.add_argument("--skip-legacy-scale", action="store_true", help="legacy at 1x only")
    parser.add_argument("--skip-install", action="store_true", help="no core venv")
    parser.add_argument(
        "--quick",
        action="store_true",
        help="a tiny world (20 claims, 8 pages, 2 files) at 1x and 2x, the lexical embedder, "
        "one run each, no legacy examples, no install",
    )
    parser.add_argument("--workdir", type=Path, help="keep the projects here; reuse a recording")
    parser.add_argument("--json", type=Path, metavar="PATH", help="write the figures as JSON")
    args = parser.parse_args(argv)
    if args.quick:
        args.claims, args.urls, args.files, args.repeat = 20, 8, 2, 1
        args.scale, args.embedder, args.skip_install = "1,2", args.embedder or "lexical", True
    try:
        args.scales = sorted({int(part) for part in args.scale.split(",")} | {1})
    except ValueError:
        parser.error("--scale takes whole numbers separated by commas")
    if args.repeat < 1 or args.scales[0] < 1:
        parser.error("--repeat and every --scale must be at least 1")
    return args


def _progress(message: str) -> None:
    print(f"... {message}", file=sys.stderr, flush=True)


def recorded_library(args: argparse.Namespace, work: Path) -> tuple[Path, dict[str, Any]]:
    """Every world the largest scale needs, recorded once (or reused from ``--workdir`` when
    the same worlds were recorded there)."""
    library = work / "library"
    wanted = {
        "copies": args.scales[-1], "claims": args.claims, "urls": args.urls,
        "files": args.files, "seed": args.seed, "embedder": args.embedder,
    }  # fmt: skip
    stamp = library / "world.json"
    if stamp.exists() and json.loads(stamp.read_text(encoding="utf-8"))["world"] == wanted:
        _progress(f"reusing the recording in {library}")
        return library, json.loads(stamp.read_text(encoding="utf-8"))
    shutil.rmtree(library, ignore_errors=True)
    scenarios = worlds(args.scales[-1], args.claims, args.urls, args.seed)
    new_project(library)
    for copy, scenario in enumerate(scenarios):
        write_cases(scenario, copy, args.files, library)
    _progress(f"recording {len(scenarios)} world(s) against the emulators")
    wall = record(library, scenarios, args.embedder)
    recording = {"world": wanted, "recording_pytest_s": wall}
    stamp.write_text(json.dumps(recording), encoding="utf-8")
    return library, recording


def replay_both(
    runner: Runner, build: Any, modes: Sequence[str], repeat: int, what: str
) -> dict[str, Any]:
    """Cold and warm replays of the project ``build(mode)`` makes, for each mode."""
    block: dict[str, Any] = {}
    for mode in modes:
        project = build(mode)
        if mode not in runner.warmed:  # the first run of a mode compiles what it imports
            runner.warm_up(project)
            runner.warmed.add(mode)
        runs = cold_and_warm(runner, project, repeat)
        block[mode] = {kind: summarise(found) for kind, found in runs.items()}
        _progress(
            f"{what} {mode}: cold {block[mode]['cold']['wall_s']:.2f} s, "
            f"warm {block[mode]['warm']['wall_s']:.2f} s"
        )
    return block


def measure(args: argparse.Namespace, work: Path) -> dict[str, Any]:
    library, recording = recorded_library(args, work)
    bytecode = work / "bytecode"
    runner = Runner(sys.executable, work / "runs", args.embedder, bytecode=bytecode)
    figures: dict[str, Any] = {"recording": recording, "scale": {}}
    # The examples were recorded with the default embedder, whatever this run's is.
    examples = Runner(sys.executable, work / "runs-examples", bytecode=bytecode)
    figures["examples"] = replay_both(
        examples, lambda mode: examples_project(mode, _fresh(work / "examples" / mode)),
        ("choices",) if args.quick else MODES, args.repeat, "examples",
    )  # fmt: skip
    for size in args.scales:
        modes = MODES if size == 1 or not args.skip_legacy_scale else ("choices",)
        figures["scale"][str(size)] = replay_both(
            runner,
            lambda mode, size=size: scale_project(library, size, mode, _fresh(work / f"x{size}" / mode)),  # noqa: E501
            modes, args.repeat, f"{size}x",
        )  # fmt: skip
    figures["suite"] = figures["scale"]["1"]
    if not args.skip_install:
        _progress("installing the core into a fresh venv")
        install = core_install(_fresh(work / "install"))
        figures["install"] = install
        figures["core"] = core_replays(args, install["python"], work)
    return figures


def core_replays(args: argparse.Namespace, python: str, work: Path) -> dict[str, Any]:
    """Replays with recorded choices in the core install, which has no model package at
    all; compiled files go where a user's would (beside the installed package), so the
    first replay after the install is shown on its own."""
    examples = Runner(python, work / "runs-core", package_path=None)
    first = examples.run(work / "examples" / "choices", examples.cache_folder())
    examples.warmed.add("choices")
    suite = Runner(python, work / "runs-core-suite", args.embedder, package_path=None)
    suite.warmed.add("choices")
    return {
        "first": summarise([first]),
        "examples": replay_both(examples, lambda mode: work / "examples" / mode, ("choices",),
                                args.repeat, "core examples")["choices"],
        "suite": replay_both(suite, lambda mode: work / "x1" / mode, ("choices",),
                             args.repeat, "core suite")["choices"],
    }  # fmt: skip


def _fresh(folder: Path) -> Path:
    shutil.rmtree(folder, ignore_errors=True)
    folder.parent.mkdir(parents=True, exist_ok=True)
    return folder


def heading(args: argparse.Namespace, figures: dict[str, Any]) -> list[str]:
    world = figures["recording"]["world"]
    load = os.getloadavg()
    return [
        f"pytest-citations replay benchmark ({sys.version.split()[0]}, {os.cpu_count()} CPUs, "
        f"load average {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}, median of {args.repeat} run(s))",
        f"suite: {world['claims']} claims citing {world['urls']} pages in {world['files']} case "
        f"files per world, seeds {world['seed']}..; embedder {world['embedder'] or 'default'}; "
        f"examples: cases/ and cassettes/ as shipped",
    ]


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_arguments(argv)
    if args.workdir is not None:
        args.workdir.mkdir(parents=True, exist_ok=True)
        figures = measure(args, args.workdir.resolve())
    else:
        with tempfile.TemporaryDirectory(prefix="citations-replay-") as scratch:
            figures = measure(args, Path(scratch))
    print("\n".join(render(figures, heading(args, figures))))
    figures["verdicts"] = verdicts(figures)
    if args.json is not None:
        args.json.write_text(json.dumps(figures, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
