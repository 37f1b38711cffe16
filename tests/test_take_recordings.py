"""``.github/scripts/take_recordings.py``: what citations-recordings.yml runs to copy a pull
request's new cassettes into its branch. Only cassette files reach the branch, only below a
``cassettes/`` folder of the repository, and none that holds a token's value (checked with
canaries); anything refused stops the copy before a file is written."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[1] / ".github" / "scripts" / "take_recordings.py"
CANARY = "canary-openai-key-0f1e2d3c4b5a"


def artifact(root: Path, name: str, where: str, files: dict[str, str]) -> None:
    folder = root / name
    (folder / "cassettes").mkdir(parents=True)
    (folder / "where").write_text(where + "\n", encoding="utf-8")
    for path, text in files.items():
        target = folder / "cassettes" / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")


def take(recordings: Path, branch: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "OPENAI_API_KEY": CANARY, "CRAWLBASE_TOKEN": ""}
    return subprocess.run(
        [sys.executable, str(SCRIPT), str(recordings), str(branch)],
        env=env, capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip


@pytest.fixture
def branch(tmp_path: Path) -> Path:
    root = tmp_path / "branch"
    (root / "examples" / "assistant" / "cassettes").mkdir(parents=True)
    (root / "examples" / "assistant" / "cassettes" / "kept.yaml").write_text("old\n", "utf-8")
    return root


def test_each_shards_new_cassettes_land_in_the_folder_pytest_ran_in(
    tmp_path: Path, branch: Path
) -> None:
    recordings = tmp_path / "recordings"
    artifact(
        recordings,
        "assistant-recordings-1",
        "examples/assistant",
        {"cases/a.yaml": "interactions: []\n", "kept.yaml": "old\n", "notes.txt": "x"},
    )
    artifact(recordings, "assistant-recordings-2", "examples/assistant",
             {"tests/b.yaml": "interactions: []\n"})  # fmt: skip

    done = take(recordings, branch)

    assert done.returncode == 0, done.stdout + done.stderr
    cassettes = branch / "examples" / "assistant" / "cassettes"
    assert (cassettes / "cases" / "a.yaml").read_text("utf-8") == "interactions: []\n"
    assert (cassettes / "tests" / "b.yaml").exists()
    assert not (cassettes / "notes.txt").exists()  # cassette files only
    assert "2 cassette(s) changed" in done.stdout  # kept.yaml did not change


@pytest.mark.parametrize("where", ["../elsewhere", "/etc", "a/../../b"])
def test_a_folder_outside_the_repository_is_refused(
    tmp_path: Path, branch: Path, where: str
) -> None:
    recordings = tmp_path / "recordings"
    artifact(recordings, "x-recordings-1", where, {"a.yaml": "interactions: []\n"})

    done = take(recordings, branch)

    assert done.returncode == 1
    assert "outside the repository" in done.stdout
    assert not (tmp_path / "elsewhere").exists()


def test_a_cassette_holding_a_tokens_value_is_refused_and_nothing_is_written(
    tmp_path: Path, branch: Path
) -> None:
    recordings = tmp_path / "recordings"
    leaked = f"headers: {{key: {CANARY}}}\n"
    artifact(recordings, "x-recordings-1", "examples/assistant",
             {"a.yaml": "interactions: []\n", "z.yaml": leaked})  # fmt: skip

    done = take(recordings, branch)

    assert done.returncode == 1
    assert "z.yaml holds the value of OPENAI_API_KEY" in done.stdout
    assert CANARY not in done.stdout + done.stderr
    assert not (branch / "examples" / "assistant" / "cassettes" / "a.yaml").exists()


def test_one_cassette_recorded_differently_by_two_shards_is_refused(
    tmp_path: Path, branch: Path
) -> None:
    recordings = tmp_path / "recordings"
    artifact(recordings, "x-recordings-1", ".", {"a.yaml": "one\n"})
    artifact(recordings, "x-recordings-2", ".", {"a.yaml": "two\n"})

    done = take(recordings, branch)

    assert done.returncode == 1
    assert "recorded differently by two shards" in done.stdout
    assert not (branch / "cassettes").exists()


def test_a_link_in_the_artifact_is_refused(tmp_path: Path, branch: Path) -> None:
    recordings = tmp_path / "recordings"
    artifact(recordings, "x-recordings-1", ".", {})
    (tmp_path / "secret.yaml").write_text("private\n", "utf-8")
    (recordings / "x-recordings-1" / "cassettes" / "a.yaml").symlink_to(tmp_path / "secret.yaml")

    done = take(recordings, branch)

    assert done.returncode == 1
    assert "is a link" in done.stdout
