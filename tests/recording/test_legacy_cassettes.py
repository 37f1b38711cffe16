"""Upgrades keep old recordings working (issue 24): a cassette records what made it. One
without a ``retrieval:`` section was made by the top-k passages (ranking 1), so a replay with
the model and ``pytest-citations cassettes upgrade`` choose with that ranking, with no
option. The fixture in ``tests/data/legacy_cassettes`` was recorded once by the package at
the commit before the section existed (its README says how); today's evidence ranking
chose other text on its long page, and the replay of its claims was three errors."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from light_env import light_pytest
from ops_support import base_env, run_cli, run_pytest

from pytest_citations.recording.pages import read_recording

FIXTURE = Path(__file__).resolve().parents[1] / "data" / "legacy_cassettes"
RECORDED: dict[str, str] = json.loads((FIXTURE / "labels.json").read_text(encoding="utf-8"))
CASSETTES = sorted(f"cassettes/cases/{p.name}" for p in (FIXTURE / "cassettes/cases").iterdir())


@pytest.fixture
def legacy(tmp_path: Path) -> Path:
    """A project holding the fixture's case files and cassettes, as recorded."""
    for folder in ("cases", "cassettes"):
        shutil.copytree(FIXTURE / folder, tmp_path / folder)
    for cassette in CASSETTES:
        assert read_recording(tmp_path / cassette)[1] == {}, cassette  # no choice recorded
    return tmp_path


def labels(report: Path) -> dict[str, str]:
    """Each claim's label in a JSON report, and any citation that could not be checked."""
    found = json.loads(report.read_text(encoding="utf-8"))
    claims = [claim for case in found["cases"] for claim in case["claims"]]
    refused = [
        claim["nodeid"]
        for claim in claims
        for citation in claim["citations"]
        if citation.get("reason") in ("request_refused", "over_budget")
    ]
    assert not refused, refused
    return {claim["nodeid"]: claim["label"] for claim in claims}


def test_a_replay_with_the_model_gives_the_labels_that_were_recorded(legacy: Path) -> None:
    env = base_env(legacy, lexical=False)

    run = run_pytest(legacy, "cases/", "--citations-report=now.json", env=env, lexical=False)

    assert "could not be checked" not in run.stdout, run.stdout
    assert labels(legacy / "now.json") == RECORDED
    # A replay chooses; it never writes the cassette.
    for cassette in CASSETTES:
        assert (legacy / cassette).read_bytes() == (FIXTURE / cassette).read_bytes()


def test_upgrade_with_no_option_adds_choices_that_replay_to_the_same_labels(
    legacy: Path, light: Path
) -> None:
    run = run_cli("cassettes", "upgrade", "cassettes/", env=base_env(legacy, lexical=False),
                  cwd=legacy)  # fmt: skip

    assert run.returncode == 0, run.stdout + run.stderr
    assert run.stdout.splitlines() == [
        "cassettes/cases/boiling-point.yaml: added 2 retrieval choices",
        "cassettes/cases/returns-policy.yaml: added 5 retrieval choices",
        "cassettes/cases/station-reports.yaml: added 3 retrieval choices",
    ]
    for cassette in CASSETTES:
        choices = read_recording(legacy / cassette)[1]
        assert {selection.chooser.ranking for selection in choices.values()} == {1}, cassette
    # Replayed where no model is installed: the choices alone, the recorded labels.
    replayed = light_pytest(light, legacy, "cases/", "--citations-report=light.json")
    assert "could not be checked" not in replayed.stdout, replayed.stdout
    assert labels(legacy / "light.json") == RECORDED
