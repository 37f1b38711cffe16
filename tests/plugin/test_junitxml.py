"""``--junitxml`` carries flat, readable properties per claim (issue 11); the full claim
record travels to the reporter on the test report itself, which JUnit never prints and
pytest-xdist hands from its workers to the controller."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from plugin_helpers import (
    BOILING_CASE,
    BOILING_URL,
    OLD_REPORT_URL,
    RETURNS_CASE,
    RETURNS_URL,
    Citations,
    claims_by_nodeid,
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
    """The boiling and returns cases, recorded."""
    citations.write("cases/boiling.yaml", BOILING_CASE)
    citations.write("cases/returns.yaml", RETURNS_CASE)
    result, _ = citations.record("cases/")
    result.assert_outcomes(passed=6, failed=1)
    return citations


@pytest.mark.parametrize("workers", ["0", "2"])
def test_junit_shows_flat_properties_and_the_records_still_reach_the_reports(
    recorded: Citations, workers: str
) -> None:
    xml = recorded.path / "junit.xml"

    result = recorded.run(
        "cases/", "-v", "-n", workers, f"--junitxml={xml}", "--citations-report=report.json"
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
