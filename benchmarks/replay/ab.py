"""``python -m benchmarks.replay.ab --before CHECKOUT --after CHECKOUT``: two checkouts of the
package replaying the same projects, in turn, round after round, so that the machine's load
falls on both alike. Each round runs, for each checkout, the shipped examples and the 1x
suite (200 claims, recorded once with the ``before`` checkout, lexical embedder) cold and
warm, and the examples with every report on; each run is a fresh ``python -m pytest`` process
(:class:`~benchmarks.replay.measure.Runner`: wall from spawn to reaping, its CPU and peak
RSS). Prints the medians, before → after."""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from .__main__ import recorded_library
from .measure import Runner
from .world import DEAD, clean_environment, examples_project, scale_project

#: The reports the "every output" run writes, as a CI job would.
OUTPUTS = (
    "--citations-report",
    "out/r.json",
    "--citations-html",
    "out/r.html",
    "--citations-csv",
    "out/r.csv",
    "--citations-markdown",
    "out/r.md",
    "--junitxml",
    "out/j.xml",
)

Figures = tuple[float, float, float]  # wall s, CPU s, peak RSS MiB


def parse_arguments(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.replay.ab", description="two checkouts' replays, in turn"
    )
    parser.add_argument("--before", type=Path, required=True, help="a checkout of the package")
    parser.add_argument("--after", type=Path, required=True, help="another checkout")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--workdir", type=Path, help="keep the projects here (default: temp)")
    parser.add_argument("--json", type=Path, help="write every run's figures here")
    return parser.parse_args(argv)


def every_output(runner: Runner, project: Path, cache: Path) -> Figures:
    """The examples replayed with every report on, under GitHub Actions."""
    env = clean_environment() | DEAD
    if runner.bytecode is not None:
        env["PYTHONPYCACHEPREFIX"] = str(runner.bytecode)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(runner.site), runner.package_path]))
    env["GITHUB_ACTIONS"] = "true"
    env["GITHUB_STEP_SUMMARY"] = str(project / "summary.md")
    command = [
        runner.python,
        "-m",
        "pytest",
        "--citations",
        "cases/",
        "-q",
        "-o",
        f"cache_dir={cache}",
        *OUTPUTS,
    ]
    start = time.perf_counter()
    child = subprocess.Popen(
        command, cwd=project, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) not in (0, 1):
        raise SystemExit(f"the replay with every output failed in {project}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def measure(arguments: argparse.Namespace, work: Path) -> dict[str, dict[str, list[Figures]]]:
    checkouts = {"before": arguments.before.resolve(), "after": arguments.after.resolve()}
    spec = argparse.Namespace(claims=200, urls=60, files=20, seed=2, embedder="lexical", scales=[1])
    os.environ["PYTHONPATH"] = str(checkouts["before"])  # the recording is the older one's
    for stale in ("examples", "suite", "runs-before", "runs-after"):  # a kept workdir's
        shutil.rmtree(work / stale, ignore_errors=True)
    library, _ = recorded_library(spec, work)
    examples = examples_project("choices", work / "examples")
    suite = scale_project(library, 1, "choices", work / "suite")
    runners = {
        name: Runner(
            sys.executable,
            work / f"runs-{name}",
            None,
            package_path=str(path),
            bytecode=work / f"bytecode-{name}",
        )
        for name, path in checkouts.items()
    }
    for runner in runners.values():  # each compiles what it imports once, before timing
        runner.warm_up(examples)
        runner.warm_up(suite)
    figures: dict[str, dict[str, list[Figures]]] = {name: {} for name in runners}
    for round_ in range(arguments.rounds):
        for name, runner in runners.items():
            for what, project in (("examples", examples), ("suite", suite)):
                cache = runner.cache_folder()
                for kind in ("cold", "warm"):
                    run = runner.run(project, cache)
                    figures[name].setdefault(f"{what} {kind}", []).append(
                        (run.wall_s, run.cpu_s, run.maxrss_mib)
                    )
            found = every_output(runner, examples, runner.cache_folder())
            figures[name].setdefault("examples, every output", []).append(found)
        print(f"round {round_ + 1} of {arguments.rounds} done", file=sys.stderr, flush=True)
    return figures


def main(argv: Sequence[str] | None = None) -> int:
    arguments = parse_arguments(argv)
    with tempfile.TemporaryDirectory(prefix="replay-ab-") as temporary:
        work = arguments.workdir or Path(temporary)
        work.mkdir(parents=True, exist_ok=True)
        figures = measure(arguments, work)
    if arguments.json is not None:
        arguments.json.write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
    for what, runs in figures["before"].items():
        before = [statistics.median(run[i] for run in runs) for i in range(3)]
        after = [statistics.median(run[i] for run in figures["after"][what]) for i in range(3)]
        print(
            f"{what:24} wall {before[0]:.2f} -> {after[0]:.2f} s   "
            f"CPU {before[1]:.2f} -> {after[1]:.2f} s   "
            f"peak RSS {before[2]:.1f} -> {after[2]:.1f} MiB"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
