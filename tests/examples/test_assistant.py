"""The example assistant (``examples/assistant/``): its tests and its imported answers replay
offline from the shipped cassettes with the core install alone, and its answer export is
imported into exactly the case files it ships."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from light_env import light_python
from ops_support import Run, base_env

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "assistant"


def copy_example(target: Path) -> Path:
    shutil.copytree(EXAMPLE, target, ignore=shutil.ignore_patterns("__pycache__", ".pytest_cache"))
    return target


def run(python: Path | str, *args: str, cwd: Path) -> Run:
    done = subprocess.run(
        [str(python), *args],
        cwd=cwd,
        env=base_env(cwd, lexical=False),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    return Run(done.returncode, done.stdout, done.stderr)


@pytest.fixture(scope="module")
def light(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return light_python(tmp_path_factory.mktemp("light"))


def test_the_assistants_tests_replay_offline_without_a_model(light: Path, tmp_path: Path) -> None:
    example = copy_example(tmp_path / "assistant")

    done = run(light, "-m", "pytest", "-p", "no:cacheprovider", cwd=example)

    assert done.returncode == 0, done.stdout + done.stderr
    assert "4 passed" in done.stdout


def test_the_imported_answers_replay_offline_without_a_model(light: Path, tmp_path: Path) -> None:
    example = copy_example(tmp_path / "assistant")

    done = run(
        light, "-m", "pytest", "--citations", "cases/", "-p", "no:cacheprovider", cwd=example
    )

    assert done.returncode == 0, done.stdout + done.stderr
    assert "Release decision: pass" in done.stdout


def test_the_export_imports_into_the_shipped_case_files(tmp_path: Path) -> None:
    example = copy_example(tmp_path / "assistant")
    shipped = {path.name: path.read_bytes() for path in (example / "cases").glob("*.yaml")}
    shutil.rmtree(example / "cases")
    (example / "answers.jsonl").unlink()

    exported = run(sys.executable, "-m", "assistant.export", "answers.jsonl", cwd=example)
    assert exported.returncode == 0, exported.stderr
    assert (example / "answers.jsonl").read_bytes() == (EXAMPLE / "answers.jsonl").read_bytes()
    imported = run(
        sys.executable, "-m", "pytest_citations.cli", "import", "answers.jsonl", "--out", "cases/",
        cwd=example,
    )  # fmt: skip

    assert imported.returncode == 0, imported.stdout + imported.stderr
    assert {path.name: path.read_bytes() for path in (example / "cases").glob("*.yaml")} == shipped
