"""``--citations-compare BASE.json``: a pull request's run against the base branch's JSON
report (or a committed baseline), case by case, as a team's CI runs it: the summary's
section ``Regressions against base.json: …``, the JSON report's ``comparison``, the HTML
section and the release decision show the diff; ``--citations-fail-on-regression`` and
``--citations-max-precision-drop X`` (and their ini keys) gate on it; a rephrased answer is
compared by its question."""

from __future__ import annotations

import json

import pytest
from plugin_helpers import (
    BOILING_URL,
    NOT_FOUND_CLAIM,
    REFUNDS_CLAIM,
    REFUNDS_URL,
    RETURNS_CASE,
    SUPPORTED_CLAIM,
    Citations,
    load_report,
    single_claim_case,
)
from test_readme import DOCS, ELISION, assert_printed, code_blocks, readme_section

REFUNDS_CASE = f"""\
id: refunds
question: How are refunds paid?
citations:
  1: {REFUNDS_URL}
claims:
  - text: {REFUNDS_CLAIM}
    cites: [1]
"""
#: The pull request's export named the refunds answer anew (file and id): same question.
REFUNDS_AGAIN = REFUNDS_CASE.replace("id: refunds", "id: q-0042")
REPHRASED = "Opened software licences can never be returned."


def open_pull_request(citations: Citations, *, gate: str) -> Citations:
    """The base branch's run (``base.json``), then the pull request's answers recorded:
    the returns answer cites the returns page for its refund claim and words its last claim
    anew, the refunds answer comes from a new export (new file and id, same question), and
    the water answer is gone. Every run has ``gate``."""
    citations.write("cases/returns.yaml", RETURNS_CASE)
    citations.write("cases/refunds.yaml", REFUNDS_CASE)
    citations.write("cases/water.yaml", single_claim_case("water", SUPPORTED_CLAIM, BOILING_URL))
    citations.record("cases/", gate=gate)
    base = citations.run("cases/", "--citations-report", "base.json", gate=gate)
    # The base's returns answer has a partial and a not_found claim: only the default fails them.
    lenient = gate == "contradicted"
    assert base.ret == (pytest.ExitCode.OK if lenient else pytest.ExitCode.TESTS_FAILED)
    changed = RETURNS_CASE.replace("    cites: [2]\n", "    cites: [1]\n")
    citations.write("cases/returns.yaml", changed.replace(NOT_FOUND_CLAIM, REPHRASED))
    (citations.path / "cases" / "refunds.yaml").unlink()
    (citations.path / "cases" / "water.yaml").unlink()
    citations.write("cases/export/q-0042.yaml", REFUNDS_AGAIN)
    citations.record("cases/", mode="new_episodes", gate=gate)
    return citations


@pytest.fixture
def pull_request(citations: Citations) -> Citations:
    """:func:`open_pull_request` with ``contradicted`` alone failing a claim: the gates
    below are about regressions, not labels."""
    return open_pull_request(citations, gate="contradicted")


def compare(citations: Citations, *args: str, gate: str) -> pytest.RunResult:
    return citations.run("cases/", "--citations-compare", "base.json", *args, gate=gate)


def test_the_run_against_its_base_prints_what_the_page_shows(citations: Citations) -> None:
    """The CI gate page's command names no failing labels: the base's run and the pull request's
    have the default gate."""
    pull_request = open_pull_request(citations, gate="default")
    section = readme_section("Regressions against the base branch", DOCS / "ci-gate.md")
    [command] = [b for b in code_blocks(section) if b.language == "bash"]
    assert command.text.strip() == (
        "pytest --citations cases/ --citations-compare base.json --citations-fail-on-regression"
    )
    shown = next(b for b in code_blocks(section) if b.text.startswith("Regressions against"))

    result = compare(pull_request, "--citations-fail-on-regression", gate="default")

    result.assert_outcomes(passed=3, failed=3)  # the returns answer's partial and not_found
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    assert_printed([ELISION, *shown.lines, ELISION], result.outlines)


def test_a_regression_fails_a_run_whose_claim_items_all_pass(pull_request: Citations) -> None:
    """What the CI gate's page says of the lenient gate: the regression alone fails the run."""
    result = compare(pull_request, "--citations-fail-on-regression", gate="contradicted")

    result.assert_outcomes(passed=6)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        [
            "Release decision: fail (fail_on_regression: cases/returns.yaml::returns-policy::"
            "claim-2 regressed against base.json (supported -> not_found))"
        ]
    )


def test_without_a_gate_the_diff_is_shown_and_fails_nothing(pull_request: Citations) -> None:
    result = compare(pull_request, "--citations-report", "pr.json", "--citations-html", "pr.html",
                     gate="contradicted")

    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines(["Regressions against base.json: 1 claim regressed; *"])
    result.stdout.fnmatch_lines(["Release decision: pass"])
    comparison = load_report(pull_request.path / "pr.json")["comparison"]
    assert comparison["base"] == "base.json"
    assert [(r["nodeid"], r["kind"], r["before"], r["after"]) for r in comparison["regressions"]
            ] == [("cases/returns.yaml::returns-policy::claim-2", "label", "supported",
                   "not_found")]  # fmt: skip
    cases = {case["case"]: case for case in comparison["cases"]}
    assert cases["cases/export/q-0042.yaml::q-0042"]["base_case"] == "cases/refunds.yaml::refunds"
    assert cases["cases/export/q-0042.yaml::q-0042"]["matched_by"] == "question"
    assert cases["cases/water.yaml::water"]["status"] == "removed"
    returns = cases["cases/returns.yaml::returns-policy"]
    assert returns["precision_before"]["citation_precision"] == pytest.approx(1 / 3)
    assert returns["precision_after"]["citation_precision"] == 0.0
    changed = [c for c in returns["changes"] if c["kind"] == "changed"]
    assert [(c["text_before"], c["text_after"]) for c in changed] == [(NOT_FOUND_CLAIM, REPHRASED)]
    assert comparison["precision_before"]["citations"] == 5
    assert comparison["precision_after"]["citations"] == 4
    page = (pull_request.path / "pr.html").read_text(encoding="utf-8")
    assert '<section class="regressions" id="regressions">' in page
    assert "Regressions against base.json" in page
    assert 'data-kind="changed"' in page
    assert REPHRASED in page


def test_a_precision_drop_beyond_the_limit_fails_each_case_and_the_run(
    pull_request: Citations,
) -> None:
    dropped = compare(pull_request, "--citations-max-precision-drop", "0.3", gate="contradicted")
    kept = compare(pull_request, "--citations-max-precision-drop", "0.4", gate="contradicted")

    assert dropped.ret == pytest.ExitCode.TESTS_FAILED
    dropped.stdout.fnmatch_lines([
        "FAIL max_precision_drop: cases/returns.yaml::returns-policy: citation precision fell by "
        "0.3333 against base.json, from 0.3333 (1/3) to 0.0000 (0/3) (more than 0.3)",
        "FAIL max_precision_drop: the run: citation precision fell by 0.3500 against base.json, "
        "from 0.6000 (3/5) to 0.2500 (1/4) (more than 0.3)",
    ])  # fmt: skip
    assert kept.ret == pytest.ExitCode.OK


def test_the_gates_have_ini_keys(pull_request: Citations) -> None:
    pull_request.write(
        "pytest.ini",
        "[pytest]\ncitations_compare = base.json\ncitations_fail_on_regression = true\n"
        "citations_max_precision_drop = 0.5\n",
    )

    result = pull_request.run("cases/", "--citations-report", "pr.json", gate="contradicted")

    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["Release decision: fail (fail_on_regression: *"])
    gates = load_report(pull_request.path / "pr.json")["run"]["gates"]
    assert (gates["compare"], gates["fail_on_regression"], gates["max_precision_drop"]) == (
        "base.json", True, 0.5,
    )  # fmt: skip


def test_a_committed_baseline_is_a_base_too(citations: Citations) -> None:
    citations.write("cases/returns.yaml", RETURNS_CASE)
    citations.record("cases/", gate="default")
    citations.run("cases/", "--citations-baseline", "baseline.json", "--citations-update-baseline",
                  gate="default")
    citations.write(
        "cases/returns.yaml", RETURNS_CASE.replace("    cites: [2]\n", "    cites: [1]\n")
    )
    citations.record("cases/", mode="new_episodes", gate="default")

    result = citations.run("cases/", "--citations-compare", "baseline.json",
                           "--citations-fail-on-regression", gate="default")  # fmt: skip

    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines([
        "Regressions against baseline.json: 1 claim regressed; cases: 1 changed; *",
        "    claim-2: supported -> not_found (regressed)",
    ])  # fmt: skip


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (("--citations-fail-on-regression",), "*--citations-fail-on-regression needs "
         "--citations-compare BASE.json*"),
        (("--citations-max-precision-drop", "0.1"), "*--citations-max-precision-drop needs*"),
        (("--citations-max-precision-drop", "2", "--citations-compare", "base.json"),
         "*--citations-max-precision-drop must be a number from 0 to 1*"),
        (("--citations-compare", "missing.json"), "*the base * does not exist*"),
        (("--citations-compare", "broken.json"), "*cannot read the base *broken.json*"),
    ],
)  # fmt: skip
def test_a_gate_without_a_base_or_a_base_that_is_none_is_a_usage_error(
    citations: Citations, args: tuple[str, ...], said: str
) -> None:
    citations.write("cases/water.yaml", single_claim_case("water", SUPPORTED_CLAIM, BOILING_URL))
    citations.write("broken.json", "{not json")
    citations.write("base.json", json.dumps({"run": {}, "cases": []}))

    result = citations.run("cases/", *args, gate="default")

    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([said])
