"""A pull request that relaxes a case's criteria, end to end on the shipped examples (issue 24:
what a pull request can edit never turns the gate green by itself). The red team's edit:
``criteria: {fail_on: []}`` added to ``cases/boiling-point.yaml`` made the default gate pass
its contradicted claim-2. Criteria per case stay (C7, and the calibration set's
``fail_on: []``), but against the base branch's report the relaxation is named: under
``--citations-fail-on-regression`` it fails the run (exit 1, named in the release
decision), without it it is shown in every output and fails nothing. The gate of every run
here is the default's labels, given explicitly; each replays the examples' recordings with
the embedder they were recorded with (no model is loaded on a replay)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml
from ops_support import base_env, run_cli
from plugin_helpers import Citations

ROOT = Path(__file__).resolve().parents[2]
CASE = "cases/boiling-point.yaml::boiling-point"
RELAXED = (
    f"{CASE} relaxed its criteria against base.json: fail_on lost contradicted, partial, "
    "not_found, misattributed, unreachable"
)


@pytest.fixture
def relaxed(citations: Citations) -> Citations:
    """The examples' base report (``base.json``) from the unchanged examples, then the case
    file edited as the red team did."""
    shutil.copytree(ROOT / "cases", citations.path / "cases")
    shutil.copytree(ROOT / "cassettes", citations.path / "cassettes", dirs_exist_ok=True)
    base = citations.run("cases/", "--citations-report", "base.json", gate="default", lexical=False)
    assert base.ret == pytest.ExitCode.TESTS_FAILED  # claim-2 is contradicted
    case_file = citations.path / "cases" / "boiling-point.yaml"
    text = case_file.read_text(encoding="utf-8")
    case_file.write_text(text.replace("claims:", "criteria: {fail_on: []}\nclaims:"), "utf-8")
    return citations


def test_the_relaxed_case_passes_its_contradicted_claim_without_a_comparison(
    relaxed: Citations,
) -> None:
    """The hole itself: on its own, the edited case file passes the default gate."""
    result = relaxed.run("cases/boiling-point.yaml", gate="default", lexical=False)

    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines(["Release decision: pass"])


def test_under_fail_on_regression_the_relaxation_fails_the_run_by_name(
    relaxed: Citations,
) -> None:
    result = relaxed.run(
        "cases/boiling-point.yaml",
        "--citations-compare",
        "base.json",
        "--citations-fail-on-regression",
        "--citations-report",
        "pr.json",
        gate="default",
        lexical=False,
    )

    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        [
            f"  {CASE}: citation precision *",
            "    criteria relaxed: fail_on lost contradicted, partial, not_found, misattributed, "
            "unreachable (fails the run)",
            f"Release decision: fail (fail_on_regression: {RELAXED})",
        ]
    )
    report = json.loads((relaxed.path / "pr.json").read_text(encoding="utf-8"))
    assert report["comparison"]["failures"] == [f"fail_on_regression: {RELAXED}"]
    [case] = [c for c in report["comparison"]["cases"] if c["case"] == CASE]
    assert [r["criterion"] for r in case["relaxed"]] == ["fail_on"]
    assert case["relaxation_fails"] is True


def test_without_the_gate_the_relaxation_is_shown_in_every_output_and_fails_nothing(
    relaxed: Citations,
) -> None:
    result = relaxed.run(
        "cases/boiling-point.yaml",
        "--citations-compare",
        "base.json",
        "--citations-report",
        "pr.json",
        "--citations-html",
        "pr.html",
        "--citations-markdown",
        "pr.md",
        gate="default",
        lexical=False,
    )

    assert result.ret == pytest.ExitCode.OK
    said = "criteria relaxed: fail_on lost contradicted, partial, not_found, misattributed, "
    result.stdout.fnmatch_lines([f"    {said}unreachable", "Release decision: pass"])
    report = json.loads((relaxed.path / "pr.json").read_text(encoding="utf-8"))
    [case] = [c for c in report["comparison"]["cases"] if c["case"] == CASE]
    assert case["relaxed"][0]["lost"] == [
        "contradicted",
        "partial",
        "not_found",
        "misattributed",
        "unreachable",
    ]
    assert case["relaxation_fails"] is False
    assert report["comparison"]["failures"] == []
    assert report["comparison"]["criteria_compared"] is True
    markdown = (relaxed.path / "pr.md").read_text(encoding="utf-8")
    assert f"- {CASE}: criteria relaxed: fail\\_on lost contradicted" in markdown
    page = (relaxed.path / "pr.html").read_text(encoding="utf-8")
    assert f'<div class="relaxed"><b class="regressed">{said}unreachable</b></div>' in page


def test_the_workflows_shard_and_merge_fail_on_the_relaxation_as_the_serial_run(
    relaxed: Citations,
) -> None:
    """As citations-gate.yml runs it: a shard compared with the base, its gate from the
    ini key ``-o citations_fail_on_regression=true``, then ``pytest-citations merge``, which
    decides again from the shard's claims, criteria and gates."""
    shard = relaxed.run(
        "cases/",
        "--citations-shard=1/1",
        "--citations-compare=base.json",
        "-o",
        "citations_fail_on_regression=true",
        "--citations-report=shard-1.json",
        gate="default",
        lexical=False,
    )
    assert shard.ret == pytest.ExitCode.TESTS_FAILED

    merged = run_cli(
        "merge",
        "shard-1.json",
        "--compare",
        "base.json",
        env=base_env(relaxed.path),
        cwd=relaxed.path,
    )

    assert merged.returncode == 1, merged.stderr
    assert f"fail_on_regression: {RELAXED}" in merged.stdout


def test_against_a_baseline_file_the_criteria_are_not_compared_and_it_says_so(
    relaxed: Citations,
) -> None:
    """A baseline stores labels only: no relaxation can be shown, and none is guessed."""
    baseline = {
        "version": 1,
        "claims": {
            f"{CASE}::claim-2": {
                "claim": "On mountains water boils at 50 °C.",
                "label": "contradicted",
                "citations": [],
            },
        },
    }
    (relaxed.path / "baseline.json").write_text(json.dumps(baseline), encoding="utf-8")

    result = relaxed.run(
        "cases/boiling-point.yaml",
        "--citations-compare",
        "baseline.json",
        "--citations-fail-on-regression",
        gate="default",
        lexical=False,
    )

    assert result.ret == pytest.ExitCode.OK
    assert result.stdout.str().count("criteria not compared") == 1
    result.stdout.no_fnmatch_line("*criteria relaxed*")


def test_the_shipped_pull_request_workflow_gates_relaxations_by_default() -> None:
    """The reusable gate passes ``citations_fail_on_regression`` from its input, true unless
    a caller turns it off, and neither shipped caller does."""
    gate = yaml.safe_load((ROOT / ".github/workflows/citations-gate.yml").read_text("utf-8"))
    inputs = gate[True]["workflow_call"]["inputs"]  # YAML 1.1 reads the key `on` as true
    assert inputs["fail-on-regression"]["default"] is True
    [step] = [s for s in gate["jobs"]["gate"]["steps"] if s.get("id") == "gate"]
    assert step["env"]["FAIL_ON_REGRESSION"] == "${{ inputs.fail-on-regression }}"
    assert '-o citations_fail_on_regression="$FAIL_ON_REGRESSION"' in step["run"]
    callers = yaml.safe_load((ROOT / ".github/workflows/citations.yml").read_text("utf-8"))
    for job in callers["jobs"].values():
        assert job["uses"] == "./.github/workflows/citations-gate.yml"
        assert "fail-on-regression" not in job.get("with", {})
