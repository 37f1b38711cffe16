"""The HTML report's test bed (issues 5 and 11): the shipped examples and the calibration
set, replayed offline once by ``pytest --citations`` in a subprocess (see
``html_support.py``, whose helpers the tests import)."""

from __future__ import annotations

import json

import pytest
from html_support import Replay, copy_calibration_set, result_of, shift_baseline
from ops_support import base_env, copy_examples, run_pytest

from pytest_citations.reports import html_report


@pytest.fixture(scope="session")
def replay(tmp_path_factory: pytest.TempPathFactory) -> Replay:
    project = tmp_path_factory.mktemp("examples")
    copy_examples(project)
    copy_calibration_set(project)
    env = base_env(project, lexical=False)  # no token, no emulator, no model: a replay
    first = run_pytest(
        project, "cases/", "--citations-baseline", "base.json", "--citations-update-baseline",
        env=env, lexical=False,
    )  # fmt: skip
    assert (project / "base.json").is_file(), first.stdout + first.stderr
    baseline = shift_baseline(project / "base.json")
    run = run_pytest(
        project,
        "cases/",
        "--citations-calibrate",
        "--citations-baseline",
        "base.json",
        "--citations-html",
        "out/report.html",
        "--citations-report",
        "out/report.json",
        env=env,
        lexical=False,
    )
    report = json.loads((project / "out" / "report.json").read_text(encoding="utf-8"))
    result, info = result_of(project / "out" / "report.json", project / "base.json")
    measured_path = project / "out" / "measured.html"
    measured_path.write_text(html_report.render(result, info), encoding="utf-8")
    return Replay(
        run.returncode,
        run.stdout + run.stderr,
        project / "out" / "report.html",
        report,
        baseline,
        measured_path,
    )
