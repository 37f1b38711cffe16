"""What a reviewer sees (issue 27), renderer by renderer on a result tree with answers: each
claim's link to its case file's line (on GitHub at the commit given, else a relative path),
the HTML report's answer with its claims marked and linked both ways, the Markdown
summary's failing claims with their URL, label and a short quote, and the plan beside the
spend. Page and answer text is hostile: it reaches no output as markup, link, mention or
workflow command."""

from __future__ import annotations

import html
import json
import re
from dataclasses import replace
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote

import pytest
from tree_helpers import cited, claim, run_of

from pytest_citations.gating.result import CaseInfo, ClaimResult, Location
from pytest_citations.gating.run_result import RunResult
from pytest_citations.gating.serial import claim_from_dict, claim_to_dict
from pytest_citations.labels import Label
from pytest_citations.network.usage import SpendPlan, Usage
from pytest_citations.reports import RunInfo, html_report, json_report, markdown_report
from pytest_citations.reports.info import SourceLinks
from pytest_citations.reports.markdown_report import MAX_QUOTE, short
from pytest_citations.reports.spending import against_plan_line

HEAD = "0123456789abcdef0123456789abcdef01234567"
MERGE = "fedcba9876543210fedcba9876543210fedcba98"
GITHUB = {
    "GITHUB_SERVER_URL": "https://github.com",
    "GITHUB_REPOSITORY": "acme/answers",
    "GITHUB_SHA": MERGE,
    "GITHUB_RUN_ID": "77",
}
HOSTILE = (
    "Evil <script>alert(1)</script> [click](javascript:alert(1)) @octocat "
    "\n::error file=x::owned ##[add-mask]y ![img](https://evil.example/p.png) | `x` "
)
ANSWER = f"Water boils at 100 °C [1]. {HOSTILE}On mountains it boils at 50 °C [1]."


def _links(tmp_path: Path, commit: str | None = None, **env: str) -> SourceLinks:
    environ = {**GITHUB, "GITHUB_WORKSPACE": str(tmp_path), **env}
    return SourceLinks.from_env(environ, tmp_path, commit)


def test_under_github_a_claim_links_to_its_blob_at_the_commit(tmp_path: Path) -> None:
    links = _links(tmp_path)
    where = Location("cases/water.yaml", "water", "claim-2", 12)

    assert links.of(where) == f"https://github.com/acme/answers/blob/{MERGE}/cases/water.yaml#L12"
    assert links.run == "https://github.com/acme/answers/actions/runs/77"


def test_the_pull_requests_head_given_wins_over_github_sha(tmp_path: Path) -> None:
    where = Location("cases/water.yaml", "water", "claim-2", 12)

    assert _links(tmp_path, HEAD).of(where).startswith(f"https://github.com/acme/answers/blob/{HEAD}/")


def test_outside_github_a_claim_links_to_its_relative_path_and_line(tmp_path: Path) -> None:
    links = SourceLinks.from_env({}, tmp_path, HEAD)

    assert links.of(Location("cases/water.yaml", "water", "claim-1", 7)) == "cases/water.yaml#L7"
    assert links.of(Location("cases/water.yaml", "water", "claim-1", 0)) == "cases/water.yaml"
    assert links.to_dict() == {}


def test_a_path_with_spaces_unicode_and_brackets_is_encoded(tmp_path: Path) -> None:
    where = Location("cases/Wasser (kochen) ä [1].yaml", "w", "claim-1", 3)
    link = _links(tmp_path).of(where)

    assert link.endswith("/cases/Wasser%20%28kochen%29%20%C3%A4%20%5B1%5D.yaml#L3")
    assert not re.search(r"[\s()\[\]<>\"']", link)
    assert unquote(link.split("/blob/")[1]) == f"{MERGE}/cases/Wasser (kochen) ä [1].yaml#L3"


def test_a_run_rooted_below_the_checkout_links_with_the_roots_path(tmp_path: Path) -> None:
    root = tmp_path / "services" / "bot"
    root.mkdir(parents=True)
    links = SourceLinks.from_env({**GITHUB, "GITHUB_WORKSPACE": str(tmp_path)}, root)

    link = links.of(Location("cases/a.yaml", "a", "claim-1", 2))
    assert link.endswith(f"/blob/{MERGE}/services/bot/cases/a.yaml#L2")


def test_a_case_file_outside_the_checkout_keeps_its_relative_path(tmp_path: Path) -> None:
    inside = tmp_path / "repo"
    inside.mkdir()
    links = SourceLinks.from_env({**GITHUB, "GITHUB_WORKSPACE": str(inside)}, tmp_path)
    # The run's root is outside the checkout: no blob can hold its case files.
    assert links.of(Location("cases/a.yaml", "a", "claim-1", 2)) == "cases/a.yaml#L2"
    # A case file above the root (a node id with ..) is outside too.
    below = _links(tmp_path)
    assert below.of(Location("../other/a.yaml", "a", "claim-1", 2)) == "../other/a.yaml#L2"


@pytest.mark.parametrize(
    ("variable", "value"),
    [
        ("GITHUB_SHA", "main); alert(1"),
        ("GITHUB_REPOSITORY", "acme/answers) [x](javascript:1"),
        ("GITHUB_SERVER_URL", "javascript:alert(1)//"),
    ],
)
def test_github_variables_that_are_not_well_formed_give_no_blob_link(
    tmp_path: Path, variable: str, value: str
) -> None:
    links = SourceLinks.from_env({**GITHUB, variable: value}, tmp_path)

    assert links.blob == ""
    assert links.of(Location("cases/a.yaml", "a", "claim-1", 2)) == "cases/a.yaml#L2"


INFO = CaseInfo("cases/water.yaml", "water", 1, "How hot?", ANSWER)
LONG_QUOTE = ("At sea level water boils at one hundred degrees Celsius, " * 8) + HOSTILE


def _run() -> tuple[RunResult, list[ClaimResult]]:
    supported = claim(
        INFO, 1, "Water boils at 100 °C.",
        cited("https://example.org/boil", Label.SUPPORTED, evidence_quote="100 °C"),
    )  # fmt: skip
    failing = claim(
        INFO, 2, "On mountains it boils at 50 °C.",
        cited("https://example.org/boil?q=<b>&x=[y](z)", Label.CONTRADICTED,
              evidence_quote=LONG_QUOTE),
    )  # fmt: skip
    start = ANSWER.index("Water")
    second = ANSWER.index("On mountains")
    claims = [
        replace(supported, answer_span=(start, ANSWER.index("[1].") + 4)),
        replace(failing, answer_span=(second, len(ANSWER))),
    ]
    return run_of((INFO, c) for c in claims), claims


class _Anchors(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.ids: set[str] = set()
        self.hrefs: list[str] = []
        self.tags: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        self.tags.append(tag)
        if found.get("id"):
            self.ids.add(found["id"] or "")
        if tag == "a" and found.get("href"):
            self.hrefs.append(found["href"] or "")


def test_the_html_answer_marks_each_claim_and_every_link_has_its_target(tmp_path: Path) -> None:
    result, claims = _run()
    page = html_report.render(result, RunInfo(links=_links(tmp_path, HEAD)))
    anchors = _Anchors()
    anchors.feed(page)

    for each in claims:
        assert f"answer-{each.nodeid}" in anchors.ids
        assert each.nodeid in anchors.ids
        assert f"#{each.nodeid}" in [unquote(h) for h in anchors.hrefs]
        assert f"#answer-{each.nodeid}" in [unquote(h) for h in anchors.hrefs]
    inside = [unquote(h)[1:] for h in anchors.hrefs if h.startswith("#")]
    assert all(target in anchors.ids for target in inside), inside
    line = f"https://github.com/acme/answers/blob/{HEAD}/cases/water.yaml#L8"
    assert line in anchors.hrefs
    # The hostile answer is text: no script, no link but ours, no image.
    assert page.count("<script>") == 1  # the report's own
    assert "img" not in anchors.tags
    assert not any(h.startswith("javascript:") for h in anchors.hrefs)
    assert html.escape("<script>alert(1)</script>") in page


def test_spans_that_overlap_or_lie_beyond_the_answer_are_not_marked(tmp_path: Path) -> None:
    """A shard's report can say anything of a span: the HTML marks only what fits."""
    _result, claims = _run()
    odd = [replace(claims[0], answer_span=(0, 12)), replace(claims[1], answer_span=(5, 20))]
    far = [replace(claims[0], answer_span=(0, 12)),
           replace(claims[1], answer_span=(10, len(ANSWER) + 5))]  # fmt: skip
    for placed in (odd, far):
        page = html_report.render(run_of((INFO, c) for c in placed), RunInfo())
        assert page.count('<mark class="') == 1
        assert ANSWER[12:20] in html.unescape(page)  # the answer is whole


def test_the_markdown_links_the_failing_claim_and_quotes_its_page(tmp_path: Path) -> None:
    result, _ = _run()
    info = RunInfo(
        files=(("html", "out/citations.html"),),
        links=SourceLinks.from_env({**GITHUB, "GITHUB_WORKSPACE": str(tmp_path)}, tmp_path,
                                   HEAD, "citations-reports"),
    )  # fmt: skip
    markdown = markdown_report.render(result, info)
    failing = markdown.split("### Claims that fail\n\n", 1)[1].split("\n\n", 1)[0].splitlines()

    line = f"https://github.com/acme/answers/blob/{HEAD}/cases/water.yaml#L8"
    assert failing[0].startswith(f"- [cases/water.yaml::water::claim-2]({line}) (line 8), ")
    assert failing[1].startswith("  - https://example.org/boil?q=&lt;b&gt;&amp;x=\\[y\\](z) "
                                 "(contradicted): “At sea level")
    quoted = failing[1].split("“", 1)[1]
    assert quoted.endswith("…”")
    assert len(quoted) < MAX_QUOTE + 40
    assert "Celsius," in quoted or "Celsius" in quoted
    links = re.findall(r"(?<!\\)\[((?:[^\]\\]|\\.)*)\]\(([^)]*)\)", markdown)
    assert [target for _, target in links] == [line, "https://github.com/acme/answers/actions/runs/77"]
    assert markdown.rstrip().endswith(
        "citations.html in the artifact citations-reports of "
        "[this run](https://github.com/acme/answers/actions/runs/77)"
    )


def test_a_hostile_quote_stays_text_in_the_markdown() -> None:
    result, _ = _run()
    claims = [replace(c, citations=tuple(replace(x, evidence_quote=HOSTILE) for x in c.citations))
              for c in result.claims]  # fmt: skip
    markdown = markdown_report.render(run_of((INFO, c) for c in claims), RunInfo())

    assert "<script>" not in markdown
    assert "&lt;script&gt;" in markdown
    assert "@octocat" not in markdown
    assert "@\u200boctocat" in markdown
    # Brackets are escaped: no link or image of the page's becomes one.
    assert not re.search(r"(?<!\\)\]\(", markdown.replace("](cases/water.yaml#L", "")), markdown
    assert "\\](javascript:" in markdown
    assert "!\\[img\\](" in markdown
    assert not any(line.lstrip().startswith("::") for line in markdown.splitlines())
    assert "\n::error" not in markdown


def test_a_quote_is_cut_at_a_words_end() -> None:
    cut = short("word " * 100, 50)
    assert cut.endswith("word…")
    assert len(cut) <= 50
    assert short("short quote") == "short quote"
    assert short("x" * 300, 20) == "x" * 19 + "…"


def test_the_json_report_carries_the_answer_each_span_and_link(tmp_path: Path) -> None:
    result, claims = _run()
    report = json.loads(json_report.render(result, RunInfo(links=_links(tmp_path, HEAD))))
    (case,) = report["cases"]

    assert case["answer"] == ANSWER
    for shown, made in zip(case["claims"], claims, strict=True):
        assert tuple(shown["answer_span"]) == made.answer_span
        assert shown["link"].startswith(f"https://github.com/acme/answers/blob/{HEAD}/")
    assert report["run"]["source"]["commit"] == HEAD


def test_a_span_reads_back_and_one_no_run_writes_is_refused() -> None:
    _, claims = _run()
    data = claim_to_dict(claims[1])
    assert claim_from_dict(data, INFO.file, INFO.case).answer_span == claims[1].answer_span
    for bad in ([3, 1], [1], ["0", 2], [-1, 4], [True, 3], "0-3"):
        with pytest.raises(ValueError, match="answer_span"):
            claim_from_dict({**data, "answer_span": bad}, INFO.file, INFO.case)


def test_the_plan_is_shown_beside_the_spend() -> None:
    plan = SpendPlan(claims=3, judge_calls=5, pages=3, credits=4.5, most_credits=24)
    usage = Usage(normal_crawls=2, javascript_crawls=1, judge_calls=3)

    line = against_plan_line(plan, usage)

    kinds = usage.credits_by_kind()
    assert line.startswith("recording: planned 4.5 credits for 3 pages (≤ 24 with retries "
                           "and a browser), ≤ 5 judge calls; spent ")
    assert f"(normal {kinds['normal']:g}, javascript {kinds['javascript']:g}, storage 0)" in line
    assert line.endswith(", 3 judge calls, 0 tokens")


def test_annotations_name_a_case_file_relative_to_the_checkout(tmp_path: Path) -> None:
    """The annotations and the links place a file the same way, with or without the rest
    of GitHub's variables."""
    root = tmp_path / "services" / "bot"
    root.mkdir(parents=True)
    workspace = {"GITHUB_WORKSPACE": str(tmp_path)}

    for environ in (workspace, {**GITHUB, **workspace}):
        links = SourceLinks.from_env(environ, root)
        assert links.place("cases/a.yaml") == "services/bot/cases/a.yaml"
        assert links.place("../../../x.yaml") == "../../../x.yaml"
    outside = SourceLinks.from_env({"GITHUB_WORKSPACE": str(root)}, tmp_path)
    assert outside.place("cases\\a.yaml") == "cases/a.yaml"
