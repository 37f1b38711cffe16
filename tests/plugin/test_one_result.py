"""What a run concludes is one value (issue 25), as a user sees it: every item ends as its
claim's decision in the JSON report says, the release decision agrees with the exit status,
and a claim that could not be checked (its request new since the recording, as in a fork's
pull request) is unchecked in the table, the precision and the comparison with the base,
never a label. The first three scenarios failed before the result became one tree."""

from __future__ import annotations

import json

import pytest
from plugin_helpers import BOILING_CASE, CONTRADICTED_CLAIM, RETURNS_CASE, Citations, load_report

BASELINE = "baseline.json"
#: The gate these scenarios are written for, chosen explicitly: only a contradicted claim
#: fails (the default also fails partial, not_found, misattributed and unreachable).
GATE = "--citations-fail-on=contradicted"
#: A third claim, added after the recording: its judge call is new since it was made.
NEW_CLAIM = "  - text: Water boils faster with a lid on.\n    cites: [1]\n"


@pytest.fixture
def recorded(citations: Citations) -> Citations:
    """The boiling case recorded, and its baseline written."""
    citations.write("cases/boiling.yaml", BOILING_CASE)
    result, _ = citations.record("cases/", GATE, "--citations-baseline", BASELINE,
                                 "--citations-update-baseline", gate="args")  # fmt: skip
    result.assert_outcomes(passed=2, failed=1)
    return citations


def outcomes(result: pytest.RunResult) -> dict[str, str]:
    """Each case item's outcome, from ``-rA``'s short summary."""
    found = {}
    for line in result.outlines:
        word = line.split(" ", 1)[0]
        node = next((part for part in line.split(" ") if part.startswith("cases/")), None)
        if word in ("PASSED", "FAILED", "ERROR") and node is not None:
            found[node] = word
    return found


def test_a_claim_that_regressed_against_the_baseline_fails_in_the_decision_too(
    citations: Citations,
) -> None:
    """The returns case's partial claim passes the gate, but the baseline remembers it
    supported: its item failed while its decision (JSON) said pass, and the release said
    pass with the exit status 1."""
    citations.write("cases/returns.yaml", RETURNS_CASE)
    citations.record("cases/", GATE, "--citations-baseline", BASELINE,
                     "--citations-update-baseline", gate="args")  # fmt: skip
    path = citations.path / BASELINE
    data = json.loads(path.read_text(encoding="utf-8"))
    data["claims"]["cases/returns.yaml::returns-policy::claim-1"]["label"] = "supported"
    path.write_text(json.dumps(data), encoding="utf-8")

    result = citations.run("cases/", GATE, "--citations-baseline", BASELINE, "-rA",
                           "--citations-report", "report.json", gate="args")  # fmt: skip

    report = load_report(citations.path / "report.json")
    decisions = {c["nodeid"]: c["decision"] for case in report["cases"] for c in case["claims"]}
    shown = {"pass": "PASSED", "fail": "FAILED", "incomplete": "ERROR"}
    items = outcomes(result)
    assert {node: items[node] for node in decisions} == {
        node: shown[decision] for node, decision in decisions.items()
    }
    assert decisions["cases/returns.yaml::returns-policy::claim-1"] == "fail"
    assert report["run"]["decision"] == "fail"
    result.stdout.fnmatch_lines(["Release decision: fail *"])
    assert result.ret == pytest.ExitCode.TESTS_FAILED


def test_a_claim_new_since_the_recording_is_unchecked_never_not_found(
    recorded: Citations,
) -> None:
    """A fork's run replays: the new claim was counted in the ``not_found`` column and as a
    miss of the case's precision."""
    recorded.write("cases/boiling.yaml", BOILING_CASE + NEW_CLAIM)

    result = recorded.run("cases/", GATE, "--citations-report", "report.json", gate="args")

    result.assert_outcomes(passed=2, failed=1, errors=1)
    header = next(line for line in result.outlines if line.startswith("case "))
    row = next(line for line in result.outlines if line.startswith("cases/boiling.yaml::"))
    counts = dict(zip(header.split()[1:10], row.split()[1:10], strict=True))
    assert (counts["claims"], counts["not_found"], counts["unchecked"]) == ("3", "0", "1")
    # Two of the three citations of the recorded claims were checked, one supports: 1/3.
    assert "0.3333 (1/3, 3 of 4 checked)" in row
    [_, _, new] = load_report(recorded.path / "report.json")["cases"][0]["claims"]
    assert (new["status"], new["label"]) == ("unchecked", None)
    assert "label: not_found" not in result.stdout.str()


def test_a_claim_unchecked_now_is_not_compared_with_the_base(recorded: Citations) -> None:
    """It was reported ``claim-… changed`` / ``supported -> not_found``, with a precision
    drop, for a claim that was only unchecked."""
    recorded.run("cases/", GATE, "--citations-report", "base.json", gate="args")
    text = BOILING_CASE.replace(CONTRADICTED_CLAIM, "On mountains water boils later.")
    recorded.write("cases/boiling.yaml", text)

    result = recorded.run("cases/", GATE, "--citations-compare", "base.json",
                          "--citations-max-precision-drop", "0.1", "--citations-report",
                          "report.json", gate="args")  # fmt: skip

    result.stdout.fnmatch_lines([
        "Regressions against base.json: 0 claims regressed, 1 not compared (unchecked); *",
        "    claim-2 not compared: contradicted -> unchecked",
    ])  # fmt: skip
    comparison = load_report(recorded.path / "report.json")["comparison"]
    [change] = comparison["cases"][0]["changes"]
    assert (change["kind"], change["regressed"]) == ("not_compared", False)
    assert comparison["failures"] == []
    result.stdout.fnmatch_lines(["Release decision: incomplete *"])


def test_the_exit_status_never_contradicts_the_release_decision(recorded: Citations) -> None:
    result = recorded.run("cases/", GATE, "--citations-report", "report.json", gate="args")

    report = load_report(recorded.path / "report.json")
    assert report["run"]["decision"] == "fail"
    assert result.ret == pytest.ExitCode.TESTS_FAILED
