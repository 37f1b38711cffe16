"""``python -m benchmarks.replay --quick``: the replay benchmark records a tiny world against
the emulators, replays it with its recorded choices and without them, and prints every
figure beside its target. Its structure is held here, never its timings (a shared machine's
load moves those)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from benchmarks.replay.world import strip_retrieval  # noqa: E402

PER_PROJECT = (
    "cold replay, wall", "cold replay, CPU", "warm replay, wall", "warm against cold",
    "peak RSS, cold", "peak RSS, warm", "model modules imported", "items and their results",
)  # fmt: skip
FIGURES = (
    *(f"{name}: {figure}" for name in ("examples", "suite") for figure in PER_PROJECT),
    "1x (20 claims): per claim, cold", "2x (40 claims): per claim, warm", "2x: peak RSS",
    "core install: time", "core install: site-packages",
)  # fmt: skip
VERDICT = re.compile(r"(meets|misses)$")


@pytest.fixture(scope="module")
def quick(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, dict]:
    folder = tmp_path_factory.mktemp("replay-bench")
    figures = folder / "figures.json"
    env = dict(
        os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])
    )
    done = subprocess.run(
        [sys.executable, "-m", "benchmarks.replay", "--quick", "--workdir", str(folder / "work"),
         "--json", str(figures)],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout, json.loads(figures.read_text(encoding="utf-8"))


def test_every_figure_is_printed_beside_its_target(quick: tuple[str, dict]) -> None:
    printed, _ = quick
    lines = printed.splitlines()
    assert "with recorded choices" in lines[2]
    assert "legacy (stripped)" in lines[2]
    for figure in FIGURES:
        assert any(line.startswith(figure) for line in lines), figure
    judged = [line for line in lines if "<=" in line or "within" in line or "< 30" in line]
    assert judged, printed
    for line in judged:
        assert VERDICT.search(line), line


def test_both_modes_replay_the_same_results_and_only_legacy_may_load_a_model(
    quick: tuple[str, dict],
) -> None:
    _, figures = quick
    for size in ("1", "2"):
        block = figures["scale"][size]
        digests = {d for mode in block.values() for run in mode.values() for d in run["outcomes"]}
        assert len(digests) == 1, block  # every item said the same, stripped or not
        assert block["choices"]["cold"]["claims"] == 20 * int(size)
        for kind in ("cold", "warm"):
            run = block["choices"][kind]
            assert run["heavy"] == []
            assert run["wall_s"] > 0
            assert run["cpu_s"] > 0
            assert run["maxrss_mib"] > 0
            assert len(run["walls_s"]) == 1
    assert figures["examples"]["choices"]["cold"]["heavy"] == []
    assert figures["suite"] == figures["scale"]["1"]
    assert {"suite: cold replay, wall", "examples: cold replay, wall"} <= set(figures["verdicts"])
    assert all(isinstance(meets, bool) for meets in figures["verdicts"].values())


def test_stripping_the_retrieval_section_keeps_every_interaction() -> None:
    cassette = ROOT / "cassettes" / "cases" / "returns-policy.yaml"
    text = cassette.read_text(encoding="utf-8")
    stripped = strip_retrieval(text)
    before, after = yaml.safe_load(text), yaml.safe_load(stripped)

    assert before["retrieval"]
    assert "retrieval" not in after
    assert after == {key: value for key, value in before.items() if key != "retrieval"}
    assert text.count("\n") - stripped.count("\n") > 10
