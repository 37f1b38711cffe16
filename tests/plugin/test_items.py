"""Claim and precision items: what a failure shows, where ``reportinfo`` points, and the
labels the verbose output shows on a pass."""

from __future__ import annotations

import pytest
from plugin_helpers import (
    BOILING_CASE,
    BOILING_URL,
    CONTRADICTED_CLAIM,
    MOVED_URL,
    RETURNS_CASE,
    SUPPORTED_CLAIM,
    Citations,
    junit_testcases,
)

#: A contradicted claim that also cites a deep link now landing on the homepage, so that
#: the failure shows a reason and a final URL besides the quote.
CONTRADICTED_CASE = f"""\
id: mountains
citations:
  1: {BOILING_URL}
  2: {MOVED_URL}
claims:
  - text: {SUPPORTED_CLAIM}
    cites: [1]
  - text: {CONTRADICTED_CLAIM}
    cites: [1, 2]
"""


@pytest.fixture
def recorded(citations: Citations) -> Citations:
    """The boiling, returns and mountains cases, recorded; the emulators are gone."""
    citations.write("cases/boiling.yaml", BOILING_CASE)
    citations.write("cases/returns.yaml", RETURNS_CASE)
    citations.write("cases/mountains.yaml", CONTRADICTED_CASE)
    result, _ = citations.record("cases/", gate="contradicted")
    result.assert_outcomes(passed=8, failed=2)
    return citations


def test_contradicted_claim_fails_with_a_readable_explanation(recorded: Citations) -> None:
    result = recorded.run("cases/mountains.yaml", gate="contradicted")

    result.assert_outcomes(passed=2, failed=1)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        [
            "*_ mountains::claim-2 _*",
            "claim is contradicted (failing labels: contradicted)",
            f"claim: {CONTRADICTED_CLAIM}",
            "label: contradicted",
            f"  [[]1[]] {BOILING_URL}",
            "      contradicted, confidence 0.90",
            "      origin status: 200, rid: *",
            '      quote: "On high mountains the air pressure is lower, so water boils at a lower'
            ' temperature: at 3,000 metres it boils at about 90 °C*"',
            f"  [[]2[]] {MOVED_URL}",
            "      not_found (redirected_to_homepage), confidence 1.00",
            "      final URL: https://example.org/",
            "      origin status: 200, rid: *",
        ]
    )
    result.stdout.fnmatch_lines(["FAILED cases/mountains.yaml::mountains::claim-2 - *"])
    output = result.stdout.str()
    assert "Traceback" not in output
    assert "def runtest" not in output
    assert "CitationCheckFailure" not in output
    assert "items.py" not in output


def test_failure_shows_the_same_explanation_while_recording(citations: Citations) -> None:
    citations.write("cases/mountains.yaml", CONTRADICTED_CASE)

    result, web = citations.record("cases/", gate="contradicted")

    result.assert_outcomes(passed=2, failed=1)
    assert web.crawlbase.crawl_count > 0
    result.stdout.fnmatch_lines(
        ["claim is contradicted (failing labels: contradicted)", "      quote: *90 °C*"]
    )
    assert "Traceback" not in result.stdout.str()


def test_verbose_output_shows_labels_and_unverified_citations(recorded: Citations) -> None:
    result = recorded.run("-v", "cases/boiling.yaml", "cases/returns.yaml", "cases/mountains.yaml",
                          gate="contradicted")

    result.stdout.fnmatch_lines(
        [
            "cases/boiling.yaml::boiling-point::claim-1 PASSED [[]supported[]] "
            "unreachable:http_404*",
            "cases/boiling.yaml::boiling-point::claim-2 FAILED*",
            "cases/boiling.yaml::boiling-point::precision PASSED*",
            "cases/returns.yaml::returns-policy::claim-1 PASSED [[]partial[]] *",
            "cases/returns.yaml::returns-policy::claim-2 PASSED [[]supported[]] *",
            "cases/returns.yaml::returns-policy::claim-3 PASSED [[]not_found[]] not_found *",
            "cases/mountains.yaml::mountains::claim-1 PASSED [[]supported[]] *",
            "cases/mountains.yaml::mountains::claim-2 FAILED*",
        ]
    )


def test_quiet_output_still_lists_unverified_citations(recorded: Citations) -> None:
    result = recorded.run("-q", "cases/boiling.yaml", gate="contradicted")

    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines(
        [
            "citations not verified:",
            "  cases/boiling.yaml::boiling-point::claim-1: unreachable (http_404) "
            "https://example.org/old-report",
        ]
    )


def test_reportinfo_points_at_the_claim_line(recorded: Citations) -> None:
    xml = recorded.path / "junit.xml"

    # xunit1 is the junit family in which pytest itself writes each test's file and line.
    recorded.run("cases/boiling.yaml", f"--junitxml={xml}", "-o", "junit_family=xunit1",
                 gate="contradicted")

    testcases = junit_testcases(xml)
    # pytest's locations are 0-based (the item's reportinfo); the plugin writes a case
    # item's line as the case file's own, 1-based: BOILING_CASE has claim 1 on line 8,
    # claim 2 on line 10, the case on line 1.
    claim_1 = testcases["cases.boiling.yaml.boiling-point.claim-1"]
    claim_2 = testcases["cases.boiling.yaml.boiling-point.claim-2"]
    precision = testcases["cases.boiling.yaml.boiling-point.precision"]
    assert claim_1.get("file") == "cases/boiling.yaml"
    assert (claim_1.get("line"), claim_2.get("line"), precision.get("line")) == ("8", "10", "1")
    lines = BOILING_CASE.splitlines()
    assert lines[8 - 1] == f"  - text: {SUPPORTED_CLAIM}"
    assert lines[10 - 1] == f"  - text: {CONTRADICTED_CLAIM}"


def test_reportinfo_of_a_case_inside_a_cases_list(citations: Citations) -> None:
    citations.write(
        "cases/several.yaml",
        f"""\
        cases:
          - id: first
            citations: [{BOILING_URL}]
            claims:
              - text: {SUPPORTED_CLAIM}
                cites: [1]
          - id: second
            citations: [{BOILING_URL}]
            claims:
              - text: {SUPPORTED_CLAIM}
                cites: [1]
              - text: {CONTRADICTED_CLAIM}
                cites: [1]
        """,
    )
    xml = citations.path / "junit.xml"

    result, _ = citations.record("cases/", f"--junitxml={xml}", "-o", "junit_family=xunit1",
                                 gate="default")

    result.assert_outcomes(passed=4, failed=1)
    testcases = junit_testcases(xml)  # 1-based lines of the case file
    assert testcases["cases.several.yaml.second.claim-2"].get("line") == "12"
    assert testcases["cases.several.yaml.second.precision"].get("line") == "7"
    assert testcases["cases.several.yaml.first.claim-1"].get("line") == "5"
