"""The secret canary: a recording made with canary tokens, with every output the plugin
has turned on (JSON report, audit database, junit XML, DEBUG live logs), leaves no trace of
any token in any file or in the output."""

from __future__ import annotations

import pytest
from canaries import CANARIES, files_with_leaks, leaks
from plugin_helpers import (
    ALTITUDE_APP_URL,
    ALTITUDE_CLAIM,
    BOILING_URL,
    CONTRADICTED_CLAIM,
    OLD_REPORT_URL,
    SUPPORTED_CLAIM,
    Citations,
    load_report,
)

CASE = f"""\
id: canary
citations:
  1: {BOILING_URL}
  2: {OLD_REPORT_URL}
  3: {ALTITUDE_APP_URL}
claims:
  - text: {SUPPORTED_CLAIM}
    cites: [1, 2]
  - text: {CONTRADICTED_CLAIM}
    cites: [1]
  - text: {ALTITUDE_CLAIM}
    cites: [3]
"""


def test_no_token_reaches_any_file_or_any_output(citations: Citations) -> None:
    citations.write("cases/canary.yaml", CASE)
    with citations.web(tokens=CANARIES) as web:
        result = citations.run_subprocess(
            "cases/",
            "--citations-record=once",
            "--citations-report=out/report.json",
            "--citations-audit=out/audit.sqlite",
            "--junitxml=out/junit.xml",
            "--log-level=DEBUG",
            "-o",
            "log_cli=true",
            "-o",
            "log_cli_level=DEBUG",
            "-rA",
            "-v",
            cache=True, gate="default",  # the embedding cache on disk is searched too
        )

    # The canaries were really sent and accepted: normal and JavaScript crawls, a 404, judge.
    kinds = {(record.token_kind, record.javascript) for record in web.crawlbase.requests}
    assert {("normal", False), ("js", True)} <= kinds
    assert web.crawlbase.count(OLD_REPORT_URL) == 1
    assert web.judge.call_count > 0
    assert all(call.status == 200 for call in web.judge.calls)
    result.assert_outcomes(passed=3, failed=1)
    report = load_report(citations.path / "out" / "report.json")
    assert [claim["label"] for claim in report["cases"][0]["claims"]] == [
        "supported",
        "contradicted",
        "supported",
    ]
    # httpx logged the requests (at INFO), so the log really went through the redaction.
    result.stdout.fnmatch_lines(["*HTTP Request: GET http://127.0.0.1:*token=*"])

    for name in ("report.json", "audit.sqlite", "junit.xml"):
        assert (citations.path / "out" / name).is_file(), name
    assert (citations.path / "cassettes" / "cases" / "canary.yaml").is_file()
    assert files_with_leaks(citations.path) == {}
    assert leaks(result.stdout.str()) == []
    assert leaks(result.stderr.str()) == []


@pytest.mark.parametrize("level", ["DEBUG", "INFO"])
def test_captured_logs_of_a_failing_claim_hold_no_token(citations: Citations, level: str) -> None:
    # A failing claim makes pytest print its captured log records; none may show a token.
    citations.write("cases/canary.yaml", CASE)
    with citations.web(tokens=CANARIES):
        result = citations.run("cases/", "--citations-record=once", f"--log-level={level}", "-rA",
                               gate="default")

    result.assert_outcomes(passed=3, failed=1)
    assert "HTTP Request" in result.stdout.str()
    assert leaks(result.stdout.str()) == []
    assert files_with_leaks(citations.path / "cassettes") == {}


def test_no_token_reaches_the_annotations_the_job_summary_or_the_markdown(
    citations: Citations, refused_url: str
) -> None:
    # The judge is down: every judged claim could not be checked, and says why at its line.
    citations.write("cases/canary.yaml", CASE)
    summary = citations.path / "out" / "step-summary.md"
    summary.parent.mkdir()
    citations.monkeypatch.setenv("GITHUB_ACTIONS", "true")
    citations.monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    with citations.web(tokens=CANARIES) as web:
        citations.monkeypatch.setenv("OPENAI_BASE_URL", refused_url)
        citations.monkeypatch.setenv("CITATIONS_RETRIES", "1")
        result = citations.run_subprocess(
            "cases/", "--citations-record=once", "--citations-markdown=out/summary.md",
            "--junitxml=out/junit.xml", "-rA", gate="default",
        )  # fmt: skip

    assert web.crawlbase.crawl_count > 0  # the canaries were sent
    errors = [line for line in result.outlines if line.startswith("::error ")]
    assert len(errors) == 3, result.outlines[-20:]
    assert all("could not be checked" in line for line in errors)
    assert "### Could not be checked" in summary.read_text(encoding="utf-8")
    assert (citations.path / "out" / "summary.md").is_file()
    assert files_with_leaks(citations.path) == {}
    assert leaks(result.stdout.str()) == []
    assert leaks(result.stderr.str()) == []
