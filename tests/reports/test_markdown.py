"""The Markdown summary renders the typed results: the decision, one row per case, the claims
that fail, what could not be checked and why, the regressions a comparison gives, the costs
and the HTML report's place; text from case files and pages shows literally, on one line,
and mentions no one."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from pytest_citations.gating.criteria import Decision
from pytest_citations.gating.decisions import RunDecision
from pytest_citations.gating.records import CaseInfo, CaseOutcome, ClaimRecord
from pytest_citations.gating.run_report import RunReport
from pytest_citations.labels import Label, Reason
from pytest_citations.precision import Precision
from pytest_citations.reports import WRITERS, RunInfo
from pytest_citations.reports.markdown_report import MAX_ENTRIES, render, text
from pytest_citations.verdicts import CitationVerdict

INFO = CaseInfo("cases/odd.yaml", "odd")
HOSTILE = "Pipes | and `ticks` <script>alert(1)</script> *bold* [link](x) @octocat\nnext"


def _report(*claims: ClaimRecord, outcome: Decision | None = Decision.FAIL) -> RunReport:
    report = RunReport()
    for claim in claims:
        report.add_claim(claim)
    if outcome is not None:
        report.add_case(CaseOutcome(INFO, outcome, Precision(0, 2, 2), ("fail_on: x",)))
    return report


def _claim(index: int, text_: str, label: str, decision: Decision, **fields: object) -> ClaimRecord:
    return ClaimRecord(
        nodeid=f"cases/odd.yaml::odd::claim-{index}",
        info=INFO,
        index=index,
        line=4 + 2 * index,
        claim=text_,
        label=label,
        decision=decision,
        **fields,  # type: ignore[arg-type]
    )


FAILING = _claim(
    1,
    HOSTILE,
    "contradicted",
    Decision.FAIL,
    citations=(CitationVerdict("https://a.example/p", Label.CONTRADICTED),),
    failures=("fail_on: the claim is contradicted",),
)
UNCHECKED = _claim(
    2,
    "Refunds take 5 days.",
    "not_found",
    Decision.INCOMPLETE,
    citations=(CitationVerdict("https://b.example/q", Label.NOT_FOUND, reason=Reason.JUDGE_ERROR),),
    unchecked=("[1] https://b.example/q: judge_error (…)",),
    problems=("the judge failed: HTTP 503 after 4 attempts",),
)


def test_text_shows_literally_on_one_line_and_mentions_no_one() -> None:
    shown = text(HOSTILE)

    assert "\n" not in shown
    assert "<script>" not in shown
    assert "&lt;script&gt;" in shown
    for raw, escaped in (("|", "\\|"), ("`", "\\`"), ("*", "\\*"), ("[", "\\["), ("_", "\\_")):
        assert escaped in text(raw)
    assert "@octocat" not in shown
    assert "@\u200boctocat" in shown


def test_the_summary_holds_the_decision_the_table_the_failures_and_what_was_not_checked() -> None:
    report = _report(FAILING, UNCHECKED)
    info = RunInfo(files=(("json", "out/citations.json"), ("html", "out/citations.html")))

    markdown = render(report, RunDecision(), info)

    lines = markdown.splitlines()
    assert lines[0] == "## Citations: fail"
    assert lines[2] == "**Release decision: fail (cases/odd.yaml::odd: fail\\_on: x)**"
    [row] = [line for line in lines if line.startswith("| cases/odd.yaml::odd |")]
    assert row == "| cases/odd.yaml::odd | 2 | 0 | 1 | 1 | 0.0000 (0/2) | fail |"
    failing = next(line for line in lines if line.startswith("- cases/odd.yaml::odd::claim-1"))
    assert "(line 6, contradicted)" in failing
    assert text(HOSTILE) in failing
    assert "fail\\_on: the claim is contradicted" in failing
    unchecked = lines.index("### Could not be checked")
    assert lines[unchecked + 2] == (
        "- cases/odd.yaml::odd::claim-2 (line 8): https://b.example/q: judge\\_error "
        "(the judge could not be reached or answered with an error)"
    )
    assert lines[unchecked + 3] == "  - the judge failed: HTTP 503 after 4 attempts"
    assert "### Costs" in lines
    assert lines[-1] == "The HTML report, every claim with its evidence: out/citations.html"
    assert "<script>" not in markdown


def test_a_table_row_stays_one_row_whatever_the_case_is_called() -> None:
    info = CaseInfo("cases/a|b.yaml", "x|y")
    report = RunReport()
    report.add_case(CaseOutcome(info, Decision.PASS, Precision(1, 1, 1)))

    [row] = [line for line in render(report, RunDecision(), RunInfo()).splitlines()
             if line.startswith("| cases/")]  # fmt: skip

    assert row.replace("\\|", "").count("|") == 8  # seven cells


@dataclass(frozen=True)
class Found:
    """A regression as a comparison might yield it."""

    nodeid: str
    line: int
    summary: str
    fails: bool


def test_regressions_a_comparison_gives_have_their_own_section() -> None:
    found = [Found("cases/odd.yaml::odd::claim-2", 8, "supported → partial", fails=False)]

    markdown = render(_report(FAILING), RunDecision(), RunInfo(), regressions=found)
    without = render(_report(FAILING), RunDecision(), RunInfo())

    lines = markdown.splitlines()
    section = lines.index("### Regressions against the base")
    assert lines[section + 2] == (
        "- cases/odd.yaml::odd::claim-2 (line 8): supported → partial (does not fail the gate)"
    )
    assert "Regressions" not in without


def test_a_long_list_says_how_many_more_there_are() -> None:
    claims = [
        _claim(n, f"Claim {n}.", "contradicted", Decision.FAIL, failures=("fail_on: x",))
        for n in range(1, MAX_ENTRIES + 8)
    ]

    lines = render(_report(*claims), RunDecision(), RunInfo()).splitlines()

    listed = [line for line in lines if line.startswith("- cases/odd.yaml::odd::claim-")]
    assert len(listed) == MAX_ENTRIES
    assert "- … and 7 more (the JSON and HTML reports list them all)" in lines


def test_the_markdown_writer_is_a_report_format(tmp_path: Path) -> None:
    path = tmp_path / "out" / "summary.md"
    report = _report(FAILING)

    WRITERS["markdown"](path, report, RunDecision(), RunInfo())

    assert path.read_text(encoding="utf-8") == render(report, RunDecision(), RunInfo())


def test_a_summary_over_githubs_limit_is_cut_at_a_line_with_a_note(tmp_path: Path) -> None:
    # 13,000 cases: a table of about 1.1 MB, over the 1 MiB GitHub shows of a step's summary.
    report = RunReport()
    for n in range(13_000):
        info = CaseInfo(f"cases/generated/case-{n:05d}.yaml", f"case-{n:05d}")
        report.add_case(CaseOutcome(info, Decision.PASS, Precision(1, 1, 1)))
    info = RunInfo(files=(("json", "out/citations.json"), ("markdown", "out/summary.md")))

    markdown = render(report, RunDecision(), info)
    WRITERS["markdown"](tmp_path / "summary.md", report, RunDecision(), info)

    data = markdown.encode("utf-8")
    assert 1024 * 1024 - 500 < len(data) <= 1024 * 1024
    *kept, blank, note = markdown.splitlines()
    assert note == (
        "_The summary stops here: GitHub shows no job summary of a step over 1024 KiB. "
        "The whole run: out/citations.json._"
    )
    assert blank == ""
    assert kept[-1].startswith("| cases/generated/case-")
    assert kept[-1].endswith("| pass |")
    assert (tmp_path / "summary.md").read_text(encoding="utf-8") == markdown
