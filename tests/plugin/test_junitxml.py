"""``--junitxml`` carries flat, readable properties per claim (issue 11); the full claim
result travels to the reporter on the test report itself, which JUnit never prints and
pytest-xdist hands from its workers to the controller. pytest's junitxml is the one writer of
the file (issue 25: the plugin no longer reads it back and rewrites it): each case item's
report carries its properties, its own time, and its case file and 1-based line, which
pytest writes under ``junit_family=xunit1`` (the default ``xunit2``'s schema has no file or
line for any test)."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from plugin_helpers import (
    BOILING_CASE,
    BOILING_URL,
    CONTRADICTED_CLAIM,
    OLD_REPORT_URL,
    RETURNS_CASE,
    RETURNS_URL,
    Citations,
    claims_by_nodeid,
    junit_testcases,
    load_report,
)


def properties(xml: Path) -> dict[str, list[tuple[str, str]]]:
    """Each ``<testcase>``'s properties, in order, by ``classname.name``."""
    root = ET.parse(xml).getroot()
    return {
        f"{case.get('classname')}.{case.get('name')}": [
            (str(p.get("name")), str(p.get("value"))) for p in case.iter("property")
        ]
        for case in root.iter("testcase")
    }


@pytest.fixture
def recorded(citations: Citations) -> Citations:
    """The boiling and returns cases, recorded, under the gate that fails only a
    contradicted claim (chosen explicitly: the default also fails partial and not_found)."""
    citations.write("pytest.ini", "[pytest]\ncitations_fail_on = contradicted\n")
    citations.write("cases/boiling.yaml", BOILING_CASE)
    citations.write("cases/returns.yaml", RETURNS_CASE)
    result, _ = citations.record("cases/", gate="ini")
    result.assert_outcomes(passed=6, failed=1)
    return citations


@pytest.mark.parametrize("workers", ["0", "2"])
def test_junit_shows_flat_properties_and_the_records_still_reach_the_reports(
    recorded: Citations, workers: str
) -> None:
    xml = recorded.path / "junit.xml"

    result = recorded.run(
        "cases/", "-v", "-n", workers, f"--junitxml={xml}", "--citations-report=report.json",
        gate="ini"
    )

    result.assert_outcomes(passed=6, failed=1)
    found = properties(xml)
    claim_1 = dict(found["cases.boiling.yaml.boiling-point.claim-1"])
    assert list(claim_1)[:2] == ["claim", "label"]
    assert claim_1["label"] == "supported"
    assert (claim_1["citation.1.url"], claim_1["citation.1.label"]) == (BOILING_URL, "supported")
    assert claim_1["citation.1.quote"].startswith("Water boils at 100")
    assert claim_1["citation.1.confidence"] == "0.90"
    assert claim_1["citation.1.reason"] == ""
    assert (claim_1["citation.2.url"], claim_1["citation.2.reason"]) == (OLD_REPORT_URL, "http_404")
    partial = dict(found["cases.returns.yaml.returns-policy.claim-1"])
    assert (partial["label"], partial["citation.1.url"]) == ("partial", RETURNS_URL)
    precision = dict(found["cases.returns.yaml.returns-policy.precision"])
    assert precision == {"precision": "1/3", "decision": "pass"}
    text = xml.read_text(encoding="utf-8")
    assert "citations_claim" not in text
    assert '"evidence"' not in text  # no JSON blob, no passages
    # The records reached the summary, the verbose status and the JSON report all the same.
    assert any("returns-policy::claim-1" in line and "PASSED [partial]" in line
               for line in result.outlines)  # fmt: skip
    result.stdout.re_match_lines([r"cases/returns\.yaml::returns-policy +3 +1 +1 +0 +1 .*"])
    report = load_report(recorded.path / "report.json")
    assert len(claims_by_nodeid(report)) == 5
    assert {case["release"]["decision"] for case in report["cases"]} == {"pass", "fail"}


#: Where each item of the boiling and returns cases is: the case file and the 1-based line
#: of its claim (of the case, for the precision item).
SITES = {
    "cases.boiling.yaml.boiling-point.claim-1": ("cases/boiling.yaml", "8"),
    "cases.boiling.yaml.boiling-point.claim-2": ("cases/boiling.yaml", "10"),
    "cases.boiling.yaml.boiling-point.precision": ("cases/boiling.yaml", "1"),
    "cases.returns.yaml.returns-policy.claim-1": ("cases/returns.yaml", "7"),
    "cases.returns.yaml.returns-policy.claim-2": ("cases/returns.yaml", "9"),
    "cases.returns.yaml.returns-policy.claim-3": ("cases/returns.yaml", "11"),
    "cases.returns.yaml.returns-policy.precision": ("cases/returns.yaml", "1"),
}


@pytest.mark.parametrize("workers", ["0", "2"])
def test_each_case_item_names_its_case_file_and_the_line_of_its_claim(
    recorded: Citations, workers: str
) -> None:
    xml = recorded.path / "junit.xml"
    lines = recorded.path.joinpath("cases/boiling.yaml").read_text(encoding="utf-8").splitlines()

    result = recorded.run("cases/", "-n", workers, f"--junitxml={xml}", "-o", "junit_family=xunit1",
                          gate="ini")

    result.assert_outcomes(passed=6, failed=1)
    found = junit_testcases(xml)
    assert {name: (case.get("file"), case.get("line")) for name, case in found.items()} == SITES
    # The line is the claim's own (1-based; pytest's xunit1 line would be 0-based).
    assert lines[10 - 1] == f"  - text: {CONTRADICTED_CLAIM}"
    # Everything else pytest wrote is still there: properties, the failure, the suite.
    claim_2 = found["cases.boiling.yaml.boiling-point.claim-2"]
    assert claim_2.find("failure") is not None
    assert dict(properties(xml)["cases.boiling.yaml.boiling-point.claim-2"])["label"] == (
        "contradicted"
    )
    suite = ET.parse(xml).getroot().find("testsuite")
    assert suite is not None
    assert (suite.get("tests"), suite.get("failures")) == ("7", "1")


def test_under_the_default_family_pytest_writes_the_file_once_without_sites(
    recorded: Citations,
) -> None:
    """The plugin wrote the file pytest wrote a second time, with ``file`` and ``line``
    added to the case items only, which ``xunit2``'s schema does not have: pytest alone
    writes it now, the same for every test."""
    recorded.write("test_plain.py", "def test_plain():\n    assert True\n")
    xml = recorded.path / "junit.xml"

    result = recorded.run("cases/", "test_plain.py", f"--junitxml={xml}", gate="ini")

    result.assert_outcomes(passed=7, failed=1)
    found = junit_testcases(xml)
    assert all(case.get("file") is None and case.get("line") is None for case in found.values())
    assert dict(properties(xml)["cases.boiling.yaml.boiling-point.claim-2"])["label"] == (
        "contradicted"
    )
    assert xml.read_text(encoding="utf-8").startswith('<?xml version="1.0" encoding="utf-8"?>')


def durations(result: pytest.RunResult) -> dict[str, float]:
    """pytest's own time of each item, its phases added up (``--durations=0 -vv``)."""
    found: dict[str, float] = {}
    for line in result.outlines:
        match = re.match(r"^(\d+\.\d+)s (?:setup|call|teardown) +(\S+)$", line.strip())
        if match:
            found[match[2]] = found.get(match[2], 0.0) + float(match[1])
    return found


@pytest.mark.parametrize("workers", ["0", "2"])
def test_each_claim_item_takes_its_own_share_of_its_files_verification_time(
    citations: Citations, workers: str
) -> None:
    """Recorded against emulators that answer after 0.15 s: the first claim fetches both
    pages and asks the judge once (the second page is a 404), the second reuses the first
    page and asks the judge once. The file is verified while the first item sets up; each
    claim item's report carries its share of that instead, which pytest writes into the
    JUnit file and shows in ``--durations`` alike."""
    citations.write("cases/boiling.yaml", BOILING_CASE)
    xml = citations.path / "junit.xml"
    with citations.web(latency=0.15) as web:
        web.judge.latency = 0.15
        result = citations.run(
            "cases/", "--citations-record=once", "-n", workers, f"--junitxml={xml}",
            "--durations=0", "-vv", gate="default",
        )  # fmt: skip

    result.assert_outcomes(passed=2, failed=1)
    times = {name: float(case.get("time") or 0) for name, case in junit_testcases(xml).items()}
    first, second = (times[f"cases.boiling.yaml.boiling-point.claim-{n}"] for n in (1, 2))
    measured = durations(result)
    claims = [f"cases/boiling.yaml::boiling-point::claim-{n}" for n in (1, 2)]
    # One time per item: what pytest shows is what it writes.
    assert [measured[c] for c in claims] == pytest.approx([first, second], abs=0.01)
    # Nothing lost, nothing made up: the file's verification (two round trips of 0.15 s at
    # least) is in the claims' times, and in no other item's.
    assert first + second >= 0.3
    assert first > second > 0.05  # no claim item is 0.001: each did its own work
    assert times["cases.boiling.yaml.boiling-point.precision"] < 0.05  # it verified nothing
