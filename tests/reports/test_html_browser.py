"""The HTML report in a real headless browser (Debian's Chromium through Playwright), offline:
it opens on the overview, uses the window's width, keeps passages folded until opened, and
its filters, case links and charts work. The page is the replay of ``conftest.py``.
"""

from __future__ import annotations

import struct
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from html_support import Replay

from pytest_citations.gating.calibration import as_judge_label

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

pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists(),
    reason="needs Debian's Chromium at /usr/bin/chromium (apt-get install chromium)",
)


@dataclass
class Browser:
    """A browser context of one test, and what its pages asked for or threw."""

    context: Any
    blocked: list[str]
    errors: list[str]

    def open(self, path: Path, width: int = 1280, height: int = 900) -> Any:
        """A new tab of ``width`` × ``height`` on the file; nothing outside it is fetched."""
        page = self.context.new_page()
        page.set_viewport_size({"width": width, "height": height})

        def offline(route: Any) -> None:  # the report must not need the network
            if route.request.url.startswith("file:"):
                route.continue_()
            else:
                self.blocked.append(route.request.url)
                route.abort()

        page.route("**/*", offline)
        page.on("pageerror", lambda error: self.errors.append(str(error)))
        page.goto(path.as_uri())
        page.wait_for_load_state("load")
        return page


@pytest.fixture(scope="module")
def chromium() -> Iterator[Any]:
    """One headless Chromium for the module; each test opens its own tabs."""
    from playwright.sync_api import sync_playwright  # the test extra; only Chromium may lack

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            yield launched
        finally:
            launched.close()


@pytest.fixture
def browser(chromium: Any) -> Iterator[Browser]:
    context = chromium.new_context()
    opened = Browser(context, [], [])
    try:
        yield opened
        assert not opened.errors, opened.errors
        assert opened.blocked == []  # nothing outside the file was requested
    finally:
        context.close()


def visible(page: Any, selector: str, value: str = "e.dataset.label") -> list[str]:
    """``value`` of every element matching ``selector`` that is displayed."""
    found: list[str] = page.eval_on_selector_all(
        selector, f"els => els.filter(e => e.offsetParent !== null).map(e => {value})"
    )
    return found


def box(page: Any, selector: str) -> dict[str, float]:
    found: dict[str, float] = page.locator(selector).first.bounding_box()
    return found


def test_report_renders_filters_by_label_and_screenshots(
    replay: Replay, browser: Browser, tmp_path: Path
) -> None:
    page = browser.open(replay.html_path)
    labels = [claim["label"] for claim in replay.claims]

    # It renders: title, heading, every case and claim visible, the count shown.
    assert page.title() == TITLE
    assert page.locator("h1").inner_text() == TITLE
    cases = len(replay.report["cases"])
    assert len(visible(page, "section.case", "e.id")) == cases
    assert sorted(visible(page, "article.claim")) == sorted(labels)
    assert page.inner_text("#shown") == str(len(labels))

    # Only contradicted claims stay visible, and only their cases.
    page.click('.filters button[data-label="contradicted"]')
    assert visible(page, "article.claim") == ["contradicted"] * labels.count("contradicted")
    assert page.inner_text("#shown") == str(labels.count("contradicted"))
    with_contradicted = {c["case"] for c in replay.claims if c["label"] == "contradicted"}
    assert len(visible(page, "section.case", "e.id")) == len(with_contradicted)
    assert page.get_attribute('button[data-label="contradicted"]', "aria-pressed") == "true"
    assert page.get_attribute('button[data-label="all"]', "aria-pressed") == "false"

    # Failing claims: those whose failures are listed (filters add up: contradicted off).
    page.click('.filters button[data-label="contradicted"]')
    page.click('.filters button[data-label="failing"]')
    failing = [c for c in replay.claims if c["failures"] or c["problems"] or c["unchecked"]]
    assert len(visible(page, "article.claim")) == len(failing) >= 1
    assert page.inner_text("#shown") == str(len(failing))

    # "all" restores everything.
    page.click('.filters button[data-label="all"]')
    assert sorted(visible(page, "article.claim")) == sorted(labels)
    assert len(visible(page, "section.case", "e.id")) == cases

    shot = tmp_path / "report.png"
    page.screenshot(path=str(shot), full_page=True)
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    assert width >= 1000
    assert height > 900  # full page: taller than the viewport
    assert len(data) > 50_000  # real content, not a blank page


def test_the_first_screen_is_the_overview(replay: Replay, browser: Browser) -> None:
    page = browser.open(replay.measured_path)

    # Metadata, the run's figures, its label mix and the case table's first rows are all
    # in the first screen; the claims start below it.
    for selector in (".run-meta", ".cards", ".run-mix", ".cases-table tbody tr"):
        top = box(page, selector)["y"]
        assert 0 <= top < 900, selector
    assert box(page, "section.case")["y"] > 900
    bars = page.locator(".cases-table svg.mix")
    assert bars.count() == len(replay.report["cases"]) + 1  # each case, and the run
    first = bars.first.bounding_box()
    assert first["width"] > 100
    assert first["height"] >= 10
    segment = page.locator(".run-mix rect").first
    assert segment.evaluate("e => e.getBoundingClientRect().width") > 10


@pytest.mark.parametrize("width", [1280, 1920])
def test_the_layout_uses_the_window_width(replay: Replay, browser: Browser, width: int) -> None:
    page = browser.open(replay.html_path, width=width)

    for selector in ("section.case", ".table-wrap", ".cards"):
        assert box(page, selector)["width"] >= width - 80, selector
    assert page.evaluate("document.documentElement.scrollWidth") <= width  # no sideways scroll
    # A claim citing two pages shows them side by side.
    pair = page.locator("article.claim", has=page.locator(".citation >> nth=1")).first
    citations = pair.locator(".citation")
    first, second = citations.nth(0).bounding_box(), citations.nth(1).bounding_box()
    assert first["y"] == pytest.approx(second["y"], abs=1)
    assert second["x"] > first["x"] + first["width"] - 1


def test_passages_fold_until_opened(replay: Replay, browser: Browser) -> None:
    page = browser.open(replay.html_path)

    folds = page.locator("details.passage")
    assert folds.count() > 5
    assert (
        page.eval_on_selector_all("details.passage", "els => els.filter(e => e.open).length") == 0
    )
    # The quote is in view; the passage it came from, with the quote marked, is not.
    quote = page.locator("article.claim .quote").first
    assert quote.is_visible()
    fold = page.locator("details.passage", has=page.locator("mark")).first
    mark = fold.locator("mark")
    assert not mark.is_visible()

    fold.locator("summary").click()
    assert fold.evaluate("e => e.open") is True
    assert mark.is_visible()
    assert mark.evaluate("e => getComputedStyle(e).backgroundColor") == "rgb(255, 248, 197)"
    fold.locator("summary").click()
    assert not mark.is_visible()


def test_calibration_heatmap_and_the_disagreement_filter(
    replay: Replay, browser: Browser, tmp_path: Path
) -> None:
    page = browser.open(replay.measured_path, width=1440)

    heatmap = page.locator("svg.heatmap")
    assert heatmap.is_visible()
    size = heatmap.bounding_box()
    assert size["width"] > 300
    assert size["height"] > 300
    assert page.locator("svg.heatmap g.cell").count() == 16
    diagonal = page.locator('svg.heatmap g.cell.agree[data-human="supported"] rect')
    assert diagonal.get_attribute("stroke") == "#1a7f37"

    page.click('.filters button[data-label="disagree"]')
    disagree = [
        claim["nodeid"]
        for claim in replay.claims
        if claim["expect"] and as_judge_label(claim["label"]) != claim["expect"]
    ]
    assert sorted(visible(page, "article.claim", "e.id")) == sorted(disagree)
    assert page.inner_text("#shown") == str(len(disagree))

    # A case of the overview's table opens its case, every claim shown, in view.
    page.click('.cases-table a[href="#case-cases/boiling-point.yaml::boiling-point"]')
    assert page.get_attribute('button[data-label="all"]', "aria-pressed") == "true"
    section = page.locator('section[id="case-cases/boiling-point.yaml::boiling-point"]')
    top = section.bounding_box()["y"]
    assert 0 <= top < 300
    assert section.locator("article.claim:visible").count() == 2
    page.screenshot(path=str(tmp_path / "measured.png"), full_page=True)
    assert (tmp_path / "measured.png").stat().st_size > 50_000


def in_view(page: Any, selector: str) -> bool:
    """Whether the element matching ``selector`` is displayed inside the window."""
    found: bool = page.eval_on_selector(
        selector,
        "e => { const r = e.getBoundingClientRect(); return e.offsetParent !== null && "
        "r.top >= 0 && r.top < window.innerHeight; }",
    )
    return found


def test_one_click_from_the_answer_lands_on_the_claims_evidence_and_back(
    replay: Replay, browser: Browser
) -> None:
    """Issue 27: each claim marked in its case's answer is one click from its verdict, whose
    quote of the page is then in view, and the verdict links back to the mark."""
    page = browser.open(replay.html_path, height=700)
    case = next(c for c in replay.report["cases"] if c["id"] == "returns-policy")
    placed = [claim for claim in case["claims"] if claim["answer_span"] is not None]
    assert len(placed) == len(case["claims"]) == 3
    quoted = 0
    for claim in placed:
        mark = f'mark[id="answer-{claim["nodeid"]}"]'
        start, end = claim["answer_span"]
        assert page.inner_text(mark) == case["answer"][start:end]
        page.click(f"{mark} a")
        article = f'article[id="{claim["nodeid"]}"]'
        assert page.evaluate("decodeURIComponent(location.hash.slice(1))") == claim["nodeid"]
        assert in_view(page, article), claim["nodeid"]
        quotes = [c["evidence_quote"] for c in claim["citations"] if c["evidence_quote"]]
        quoted += bool(quotes)
        shown = visible(page, f"{article} p.quote", "e.innerText")
        assert [" ".join(q.split()) for q in shown] == [" ".join(q.split()) for q in quotes]
        page.click(f"{article} a.back")
        assert in_view(page, mark), claim["nodeid"]
    assert quoted >= 2  # the page's quotes, not an empty list, were seen
    # The claim's place links to its case file's line (a relative path outside GitHub).
    href = page.get_attribute(f'article[id="{placed[0]["nodeid"]}"] a.source', "href")
    assert href == f"cases/returns-policy.yaml#L{placed[0]['line']}"
