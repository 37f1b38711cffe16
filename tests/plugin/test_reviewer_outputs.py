"""What a reviewer sees of a recording run under GitHub Actions (issue 27), end to end: the
Markdown summary links each failing claim to its line at the pull request's head commit and
shows the cited URL, the label and the page's quote; the HTML report shows the answer with
its claims marked; the JSON report carries the answer, each claim's span and link, and the
plan beside the spend, the JavaScript page's escalation in the JavaScript credits. The run
is made with canary tokens: none reaches any output. The gate is given explicitly."""

from __future__ import annotations

import re

from canaries import CANARIES, files_with_leaks, leaks
from plugin_helpers import (
    ALTITUDE_APP_URL,
    BOILING_URL,
    OLD_REPORT_URL,
    Citations,
    load_report,
)

CASE = f"""\
id: reviewed
question: At what temperature does water boil?
answer: >-
  Water boils at 100 °C at sea level [1][2]. On mountains water boils at 50 °C [1].
  At high altitude water boils at a lower temperature [3].
citations:
  1: {BOILING_URL}
  2: {OLD_REPORT_URL}
  3: {ALTITUDE_APP_URL}
"""
HEAD = "0123456789abcdef0123456789abcdef01234567"
MERGE = "fedcba9876543210fedcba9876543210fedcba98"


def test_a_reviewer_goes_from_the_summary_to_the_claims_line_and_quote(
    citations: Citations,
) -> None:
    citations.write("cases/reviewed.yaml", CASE)
    summary = citations.path / "step-summary.md"
    for name, value in {
        "GITHUB_ACTIONS": "true",
        "GITHUB_STEP_SUMMARY": str(summary),
        "GITHUB_WORKSPACE": str(citations.path),
        "GITHUB_SERVER_URL": "https://github.com",
        "GITHUB_REPOSITORY": "acme/answers",
        "GITHUB_SHA": MERGE,
        "GITHUB_RUN_ID": "4242",
    }.items():
        citations.monkeypatch.setenv(name, value)
    with citations.web(tokens=CANARIES) as web:
        result = citations.run_subprocess(
            "cases/", "--citations-record=once", "--citations-fail-on=contradicted",
            f"--citations-source-sha={HEAD}", "--citations-artifact=citations-reports",
            "--citations-report=out/report.json", "--citations-html=out/report.html",
            "--citations-markdown=out/summary.md", gate="args",
        )  # fmt: skip
    assert web.judge.call_count > 0

    report = load_report(citations.path / "out" / "report.json")
    (case,) = report["cases"]
    answer = case["answer"]
    assert answer.startswith("Water boils at 100 °C")
    claims = {claim["claim"]: claim for claim in case["claims"]}
    mountains = claims["On mountains water boils at 50 °C."]
    start, end = mountains["answer_span"]
    assert answer[start:end] == "On mountains water boils at 50 °C [1]."
    blob = f"https://github.com/acme/answers/blob/{HEAD}/cases/reviewed.yaml#L{mountains['line']}"
    assert mountains["link"] == blob
    assert report["run"]["source"]["commit"] == HEAD

    # Markdown: one click from the failing claim to its line; the quote is in the summary.
    markdown = (citations.path / "out" / "summary.md").read_text(encoding="utf-8")
    assert markdown == summary.read_text(encoding="utf-8")
    failing = markdown.split("### Claims that fail", 1)[1].split("###", 1)[0]
    assert f"[cases/reviewed.yaml::reviewed::claim-2]({blob})" in failing
    assert MERGE not in markdown
    quote = mountains["citations"][0]["evidence_quote"]
    assert quote
    assert f"{BOILING_URL} (contradicted): “" in failing
    assert " ".join(quote.split())[:40] in failing.replace("\\", "")
    assert (
        "report.html in the artifact citations-reports of "
        "[this run](https://github.com/acme/answers/actions/runs/4242)"
    ) in markdown

    # HTML: the answer with each claim marked, linked to its verdict.
    page = (citations.path / "out" / "report.html").read_text(encoding="utf-8")
    marks = re.findall(r'<mark class="[^"]*" id="answer-([^"]+)"><a href="#([^"]+)"', page)
    assert len(marks) == 3
    assert all(mark == target for mark, target in marks)
    assert f'href="{blob}"' in page

    # The plan beside the spend: the JavaScript-only page escalated, and was paid as such.
    recording = report["summary"]["recording"]
    assert recording["spent"]["credits_by_kind"]["javascript"] > 0
    assert recording["spent"]["judge_calls"] == web.judge.call_count
    assert recording["planned"]["pages"] == 3
    said = next(line for line in result.outlines if line.startswith("recording: planned "))
    assert re.search(r"spent [\d.]+ credits \(normal [\d.]+, javascript [1-9][\d.]*, ", said)

    assert files_with_leaks(citations.path) == {}
    assert leaks(result.stdout.str()) == []
    assert leaks(result.stderr.str()) == []
