"""The Markdown summary renders the typed results: the decision, one row per case, the claims
that fail, what could not be checked and why, the regressions a comparison gives, the costs
and the HTML report's place; text from case files and pages shows literally, on one line,
and mentions no one."""

from __future__ import annotations

from pathlib import Path

from tree_helpers import cited, claim, run_of

from pytest_citations.gating.build import Findings
from pytest_citations.gating.comparison import CaseState, ClaimState
from pytest_citations.gating.precision import Precision
from pytest_citations.gating.result import CaseInfo, ClaimResult, Location
from pytest_citations.gating.run_result import Base, RunResult
from pytest_citations.labels import Label, Reason
from pytest_citations.reports import RENDERERS, RunInfo, write_report
from pytest_citations.reports.markdown_report import MAX_ENTRIES, render, text

INFO = CaseInfo("cases/odd.yaml", "odd")
HOSTILE = "Pipes | and `ticks` <script>alert(1)</script> *bold* [link](x) @octocat\nnext"


def _run(*claims: ClaimResult, decided: bool = True, **more: object) -> RunResult:
    return run_of(((INFO, c) for c in claims), decided=[INFO] if decided else [], **more)  # type: ignore[arg-type]


FAILING = claim(INFO, 1, HOSTILE, cited("https://a.example/p", Label.CONTRADICTED))
UNCHECKED = claim(
    INFO,
    2,
    "Refunds take 5 days.",
    cited("https://b.example/q", Label.NOT_FOUND, Reason.JUDGE_ERROR),
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
    result = _run(FAILING, UNCHECKED)
    info = RunInfo(files=(("json", "out/citations.json"), ("html", "out/citations.html")))

    markdown = render(result, info)

    lines = markdown.splitlines()
    assert lines[0] == "## Citations: fail"
    assert lines[2] == (
        "**Release decision: fail (cases/odd.yaml::odd: fail\\_on: claim-1 the claim is "
        "contradicted)**"
    )
    [row] = [line for line in lines if line.startswith("| cases/odd.yaml::odd |")]
    # The unchecked citation counts in no precision: 0 of 1 checked, 1 of 2 citations checked.
    assert row == "| cases/odd.yaml::odd | 2 | 0 | 1 | 1 | 0.0000 (0/1, 1 of 2 checked) | fail |"
    failing = next(line for line in lines if line.startswith("- [cases/odd.yaml::odd::claim-1]"))
    assert "(cases/odd.yaml#L6) (line 6), contradicted: " in failing
    assert text(HOSTILE) in failing
    assert "fail\\_on: the claim is contradicted" in failing
    unchecked = lines.index("### Could not be checked")
    assert lines[unchecked + 2] == (
        "- [cases/odd.yaml::odd::claim-2](cases/odd.yaml#L8) (line 8): https://b.example/q: "
        "judge\\_error "
        "(the judge could not be reached or answered with an error)"
    )
    assert lines[unchecked + 3] == "  - the judge failed: HTTP 503 after 4 attempts"
    assert "### Costs" in lines
    assert lines[-1] == "The HTML report, every claim with its evidence: out/citations.html"
    assert "<script>" not in markdown


def test_a_table_row_stays_one_row_whatever_the_case_is_called() -> None:
    info = CaseInfo("cases/a|b.yaml", "x|y")
    result = run_of(decided=[info])

    [row] = [line for line in render(result, RunInfo()).splitlines()
             if line.startswith("| cases/")]  # fmt: skip

    assert row.replace("\\|", "").count("|") == 8  # seven cells


def test_regressions_of_the_comparison_have_their_own_section() -> None:
    """A regression that does not fail the gate says so; one that fails the run does not."""
    stored = ClaimState(Location(INFO.file, INFO.case, "claim-1"), HOSTILE, "supported", None)
    base = Base((CaseState(INFO.file, INFO.case, None, (stored,), Precision(1, 1, 1)),), "b.json")

    shown = render(_run(FAILING, base=base), RunInfo()).splitlines()
    gated = render(_run(FAILING, base=base, fail_on_regression=True), RunInfo()).splitlines()
    without = render(_run(FAILING), RunInfo())

    section = shown.index("### Regressions against the base")
    said = "- [cases/odd.yaml::odd::claim-1](cases/odd.yaml#L6) (line 6): supported → contradicted"
    # The claim fails on its own criteria: its regression fails the gate with it.
    assert shown[section + 2] == said
    assert gated[gated.index("### Regressions against the base") + 2] == said
    passing = claim(INFO, 1, HOSTILE, cited("https://a.example/p", Label.PARTIAL))
    partial = render(_run(passing, base=base), RunInfo()).splitlines()
    section = partial.index("### Regressions against the base")
    assert partial[section + 2] == (
        "- [cases/odd.yaml::odd::claim-1](cases/odd.yaml#L6) (line 6): supported → partial "
        "(does not fail the gate)"
    )
    assert "Regressions" not in without


def test_a_long_list_says_how_many_more_there_are() -> None:
    claims = [
        claim(INFO, n, f"Claim {n}.", cited(f"https://a.example/{n}", Label.CONTRADICTED))
        for n in range(1, MAX_ENTRIES + 8)
    ]

    lines = render(_run(*claims), RunInfo()).splitlines()

    listed = [line for line in lines if line.startswith("- [cases/odd.yaml::odd::claim-")]
    assert len(listed) == MAX_ENTRIES
    assert "- … and 7 more (the JSON and HTML reports list them all)" in lines


def test_the_markdown_writer_is_a_report_format(tmp_path: Path) -> None:
    path = tmp_path / "out" / "summary.md"
    result = _run(FAILING)

    assert write_report("markdown", path, RENDERERS["markdown"](result, RunInfo())) is None

    assert path.read_text(encoding="utf-8") == render(result, RunInfo())


def test_a_summary_over_githubs_limit_is_cut_at_a_line_with_a_note(tmp_path: Path) -> None:
    # 13,000 cases: a table of about 1.1 MB, over the 1 MiB GitHub shows of a step's summary.
    found = Findings()
    for n in range(13_000):
        found.add_case(CaseInfo(f"cases/generated/case-{n:05d}.yaml", f"case-{n:05d}"))
    result = run_of(found=found)
    info = RunInfo(files=(("json", "out/citations.json"), ("markdown", "out/summary.md")))

    markdown = render(result, info)
    assert write_report("markdown", tmp_path / "summary.md", markdown) is None

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
