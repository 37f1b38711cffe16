"""``--citations-html PATH`` (issue 5): one self-contained HTML report, checked as text and in
a real headless browser (Debian's Chromium through Playwright).

The shipped examples (``cases/`` and their cassettes) are copied to a temporary project and
replayed offline by ``pytest --citations`` in a subprocess, with no token set.
"""

from __future__ import annotations

import html
import json
import re
import struct
from collections.abc import Iterator
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from ops_support import SECRETS, base_env, copy_examples, run_pytest

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
TITLE = "pytest-citations report"


@dataclass
class Replay:
    """The examples replayed once: the run's output and the reports it wrote."""

    returncode: int
    output: str
    html_path: Path
    report: dict[str, Any]

    @property
    def text(self) -> str:
        return self.html_path.read_text(encoding="utf-8")

    @property
    def claims(self) -> list[dict[str, Any]]:
        return [claim for case in self.report["cases"] for claim in case["claims"]]


@pytest.fixture(scope="module")
def replay(tmp_path_factory: pytest.TempPathFactory) -> Replay:
    project = tmp_path_factory.mktemp("examples")
    copy_examples(project)
    run = run_pytest(
        project,
        "cases/",
        "--citations-html",
        "out/report.html",
        "--citations-report",
        "out/report.json",
        env=base_env(project),  # no token, no emulator: a replay is offline
    )
    report = json.loads((project / "out" / "report.json").read_text(encoding="utf-8"))
    return Replay(run.returncode, run.stdout + run.stderr, project / "out" / "report.html", report)


# -- the document as text ---------------------------------------------------------------------


@dataclass
class Element:
    tag: str
    attrs: dict[str, str | None]
    text: list[str] = field(default_factory=list)


class Outline(HTMLParser):
    """Every element with its attributes; text of blockquotes and marks; claims in order."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.elements: list[Element] = []
        self.open: list[Element] = []
        self.style = ""
        self.script = ""
        self.claims: list[tuple[int, str, bool]] = []  # (section index, label, failed)
        self.sections: list[str] = []  # each case section's decision ("pass"/"fail"/"")
        self.blockquotes: list[tuple[str, list[str]]] = []  # (full text, marked texts)
        self._quote: list[str] | None = None
        self._marks: list[str] = []
        self._in_mark = False
        self._in_decision = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        element = Element(tag, dict(attrs))
        self.elements.append(element)
        self.open.append(element)
        classes = (element.attrs.get("class") or "").split()
        if tag == "section" and "case" in classes:
            self.sections.append("")
        if tag == "div" and "decision" in classes and self.sections:
            self.sections[-1] = "fail" if "fail" in classes else "pass"
        if tag == "article" and "claim" in classes:
            label = element.attrs.get("data-label") or ""
            self.claims.append((len(self.sections) - 1, label, "failed" in classes))
        if tag == "blockquote":
            self._quote, self._marks = [], []
        if tag == "mark":
            self._in_mark = True
            self._marks.append("")

    def handle_endtag(self, tag: str) -> None:
        if self.open and self.open[-1].tag == tag:
            self.open.pop()
        if tag == "blockquote" and self._quote is not None:
            self.blockquotes.append(("".join(self._quote), self._marks))
            self._quote = None
        if tag == "mark":
            self._in_mark = False

    def handle_data(self, data: str) -> None:
        current = self.open[-1].tag if self.open else ""
        if current == "style":
            self.style += data
        elif current == "script":
            self.script += data
        if self._quote is not None:
            self._quote.append(data)
            if self._in_mark:
                self._marks[-1] += data


def outline(text: str) -> Outline:
    parser = Outline()
    parser.feed(text)
    parser.close()
    return parser


def squeeze(text: str) -> str:
    return " ".join(text.split())


def test_the_run_replays_offline_and_writes_the_report(replay: Replay) -> None:
    assert replay.returncode == 1, replay.output  # boiling-point::claim-2 is contradicted
    assert replay.html_path.is_file()
    assert "citations: record=none" in replay.output
    for value in SECRETS.values():
        assert value not in replay.text


def test_the_file_is_self_contained(replay: Replay) -> None:
    page = outline(replay.text)

    external = re.compile(r"^\s*(?:https?:)?//", re.IGNORECASE)
    for element in page.elements:
        if element.tag == "a":
            continue  # links to the cited pages are content, not assets
        for name in ("src", "href", "data", "srcset", "poster", "action"):
            value = element.attrs.get(name)
            assert not (value and external.search(value)), (element.tag, name, value)
    assert not [e for e in page.elements if e.tag == "link"]
    assert not [e for e in page.elements if e.tag == "script" and e.attrs.get("src")]
    assert not [e for e in page.elements if e.tag in ("img", "iframe", "object", "embed")]
    assert page.style.strip()  # the styles are inline...
    assert page.script.strip()  # ...and so is the filter
    assert "@import" not in page.style
    assert not re.search(r"url\(", page.style)
    assert not re.search(r"https?://", page.script)
    assert not re.search(r"\b(?:fetch|XMLHttpRequest|import\()", page.script)


def test_summary_costs_and_release_decision_are_shown(replay: Replay) -> None:
    text = squeeze(html.unescape(re.sub(r"<[^>]+>", " ", replay.text)))
    summary = replay.report["summary"]

    assert f"<title>{TITLE}</title>" in replay.text
    supported, citations = summary["supported"], summary["citations"]
    precision = summary["citation_precision"]
    assert f"citation_precision={precision:.4f} ({supported}/{citations})" in text
    assert (
        f"reachable_precision={summary['reachable_precision']:.4f} "
        f"({supported}/{summary['reachable']})" in text
    )
    assert "crawlbase_credits=0 (normal 0, javascript 0, storage 0)" in text
    assert re.search(r"replayed: \d+ crawls \([\d.]+ credits saved\)", text)
    assert "Release decision: fail" in text


def test_contradicted_and_failing_claims_come_first(replay: Replay) -> None:
    page = outline(replay.text)
    assert len(page.claims) == len(replay.claims) == replay.report["summary"]["claims"]

    # The first claim of the report is the contradicted one, in a failing case.
    assert page.claims[0][1:] == ("contradicted", True)
    # Failing cases come before passing ones...
    decisions = page.sections
    assert decisions == sorted(decisions, key=lambda decision: decision != "fail")
    failing_cases = [c for c in replay.report["cases"] if c["release"]["decision"] == "fail"]
    assert decisions.count("fail") == len(failing_cases) >= 1
    # ...and in every case, failing claims (contradicted first) come before the others.
    for index in range(len(decisions)):
        ranks = [
            (not failed, label != "contradicted")
            for section, label, failed in page.claims
            if section == index
        ]
        assert ranks == sorted(ranks), (index, ranks)


def test_each_quote_is_marked_inside_its_passage(replay: Replay) -> None:
    page = outline(replay.text)
    quoted = [
        (claim, citation)
        for claim in replay.claims
        for citation in claim["citations"]
        if citation["evidence_quote"]
    ]
    assert len(quoted) >= 5

    for claim, citation in quoted:
        quote = squeeze(citation["evidence_quote"])
        evidence = next(item for item in claim["evidence"] if item["url"] == citation["url"])
        passage = next(p for p in evidence["passages"] if quote in squeeze(p))
        matches = [
            full for full, marks in page.blockquotes if [squeeze(mark) for mark in marks] == [quote]
        ]
        assert matches, f"no <mark> holds {quote!r}"
        # The mark sits inside the passage it came from, with the passage's other text.
        assert any(squeeze(full) == squeeze(passage) for full in matches), quote
        assert any(len(squeeze(full)) > len(quote) for full in matches)


def test_citations_show_final_url_status_and_reason(replay: Replay) -> None:
    text = squeeze(html.unescape(replay.text))

    assert "reason redirected_to_homepage · status 200 · final URL https://example.org/" in text
    assert "reason http_404 · status 404" in text
    assert "reason soft_404 · status 200" in text
    assert "reason pdf_unsupported" in text


def test_filter_buttons_carry_the_label_counts(replay: Replay) -> None:
    page = outline(replay.text)
    buttons = {
        e.attrs.get("data-label"): e.attrs.get("aria-pressed")
        for e in page.elements
        if e.tag == "button"
    }
    labels = {claim["label"] for claim in replay.claims}

    assert set(buttons) == {"all", "failing", *labels}
    assert buttons["all"] == "true"
    assert [b for b, pressed in buttons.items() if pressed == "true"] == ["all"]
    for label in labels:
        count = sum(claim["label"] == label for claim in replay.claims)
        assert f">{label} ({count})</button>" in replay.text


# -- in a real browser ------------------------------------------------------------------------


@dataclass
class Browser:
    page: Any
    blocked: list[str]


@pytest.fixture
def browser(replay: Replay) -> Iterator[Browser]:
    from playwright.sync_api import sync_playwright  # the test extra; only Chromium may lack

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            page = chromium.new_page(viewport={"width": 1280, "height": 900})
            blocked: list[str] = []

            def offline(route: Any) -> None:  # the report must not need the network
                if route.request.url.startswith("file:"):
                    route.continue_()
                else:
                    blocked.append(route.request.url)
                    route.abort()

            page.route("**/*", offline)
            errors: list[str] = []
            page.on("pageerror", lambda error: errors.append(str(error)))
            page.goto(replay.html_path.as_uri())
            page.wait_for_load_state("load")
            yield Browser(page, blocked)
            assert not errors, errors
        finally:
            chromium.close()


def visible_claims(page: Any) -> list[str]:
    labels: list[str] = page.eval_on_selector_all(
        "article.claim",
        "els => els.filter(e => e.offsetParent !== null).map(e => e.dataset.label)",
    )
    return labels


def visible_sections(page: Any) -> int:
    count: int = page.eval_on_selector_all(
        "section.case", "els => els.filter(e => e.offsetParent !== null).length"
    )
    return count


@pytest.mark.skipif(
    not CHROMIUM.exists(),
    reason="needs Debian's Chromium at /usr/bin/chromium (apt-get install chromium)",
)
def test_report_renders_filters_by_label_and_screenshots(
    replay: Replay, browser: Browser, tmp_path: Path
) -> None:
    page = browser.page
    labels = [claim["label"] for claim in replay.claims]

    # It renders: title, heading, every case and claim visible, the count shown.
    assert page.title() == TITLE
    assert page.locator("h1").inner_text() == TITLE
    cases = len(replay.report["cases"])
    assert visible_sections(page) == cases
    assert sorted(visible_claims(page)) == sorted(labels)
    assert page.inner_text("#shown") == str(len(labels))
    mark = page.locator("mark").first
    assert mark.is_visible()
    assert mark.evaluate("e => getComputedStyle(e).backgroundColor") == "rgb(255, 248, 197)"

    # Only contradicted claims stay visible, and only their case.
    page.click('.filters button[data-label="contradicted"]')
    assert visible_claims(page) == ["contradicted"] * labels.count("contradicted")
    assert page.inner_text("#shown") == str(labels.count("contradicted"))
    assert visible_sections(page) == 1
    assert page.get_attribute('button[data-label="contradicted"]', "aria-pressed") == "true"
    assert page.get_attribute('button[data-label="all"]', "aria-pressed") == "false"

    # Failing claims: those whose failures are listed.
    page.click('.filters button[data-label="failing"]')
    failing = [c for c in replay.claims if c["failures"] or c["problems"]]
    assert len(visible_claims(page)) == len(failing) >= 1
    assert page.inner_text("#shown") == str(len(failing))

    # "all" restores everything.
    page.click('.filters button[data-label="all"]')
    assert sorted(visible_claims(page)) == sorted(labels)
    assert page.inner_text("#shown") == str(len(labels))
    assert visible_sections(page) == cases

    shot = tmp_path / "report.png"
    page.screenshot(path=str(shot), full_page=True)
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    assert width >= 1000
    assert height > 900  # full page: taller than the viewport
    assert len(data) > 50_000  # real content, not a blank page
    assert browser.blocked == []  # nothing outside the file was requested


def test_hostile_text_is_escaped(tmp_path: Path) -> None:
    (tmp_path / "cases").mkdir()
    (tmp_path / "cases" / "hostile.yaml").write_text(
        "id: hostile\n"
        "question: \"<script>document.title='question'</script>?\"\n"
        "citations:\n"
        '  1: "https://example.org/a?q=<b>&x=\\"1\\""\n'
        "claims:\n"
        '  - text: "Water <img src=x onerror=alert(1)> boils."\n'
        "    cites: []\n"
        '  - text: "The </mark><script>alert(2)</script> claim."\n'
        "    cites: [1]\n",
        encoding="utf-8",
    )

    run = run_pytest(tmp_path, "cases/", "--citations-html", "r.html", env=base_env(tmp_path))

    assert run.returncode == 1, run.stdout  # uncited, and a crawl the (absent) cassette lacks
    text = (tmp_path / "r.html").read_text(encoding="utf-8")
    page = outline(text)
    assert [e.tag for e in page.elements].count("script") == 1  # the report's own
    assert "img" not in [e.tag for e in page.elements]
    assert "Water &lt;img src=x onerror=alert(1)&gt; boils." in text
    assert "&lt;/mark&gt;&lt;script&gt;alert(2)&lt;/script&gt;" in text
    assert "&lt;script&gt;document.title=" in text
    assert 'href="https://example.org/a?q=&lt;b&gt;&amp;x=&quot;1&quot;"' in text
