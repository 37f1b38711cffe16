"""A check that could not run is not a pass (issue 8).

With the judge or Crawlbase down, erroring, or a recording missing from an offline replay,
a claim with a citation the verifier could not check is an ERROR (not FAILED, never PASSED),
its message says which citations and why, the case's and the run's release decision is
``incomplete`` and the exit status is not 0. A real failure still wins over incomplete.
``--citations-allow-unchecked`` (ini ``citations_allow_unchecked``) restores counting such
citations as their labels. Findings about the page itself (404, soft 404, homepage redirect,
PDF) are results, not gaps, and behave as before.

Every test talks to the real emulators; "down" is an emulator that was stopped."""

from __future__ import annotations

import contextlib
import socket
import xml.etree.ElementTree as ET
from collections.abc import Iterator

import pytest
from plugin_helpers import (
    BOILING_CASE,
    BOILING_URL,
    CONTRADICTED_CLAIM,
    NINE_CASE,
    OLD_REPORT_URL,
    PDF_URL,
    SUPPORTED_CLAIM,
    Citations,
    load_report,
    single_claim_case,
)

from pytest_citations.sandbox import CrawlbaseEmulator, JudgeEmulator

#: A page whose crawl answers HTTP 503 every time: a fetch_error with retries off.
BROKEN_URL = "https://example.org/physics/flaky"
FAST = ("--citations-record=once", "--citations-retries", "0")


@contextlib.contextmanager
def down(emulator: CrawlbaseEmulator | JudgeEmulator) -> Iterator[None]:
    """Stop an emulator and keep its port bound but not listening: connecting is refused,
    and no emulator of a test running beside this one can take the port and answer."""
    port = int(emulator.url.rstrip("/").rsplit(":", 1)[1])
    emulator.stop()
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as holder:
        holder.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        holder.bind(("127.0.0.1", port))
        yield


@pytest.fixture
def boiling(citations: Citations) -> Citations:
    """The boiling-point case: claim-1 supported (plus a 404), claim-2 contradicted."""
    citations.write("cases/boiling.yaml", BOILING_CASE)
    return citations


def assert_incomplete(result: pytest.RunResult, *, errors: int, passed: int = 0) -> None:
    """Errors, not failures; the decision is incomplete; the exit status is 1."""
    result.assert_outcomes(errors=errors, passed=passed)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    output = result.stdout.str()
    assert "Release decision: pass" not in output
    result.stdout.fnmatch_lines(["Release decision: incomplete (*"])


def test_judge_down_makes_every_claim_an_error_not_a_pass(boiling: Citations) -> None:
    with boiling.web() as web, down(web.judge):
        result = boiling.run("cases/", *FAST, "--citations-report=report.json", gate="default")

    # The contradicted claim-2 used to PASS here, with "Release decision: pass" and status 0.
    assert_incomplete(result, errors=2, passed=1)
    result.stdout.fnmatch_lines(
        [
            "*ERROR at setup of boiling-point::claim-2*",
            "claim could not be checked: 1 of 1 citations unchecked",
            f"  [[]1[]] {BOILING_URL}: judge_error (the judge could not be reached or "
            "answered with an error)",
            f"claim: {CONTRADICTED_CLAIM}",
        ]
    )
    result.stdout.fnmatch_lines(
        [
            "*ERROR at setup of boiling-point::claim-1*",
            "claim could not be checked: 1 of 2 citations unchecked",
            f"  [[]1[]] {BOILING_URL}: judge_error *",
        ]
    )
    result.stdout.fnmatch_lines(
        [
            "cases/boiling.yaml::boiling-point: fully supported 0 of 0 checked, 2 unchecked; "
            "release decision: incomplete (claim-1, claim-2 could not be checked)",
            "Release decision: incomplete (cases/boiling.yaml::boiling-point: claim-1, claim-2 "
            "could not be checked)",
        ]
    )
    result.stdout.fnmatch_lines(["*2 claims could not be checked*--citations-allow-unchecked*"])
    # Unchecked is a state, never a label: its own column in the table, its own status in
    # the report, and no precision counts it (the 404 citation was checked: unreachable).
    result.stdout.re_match_lines(
        [r"cases/boiling\.yaml::boiling-point +2( +0){7} +2 +0\.0000 \(0/1, 1 of 3 checked\)"]
    )
    result.stdout.fnmatch_lines(
        [f"  cases/boiling.yaml::boiling-point::claim-2: unchecked (judge_error) {BOILING_URL}"]
    )
    case = load_report(boiling.path / "report.json")["cases"][0]
    assert case["release"]["decision"] == "incomplete"
    assert {claim["decision"] for claim in case["claims"]} == {"incomplete"}
    assert {(claim["status"], claim["label"]) for claim in case["claims"]} == {("unchecked", None)}
    assert case["counts"] == {"supported": 0, "citations": 1, "reachable": 0, "unchecked": 2}
    [unchecked] = case["claims"][0]["unchecked"]
    assert (unchecked["url"], unchecked["reason"], unchecked["marker"]) == (
        BOILING_URL,
        "judge_error",
        "1",
    )
    assert unchecked["meaning"] == "the judge could not be reached or answered with an error"


def test_judge_answering_errors_is_incomplete_too(boiling: Citations) -> None:
    with boiling.web() as web:
        web.judge.fail_next(500, count=50)
        result = boiling.run("cases/", *FAST, gate="default")

    assert_incomplete(result, errors=2, passed=1)
    assert web.judge.call_count >= 1


def test_crawlbase_down_is_incomplete(boiling: Citations) -> None:
    with boiling.web() as web, down(web.crawlbase):
        result = boiling.run("cases/", *FAST, gate="default")

    assert_incomplete(result, errors=2, passed=1)
    result.stdout.fnmatch_lines([f"  [[]2[]] {OLD_REPORT_URL}: fetch_error (*"])


@pytest.mark.parametrize(
    "opt_out",
    [("--citations-allow-unchecked",), ("-o", "citations_allow_unchecked=true")],
    ids=["flag", "ini"],
)
def test_the_opt_out_counts_unchecked_citations_as_their_labels(
    boiling: Citations, opt_out: tuple[str, ...]
) -> None:
    with boiling.web() as web, down(web.judge):
        result = boiling.run("cases/", *FAST, *opt_out, gate="contradicted")

    result.assert_outcomes(passed=3)
    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines(
        ["citations: *allow_unchecked*", "Release decision: pass"], consecutive=False
    )


def test_a_missing_recording_is_an_error_naming_the_cassette(boiling: Citations) -> None:
    result = boiling.run("cases/", gate="default")

    assert_incomplete(result, errors=2, passed=1)
    result.stdout.fnmatch_lines(
        [
            "claim could not be checked: 1 of 1 citations unchecked",
            f"  [[]1[]] {BOILING_URL}: request_refused (*",
            "*cassettes/cases/boiling.yaml has no recording of the Crawlbase crawl of "
            f"{BOILING_URL}*record it with: *pytest --citations cases/boiling.yaml "
            "--citations-record=new_episodes*",
        ]
    )


def test_a_missing_recording_beside_a_recorded_file(citations: Citations) -> None:
    citations.write("cases/a.yaml", single_claim_case("a", SUPPORTED_CLAIM, BOILING_URL))
    citations.record("cases/a.yaml", gate="default")
    citations.write("cases/b.yaml", single_claim_case("b", SUPPORTED_CLAIM, BOILING_URL))

    result = citations.run("cases/", "-rA", gate="default")

    assert_incomplete(result, errors=1, passed=3)
    result.stdout.fnmatch_lines(["ERROR cases/b.yaml::b::claim-1*"])
    result.stdout.fnmatch_lines(
        [
            "cases/a.yaml::a: fully supported 1 of 1; release decision: pass",
            "cases/b.yaml::b: fully supported 0 of 0 checked, 1 unchecked; release decision: "
            "incomplete *",
        ]
    )


def test_a_real_failure_wins_over_incomplete(citations: Citations) -> None:
    citations.write(
        "cases/mixed.yaml", single_claim_case("mixed", CONTRADICTED_CLAIM, BOILING_URL, BROKEN_URL)
    )
    with citations.web() as web:
        web.crawlbase.add(BROKEN_URL, errors=[503] * 20)
        result = citations.run("cases/", *FAST, gate="contradicted")

    # The checked citation contradicts the claim: whatever the other would say, it fails.
    result.assert_outcomes(failed=1, passed=1)
    result.stdout.fnmatch_lines(
        [
            "claim is contradicted (failing labels: contradicted)",
            "also not checked: 1 of 2 citations",
            f"  [[]2[]] {BROKEN_URL}: fetch_error *",
        ]
    )
    result.stdout.fnmatch_lines(
        [
            "cases/mixed.yaml::mixed: *release decision: fail (fail_on: claim-1 *",
            "Release decision: fail *",
        ]
    )


def test_a_threshold_that_unchecked_citations_could_still_meet_is_undecided(
    citations: Citations,
) -> None:
    citations.write(
        "cases/gate.yaml",
        f"""\
        id: gate
        min_precision: 0.9
        citations:
          1: {BOILING_URL}
          2: {BROKEN_URL}
        claims:
          - text: {SUPPORTED_CLAIM}
            cites: [1]
          - text: Water boils at 100 °C at sea level, says another page.
            cites: [2]
        """,
    )
    with citations.web() as web:
        web.crawlbase.add(BROKEN_URL, errors=[503] * 20)
        result = citations.run("cases/", *FAST, gate="default")

    result.assert_outcomes(passed=1, errors=2)
    result.stdout.fnmatch_lines(
        [
            "*ERROR at setup of gate::precision*",
            "case 'gate' could not be decided: min_precision: citation precision 1.0000 (1/1, "
            "1 of 2 checked) could fall below 0.9: 1 citation unchecked",
        ]
    )


def test_a_threshold_missed_whatever_unchecked_citations_say_fails(citations: Citations) -> None:
    citations.write(
        "cases/gate.yaml",
        f"""\
        id: gate
        min_precision: 0.9
        citations:
          1: {BOILING_URL}
          2: {BROKEN_URL}
          3: {OLD_REPORT_URL}
        claims:
          - text: {SUPPORTED_CLAIM}
            cites: [1, 3]
          - text: Water boils at 100 °C at sea level, says another page.
            cites: [2]
        """,
    )
    with citations.web() as web:
        web.crawlbase.add(BROKEN_URL, errors=[503] * 20)
        result = citations.run("cases/", *FAST, gate="default")

    result.assert_outcomes(passed=1, errors=1, failed=1)
    result.stdout.fnmatch_lines(["*release decision: fail (min_precision: *"])


def test_findings_about_the_page_are_results_not_gaps(citations: Citations) -> None:
    citations.write("cases/nine.yaml", NINE_CASE)
    with citations.web():
        recorded = citations.run("cases/", "--citations-record=once", gate="contradicted")
    replayed = citations.run("cases/", gate="contradicted")

    for result in (recorded, replayed):
        result.assert_outcomes(passed=5, failed=1)  # the contradicted claim, as before
        assert "could not be checked" not in result.stdout.str()
    replayed.stdout.fnmatch_lines(["Release decision: fail *"])


def test_junit_xml_counts_unchecked_claims_as_errors(boiling: Citations) -> None:
    with boiling.web() as web, down(web.judge):
        boiling.run("cases/", *FAST, "--junitxml=junit.xml", gate="default")

    suite = ET.parse(boiling.path / "junit.xml").getroot().find("testsuite")
    assert suite is not None
    assert (suite.get("errors"), suite.get("failures")) == ("2", "0")
    error = next(suite.iter("error"))
    assert "judge_error" in (error.text or "")


FIXTURE_TEST = f"""\
def test_verify(citation_verifier):
    verdict = citation_verifier.verify("{SUPPORTED_CLAIM}", ["{BOILING_URL}"])
    print("LABEL", verdict.label.value, verdict.citations[0].reason)
"""


def test_the_fixture_fails_a_test_whose_claim_could_not_be_checked(citations: Citations) -> None:
    citations.pytester.makepyfile(test_answers=FIXTURE_TEST)
    with citations.web() as web, down(web.judge):
        result = citations.run_tests(*FAST)
        allowed = citations.run_tests(*FAST, "--citations-allow-unchecked", "-s")

    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "claim could not be checked: 1 of 1 citations unchecked",
            f"  {BOILING_URL}: judge_error *",
            f"claim: {SUPPORTED_CLAIM}",
            "status: unchecked (no label)",
            f"  {BOILING_URL}",
            "      unchecked (judge_error), confidence 0.00",
        ]
    )
    assert "label: not_found" not in result.stdout.str()  # it has no label
    allowed.assert_outcomes(passed=1)
    allowed.stdout.fnmatch_lines(["*LABEL not_found judge_error*"])


def test_a_pdf_citation_alone_passes_offline(citations: Citations) -> None:
    citations.write("cases/pdf.yaml", single_claim_case("pdf", SUPPORTED_CLAIM, PDF_URL))

    result = citations.run("cases/", gate="contradicted")

    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(["Release decision: pass"])


def test_under_xdist_the_decision_is_incomplete_too(boiling: Citations) -> None:
    boiling.write("cases/pdf.yaml", single_claim_case("pdf", SUPPORTED_CLAIM, PDF_URL))
    with boiling.web() as web, down(web.judge):
        result = boiling.run("cases/", *FAST, "-n", "2", gate="contradicted")

    assert_incomplete(result, errors=2, passed=3)
    result.stdout.fnmatch_lines(
        ["cases/boiling.yaml::boiling-point: *release decision: incomplete (claim-1, claim-2 *"]
    )


def test_the_opt_out_never_counts_a_missing_recording_as_a_label(boiling: Citations) -> None:
    """``--citations-allow-unchecked`` counts a judge or crawler that failed as its label; a
    request missing from the cassette of an offline replay is not such a failure, and stays an
    error naming the command that records it (before, 2 of 3 items passed as not_found)."""
    boiling.record("cases/", gate="default")
    boiling.cassette("cases/boiling.yaml").unlink()

    result = boiling.run("cases/", "--citations-allow-unchecked", gate="default")

    assert_incomplete(result, errors=2, passed=1)
    result.stdout.fnmatch_lines(
        [
            "*record it with: * pytest --citations cases/boiling.yaml "
            "--citations-record=new_episodes",
            "Record what is missing with the command above (--citations-allow-unchecked never "
            "counts a missing recording as a label).",
        ]
    )


def test_the_fixture_never_counts_a_missing_recording_as_a_label(citations: Citations) -> None:
    citations.pytester.makepyfile(test_answers=FIXTURE_TEST)

    result = citations.run_tests("--citations-allow-unchecked")

    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["claim could not be checked: 1 of 1 citations unchecked"])


def test_an_uncited_claim_whose_retrieved_sources_lack_a_recording_says_so(
    citations: Citations,
) -> None:
    """Its retrieved (uncited) sources are checked for misattribution; a replay without
    their recording said "1 of 0 citations unchecked"."""
    citations.write(
        "cases/general.yaml",
        f"""\
        id: general
        citations:
          1: {BOILING_URL}
        retrieved:
          - {OLD_REPORT_URL}
        claims:
          - text: Water is a common substance.
            cites: []
            general: true
        """,
    )

    result = citations.run("cases/", gate="default")

    result.stdout.fnmatch_lines(
        [
            "claim could not be checked: a request it needs is missing from the recording",
            "  cassettes/cases/general.yaml has no recording of the Crawlbase crawl of "
            f"{OLD_REPORT_URL} *; record it with: *",
        ]
    )
    assert "of 0 citations" not in result.stdout.str()
