"""The run's results: the terminal summary (table, unverified citations, precision, usage),
the JSON report (``--citations-report``, ini ``citations_report``) and ``--junitxml``."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import pytest
from plugin_helpers import (
    BOILING_CASE,
    NINE_CASE,
    Citations,
    Web,
    claims_by_nodeid,
    load_report,
)

#: The fields of every citation verdict, as the engine gives them (000's eight + warnings).
VERDICT_FIELDS = {
    "url",
    "label",
    "evidence_quote",
    "confidence",
    "final_url",
    "original_status",
    "rid",
    "reason",
    "warnings",
}
CLAIMS_PASS = ("--citations-fail-on", "unreachable")
USAGE = re.compile(
    r"crawlbase_credits=(?P<credits>[\d.]+) \((?P<breakdown>[^)]*)\); "
    r"judge_calls=(?P<calls>\d+) judge_tokens=(?P<tokens>\d+)"
    r"(?:; replayed: (?P<r_crawls>\d+) crawls \((?P<r_credits>[\d.]+) credits saved\), "
    r"(?P<r_calls>\d+) judge calls \((?P<r_tokens>\d+) tokens saved\))?$"
)


def usage_of(result: pytest.RunResult) -> dict[str, str | None]:
    """The numbers of the summary's usage line; the credit breakdown (``normal 6, ...``)
    as ``breakdown_normal`` and so on."""
    for line in result.outlines:
        found = USAGE.match(line)
        if found:
            numbers: dict[str, str | None] = found.groupdict()
            for part in (found["breakdown"] or "").split(","):
                name, _, amount = part.strip().partition(" ")
                numbers[f"breakdown_{name}"] = amount
            return numbers
    raise AssertionError("no usage line in the output:\n" + result.stdout.str())


@pytest.fixture
def nine(citations: Citations) -> tuple[Citations, pytest.RunResult, Web]:
    """The nine-citation case, recorded: ``(citations, recording result, emulators)``."""
    citations.write("cases/nine.yaml", NINE_CASE)
    result, web = citations.record("cases/", *CLAIMS_PASS, gate="args")
    result.assert_outcomes(passed=6)
    return citations, result, web


def test_summary_table_precision_and_unverified_citations(
    nine: tuple[Citations, pytest.RunResult, Web],
) -> None:
    citations, _, _ = nine

    result = citations.run("cases/", *CLAIMS_PASS, gate="args")

    result.assert_outcomes(passed=6)
    result.stdout.fnmatch_lines(
        [
            "*= citations =*",
            "case *claims *supported *partial *contradicted *not_found *unreachable*"
            "precision *reachable",
        ]
    )
    result.stdout.re_match_lines(
        [
            r"cases/nine\.yaml::nine +5 +2 +1 +1 +1 +0 .*0\.2222 \(2/9\) +0\.3333 \(2/6\)$",
        ]
    )
    result.stdout.fnmatch_lines(
        [
            "citations not verified:",
            "  cases/nine.yaml::nine::claim-1: unreachable (http_404) https://example.org/old-report",
            "  cases/nine.yaml::nine::claim-2: unreachable (http_404) https://example.org/gone",
            "  cases/nine.yaml::nine::claim-5: not_found https://shop.example.com/policies/returns",
            "  cases/nine.yaml::nine::claim-5: unreachable (soft_404) "
            "https://example.org/physics/vapour-pressure",
            "  cases/nine.yaml::nine::claim-5: not_found (pdf_unsupported) "
            "https://example.org/reports/boiling-points.pdf",
        ]
    )
    result.stdout.fnmatch_lines(
        ["citation_precision=0.2222 (2/9)", "reachable_precision=0.3333 (2/6)"]
    )


def test_recording_counts_what_it_spent(nine: tuple[Citations, pytest.RunResult, Web]) -> None:
    _, recording, web = nine

    spent = usage_of(recording)

    assert float(spent["credits"] or 0) == web.crawlbase.credits > 0
    assert int(spent["breakdown_normal"] or 0) == web.crawlbase.crawl_count == 6
    assert int(spent["calls"] or 0) == web.judge.call_count > 0
    assert int(spent["tokens"] or 0) == web.judge.tokens["total"] > 0
    assert spent["r_crawls"] is None  # nothing was replayed


def test_replay_spends_nothing_and_counts_what_it_saved(
    nine: tuple[Citations, pytest.RunResult, Web],
) -> None:
    citations, recording, web = nine

    replay = citations.run("cases/", *CLAIMS_PASS, gate="args")

    saved = usage_of(replay)
    spent = usage_of(recording)
    assert saved["credits"] == "0"
    assert {v for k, v in saved.items() if k.startswith("breakdown_")} == {"0"}
    assert (saved["calls"], saved["tokens"]) == ("0", "0")
    assert saved["r_crawls"] == str(web.crawlbase.crawl_count)
    assert float(saved["r_credits"] or 0) == float(spent["credits"] or 0)
    assert saved["r_calls"] == spent["calls"]
    assert saved["r_tokens"] == spent["tokens"]


def test_json_report_holds_every_case_claim_and_verdict(
    nine: tuple[Citations, pytest.RunResult, Web],
) -> None:
    citations, _, _ = nine
    citations.write("cases/boiling.yaml", BOILING_CASE)
    with citations.web():
        citations.run("cases/boiling.yaml", "--citations-record=once", gate="default")

    result = citations.run("cases/", *CLAIMS_PASS, "--citations-report", "out/report.json",
                           gate="args")

    result.stdout.fnmatch_lines(["citations report: out/report.json"])
    report = load_report(citations.path / "out" / "report.json")
    assert [(case["file"], case["id"]) for case in report["cases"]] == [
        ("cases/boiling.yaml", "boiling-point"),
        ("cases/nine.yaml", "nine"),
    ]
    claims = claims_by_nodeid(report)
    assert [claims[f"cases/nine.yaml::nine::claim-{n}"]["label"] for n in range(1, 6)] == [
        "supported",
        "supported",
        "contradicted",
        "partial",
        "not_found",
    ]
    assert claims["cases/boiling.yaml::boiling-point::claim-2"]["label"] == "contradicted"
    for claim in claims.values():
        for citation in claim["citations"]:
            assert set(citation) == VERDICT_FIELDS
    pdf = claims["cases/nine.yaml::nine::claim-5"]["citations"][2]
    assert pdf == {
        "url": "https://example.org/reports/boiling-points.pdf",
        "label": "not_found",
        "evidence_quote": None,
        "confidence": 1.0,
        "final_url": None,
        "original_status": None,
        "rid": None,
        "reason": "pdf_unsupported",
        "warnings": [],
    }
    supported = claims["cases/nine.yaml::nine::claim-1"]["citations"][0]
    assert supported["label"] == "supported"
    assert supported["evidence_quote"].startswith("Water boils at 100 °C")
    assert supported["original_status"] == 200
    assert supported["rid"]
    nine_case = next(case for case in report["cases"] if case["id"] == "nine")
    assert nine_case["citation_precision"] == pytest.approx(2 / 9)
    assert nine_case["reachable_precision"] == pytest.approx(2 / 6)
    # boiling-point: 1 of 3 supported, 1 unreachable; nine: 2 of 9, 3 unreachable.
    assert report["summary"]["citation_precision"] == pytest.approx(3 / 12)
    assert report["summary"]["reachable_precision"] == pytest.approx(3 / 8)


def test_json_report_path_from_ini(nine: tuple[Citations, pytest.RunResult, Web]) -> None:
    citations, _, _ = nine
    citations.pytester.makeini("[pytest]\ncitations_report = results/citations.json\n")

    citations.run("cases/", *CLAIMS_PASS, gate="args")

    report = load_report(citations.path / "results" / "citations.json")
    assert report["summary"]["citation_precision"] == pytest.approx(2 / 9)
    assert len(claims_by_nodeid(report)) == 5


def test_junitxml_carries_each_claim_as_flat_properties(
    nine: tuple[Citations, pytest.RunResult, Web],
) -> None:
    citations, _, _ = nine

    citations.run("cases/", *CLAIMS_PASS, "--junitxml=junit.xml", gate="args")

    root = ET.parse(citations.path / "junit.xml").getroot()
    claims = {}
    for testcase in root.iter("testcase"):
        properties = {p.get("name"): p.get("value") for p in testcase.iter("property")}
        if "label" in properties:
            claims[testcase.get("name")] = properties
    assert sorted(claims) == [f"claim-{n}" for n in range(1, 6)]
    assert claims["claim-3"]["label"] == "contradicted"
    fifth = claims["claim-5"]
    assert [fifth[f"citation.{n}.label"] for n in (1, 2, 3)] == [
        "not_found",
        "unreachable",
        "not_found",
    ]
    assert fifth["citation.2.reason"] == "soft_404"
    assert fifth["citation.3.url"] == "https://example.org/reports/boiling-points.pdf"
    supported = claims["claim-1"]
    assert supported["citation.1.quote"].startswith("Water boils at 100")
    assert supported["citation.1.confidence"] == "0.90"
    # The record (passages included) is the JSON report's, not JUnit's.
    assert "citations_claim" not in (citations.path / "junit.xml").read_text(encoding="utf-8")


def test_no_summary_without_case_files(citations: Citations) -> None:
    citations.pytester.makepyfile(test_plain="def test_ok():\n    pass\n")

    result = citations.run("test_plain.py", "--citations-report", "report.json", gate="default")

    result.assert_outcomes(passed=1)
    assert "citation_precision" not in result.stdout.str()
