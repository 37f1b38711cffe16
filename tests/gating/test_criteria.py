"""Acceptance criteria and the release decision (004, C7; issue 4): ini defaults overridable
per case under ``criteria:``; forbidden contradicted topics, the share of fully supported
claims per case and for the suite, uncited claims only as general phrasing without figures,
and a summary that states pass/fail per case and for the run with the criterion that failed."""

from __future__ import annotations

import pytest
from plugin_helpers import (
    BOILING_URL,
    CONTRADICTED_CLAIM,
    NOT_FOUND_CLAIM,
    OLD_REPORT_URL,
    PARTIAL_CLAIM,
    PDF_URL,
    REFUNDS_CLAIM,
    REFUNDS_URL,
    RETURNS_URL,
    SUPPORTED_CLAIM,
    Citations,
    claims_by_nodeid,
    load_report,
)

# -- forbid_contradicted_topics -----------------------------------------------------------------

TOPICS = f"""\
cases:
  - id: pay
    topic: compensation
    citations: [{BOILING_URL}]
    claims:
      - text: {CONTRADICTED_CLAIM}
        cites: [1]
  - id: mixed
    citations: [{BOILING_URL}]
    claims:
      - text: {CONTRADICTED_CLAIM}
        cites: [1]
        topic: leave
      - text: {CONTRADICTED_CLAIM}
        cites: [1]
        topic: weather
      - text: {SUPPORTED_CLAIM}
        cites: [1]
        topic: leave
  - id: waived
    topic: compensation
    criteria:
      forbid_contradicted_topics: []
    citations: [{BOILING_URL}]
    claims:
      - text: {CONTRADICTED_CLAIM}
        cites: [1]
"""
TOPICS_INI = """\
[pytest]
citations_forbid_contradicted_topics = compensation leave termination
citations_fail_on = not_found
"""


def test_a_contradicted_claim_on_a_forbidden_topic_fails_whatever_fail_on_says(
    citations: Citations,
) -> None:
    citations.write("cases/topics.yaml", TOPICS)
    citations.write("pytest.ini", TOPICS_INI)
    report = citations.path / "report.json"

    result, _ = citations.record("-v", "cases/", "--citations-report", report, gate="ini")

    result.stdout.fnmatch_lines(["citations: * fail_on=not_found"])
    result.stdout.fnmatch_lines(
        [
            "*::pay::claim-1 FAILED*",
            "*::mixed::claim-1 FAILED*",
            "*::mixed::claim-2 PASSED [[]contradicted[]]*",
            "*::mixed::claim-3 PASSED [[]supported[]]*",
            "*::waived::claim-1 PASSED [[]contradicted[]]*",
        ]
    )
    result.assert_outcomes(passed=6, failed=2)
    out = result.stdout.str()
    assert (
        "claim fails forbid_contradicted_topics: a contradicted claim about 'compensation'" in out
    )
    assert "claim fails forbid_contradicted_topics: a contradicted claim about 'leave'" in out
    assert "claim is contradicted" not in out  # contradicted is not a failing label here
    result.stdout.fnmatch_lines(
        [
            "cases/topics.yaml::pay: fully supported 0 of 1; release decision: fail "
            "(forbid_contradicted_topics: claim-1 a contradicted claim about 'compensation')",
            "cases/topics.yaml::mixed: fully supported 1 of 3; release decision: fail "
            "(forbid_contradicted_topics: claim-1 a contradicted claim about 'leave')",
            "cases/topics.yaml::waived: fully supported 0 of 1; release decision: pass",
            "Release decision: fail (cases/topics.yaml::pay: forbid_contradicted_topics: "
            "claim-1 a contradicted claim about 'compensation' and 1 more)",
        ]
    )
    claims = claims_by_nodeid(load_report(report))
    assert claims["cases/topics.yaml::pay::claim-1"]["topic"] == "compensation"  # from the case
    assert claims["cases/topics.yaml::mixed::claim-2"]["failures"] == []
    cases = {case["id"]: case for case in load_report(report)["cases"]}
    assert cases["pay"]["release"]["decision"] == "fail"
    assert cases["waived"]["release"] == {"decision": "pass", "failures": [], "incomplete": []}


def test_a_misspelt_failing_label_in_case_criteria_is_a_collection_error(
    citations: Citations,
) -> None:
    citations.write(
        "cases/typo.yaml",
        f"""\
        id: typo
        citations: [{BOILING_URL}]
        criteria:
          fail_on: [contradicted, partal]
        claims:
          - text: {SUPPORTED_CLAIM}
            cites: [1]
        """,
    )

    result = citations.run("cases/", gate="default")

    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["*cases/typo.yaml:4: 'fail_on' names an unknown label 'partal'*"])


# -- min_supported_share ----------------------------------------------------------------------

#: Two claims: one supported, one whose only citation is a PDF (not_found, decided by rule).
HALF = """\
id: {id}
citations:
  1: {boiling}
  2: {pdf}
claims:
  - text: {supported}
    cites: [1]
  - text: Water boils faster in a pressure cooker.
    cites: [2]
{criteria}"""


def half(case_id: str, criteria: str = "") -> str:
    return HALF.format(
        id=case_id, boiling=BOILING_URL, pdf=PDF_URL, supported=SUPPORTED_CLAIM, criteria=criteria
    )


def test_min_supported_share_per_case(citations: Citations) -> None:
    citations.write("cases/strict.yaml", half("strict", "criteria:\n  min_supported_share: 0.75\n"))
    citations.write(
        "cases/lenient.yaml", half("lenient", "criteria:\n  min_supported_share: 0.5\n")
    )

    result, _ = citations.record("-v", "cases/", gate="contradicted")

    result.assert_outcomes(passed=5, failed=1)
    result.stdout.fnmatch_lines(
        [
            "*lenient.yaml::lenient::precision PASSED*",
            "*strict.yaml::strict::precision FAILED*",
        ]
    )
    result.stdout.fnmatch_lines(
        [
            "case 'strict' fails min_supported_share: fully supported claims 0.5000 (1/2) "
            "below 0.75",
        ]
    )
    result.stdout.fnmatch_lines(
        [
            "cases/lenient.yaml::lenient: fully supported 1 of 2; release decision: pass",
            "cases/strict.yaml::strict: fully supported 1 of 2; release decision: fail "
            "(min_supported_share: fully supported claims 0.5000 (1/2) below 0.75)",
            "Release decision: fail (cases/strict.yaml::strict: min_supported_share: *)",
        ]
    )


@pytest.mark.parametrize(
    ("args", "ini"),
    [
        (("--citations-min-supported-share", "0.9"), ""),
        ((), "[pytest]\ncitations_min_supported_share = 0.9\n"),
    ],
    ids=["command line", "ini"],
)
def test_min_supported_share_for_the_suite_fails_the_run(
    citations: Citations, args: tuple[str, ...], ini: str
) -> None:
    # Each case waives the threshold for itself, so only the suite-wide gate can fail.
    citations.write("cases/a.yaml", half("a", "criteria:\n  min_supported_share: 0\n"))
    citations.write(
        "cases/b.yaml",
        f"id: b\ncitations: [{REFUNDS_URL}]\nclaims:\n  - text: {REFUNDS_CLAIM}\n    cites: [1]\n"
        "criteria:\n  min_supported_share: 0\n",
    )
    if ini:
        citations.write("pytest.ini", ini)

    result, _ = citations.record("cases/", *args, gate="contradicted")

    result.assert_outcomes(passed=5)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        [
            "supported_share=0.6667 (2/3)",
            "Release decision: fail (min_supported_share: suite share 0.6667 (2/3) below 0.9)",
            "FAIL min_supported_share: suite share 0.6667 (2/3) below 0.9",
        ]
    )


def test_suite_share_at_the_threshold_passes(citations: Citations) -> None:
    citations.write("cases/a.yaml", half("a"))

    result, _ = citations.record("cases/", "--citations-min-supported-share", "0.5",
                                 gate="contradicted")

    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines(
        [
            "cases/a.yaml::a: fully supported 1 of 2; release decision: pass",
            "Release decision: pass",
        ]
    )
    assert "FAIL" not in result.stdout.str()


# -- uncited_allowed -------------------------------------------------------------------------------

UNCITED = f"""\
id: shop
citations: [{REFUNDS_URL}]
claims:
  - text: {REFUNDS_CLAIM}
    cites: [1]
  - text: Our staff are happy to help with any question.
    general: true
  - text: Returns are accepted within 30 days.
    general: true
  - text: Refunds are always fast.
{{criteria}}"""


def test_uncited_claims_pass_only_as_general_phrasing_without_figures(
    citations: Citations,
) -> None:
    citations.write("cases/shop.yaml", UNCITED.format(criteria=""))
    report = citations.path / "report.json"

    result, _ = citations.record("-v", "cases/", "--citations-report", report, gate="default")

    result.stdout.fnmatch_lines(
        [
            "*shop::claim-1 PASSED [[]supported[]]*",
            "*shop::claim-2 PASSED [[]uncited[]]*",
            "*shop::claim-3 FAILED*",
            "*shop::claim-4 FAILED*",
        ]
    )
    out = result.stdout.str()
    assert "claim fails uncited_allowed: an uncited claim may not state a number or date" in out
    assert "claim fails uncited_allowed: the claim cites nothing and is not marked general" in out
    result.stdout.fnmatch_lines(
        [
            "claims to look at:",
            "  cases/shop.yaml::shop::claim-2: uncited",
            "  cases/shop.yaml::shop::claim-3: uncited",
            "  cases/shop.yaml::shop::claim-4: uncited",
        ]
    )
    result.stdout.fnmatch_lines(
        ["cases/shop.yaml::shop: * release decision: fail (uncited_allowed: claim-3 *)"]
    )
    claims = claims_by_nodeid(load_report(report))
    assert claims["cases/shop.yaml::shop::claim-2"]["label"] == "uncited"
    assert claims["cases/shop.yaml::shop::claim-2"]["general"] is True
    assert claims["cases/shop.yaml::shop::claim-2"]["failures"] == []


@pytest.mark.parametrize(
    ("ini", "criteria"),
    [
        ("[pytest]\ncitations_uncited_allowed = false\n", ""),
        ("", "criteria:\n  uncited_allowed: false\n"),
    ],
    ids=["ini", "case criteria"],
)
def test_uncited_allowed_false_fails_even_general_phrasing(
    citations: Citations, ini: str, criteria: str
) -> None:
    citations.write("cases/shop.yaml", UNCITED.format(criteria=criteria))
    if ini:
        citations.write("pytest.ini", ini)

    result, _ = citations.record("-v", "cases/", gate="default")

    result.stdout.fnmatch_lines(["*shop::claim-1 PASSED*", "*shop::claim-2 FAILED*"])
    assert "claim fails uncited_allowed: the claim cites nothing\n" in result.stdout.str()
    result.assert_outcomes(passed=2, failed=3)


def test_release_decision_pass_for_every_case(citations: Citations) -> None:
    citations.write(
        "cases/ok.yaml",
        f"id: ok\ncitations: [{REFUNDS_URL}]\nclaims:\n  - text: {REFUNDS_CLAIM}\n    cites: [1]\n",
    )

    result, _ = citations.record("cases/", gate="default")

    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines(
        [
            "cases/ok.yaml::ok: fully supported 1 of 1; release decision: pass",
            "Release decision: pass",
        ]
    )


# -- the default ------------------------------------------------------------------------------

DEFAULTS = f"""\
id: defaults
citations:
  1: {BOILING_URL}
  2: {OLD_REPORT_URL}
  3: {RETURNS_URL}
  4: {PDF_URL}
claims:
  - text: {SUPPORTED_CLAIM}
    cites: [1]
  - text: {CONTRADICTED_CLAIM}
    cites: [1]
  - text: {PARTIAL_CLAIM}
    cites: [3]
  - text: {NOT_FOUND_CLAIM}
    cites: [3]
  - text: {SUPPORTED_CLAIM}
    cites: [2]
  - text: {SUPPORTED_CLAIM}
    cites: [4]
"""


def test_by_default_only_a_claim_its_citations_fully_support_passes(citations: Citations) -> None:
    """Out of the box the gate fails what a reviewer would not ship (004's worked example
    fails a partial claim): contradicted, partial, not_found (misattributed when another
    retrieved page has it) and a claim whose only page is gone (unreachable, F3)."""
    citations.write("cases/defaults.yaml", DEFAULTS)

    result, _ = citations.record("-v", "cases/", gate="default")

    result.stdout.fnmatch_lines(
        ["citations: * fail_on=contradicted,partial,not_found,misattributed,unreachable"]
    )
    result.stdout.fnmatch_lines(
        [
            "*::defaults::claim-1 PASSED [[]supported[]]*",
            "*::defaults::claim-2 FAILED*",
            "*::defaults::claim-3 FAILED*",
            "*::defaults::claim-4 FAILED*",
            "*::defaults::claim-5 FAILED*",
            "*::defaults::claim-6 FAILED*",
        ]
    )
    result.stdout.fnmatch_lines(
        [
            "FAILED *::claim-2 - claim is contradicted*",
            "FAILED *::claim-3 - claim is partial*",
            "FAILED *::claim-4 - claim is not_found*",
            "FAILED *::claim-5 - claim is unreachable*",
            "FAILED *::claim-6 - claim is not_found*",
        ]
    )
    assert result.ret == pytest.ExitCode.TESTS_FAILED


def test_the_lenient_choice_is_explicit(citations: Citations) -> None:
    citations.write("cases/defaults.yaml", DEFAULTS)
    citations.write("pytest.ini", "[pytest]\ncitations_fail_on = contradicted\n")

    result, _ = citations.record("-v", "cases/", gate="ini")

    result.stdout.fnmatch_lines(["citations: * fail_on=contradicted"])
    result.stdout.fnmatch_lines(["*::defaults::claim-2 FAILED*"])
    assert "*::defaults::claim-3 FAILED*" not in result.stdout.str()
    result.assert_outcomes(passed=6, failed=1)
