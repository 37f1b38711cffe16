"""``--citations-html PATH`` (issues 5 and 11): one self-contained HTML report that opens on an
overview (the run's metadata, its figures, the label mix, the per-case table the terminal
prints, the precision against the baseline, the judge's calibration), then every claim with
its evidence quote and the passage it came from, folded. Checked here as text; in a real
browser in ``test_html_browser.py``.

The shipped examples and the calibration set are replayed offline by ``pytest --citations``
in a subprocess (see ``conftest.py``), with ``--citations-calibrate`` and a baseline that
differs from the run in three claims.
"""

from __future__ import annotations

import html
import re
from importlib.metadata import version
from pathlib import Path

import pytest
from html_support import IMPROVED, NEW, REGRESSED, Replay, outline, squeeze, text_of
from ops_support import SECRETS, base_env, run_pytest

from pytest_citations.gating.calibration import as_judge_label
from pytest_citations.gating.precision import Precision
from pytest_citations.gating.result import COUNTED as LABEL_ORDER
from pytest_citations.labels import Label
from pytest_citations.reports.charts import COLOURS
from pytest_citations.reports.html_assets import STYLE

TITLE = "pytest-citations report"


def page_text(text: str) -> str:
    """What a reader sees: tags dropped, entities decoded, spaces squeezed."""
    return squeeze(html.unescape(re.sub(r"<[^>]+>", " ", text)))


def rows(text: str) -> dict[str, str]:
    """The overview's case rows: case key → the row's HTML."""
    return dict(re.findall(r'<tr data-case="([^"]+)">(.*?)</tr>', text))


def article(text: str, nodeid: str) -> str:
    """The HTML of one claim's article."""
    found = re.search(
        rf'<article [^>]*id="{re.escape(html.escape(nodeid))}">(.*?)</article>', text, re.DOTALL
    )
    assert found, nodeid
    return found.group(0)


def terminal_table(output: str) -> list[list[str]]:
    """The per-case table of the terminal summary: one list of cells per case."""
    lines = output.splitlines()
    start = next(i for i, line in enumerate(lines) if re.match(r"case\s+claims\s+supported", line))
    table = []
    for line in lines[start + 1 :]:
        if not line.strip():
            break
        table.append(re.split(r"\s{2,}", line.strip()))
    return table


def test_the_run_replays_offline_and_writes_the_report(replay: Replay) -> None:
    assert replay.returncode == 1, replay.output  # boiling-point::claim-2 is contradicted
    assert replay.html_path.is_file()
    assert "citations: record=none" in replay.output
    assert "baseline base.json: 1 regressed, 1 improved, 1 new" in replay.output
    assert "calibration: 48 labelled claims" in replay.output
    for value in SECRETS.values():
        assert value not in replay.text


@pytest.mark.parametrize("which", ["run", "measured"])
def test_the_file_is_self_contained(replay: Replay, which: str) -> None:
    text = replay.text if which == "run" else replay.measured
    page = outline(text)

    external = re.compile(r"^\s*(?:https?:)?//", re.IGNORECASE)
    for element in page.elements:
        if element.tag == "a":
            continue  # links to the cited pages are content, not assets
        for name in ("src", "href", "xlink:href", "data", "srcset", "poster", "action"):
            value = element.attrs.get(name)
            assert not (value and external.search(value)), (element.tag, name, value)
    assert not [e for e in page.elements if e.tag == "link"]
    assert not [e for e in page.elements if e.tag == "script" and e.attrs.get("src")]
    banned = ("img", "iframe", "object", "embed", "image", "use", "foreignobject")
    assert not [e for e in page.elements if e.tag in banned]
    assert page.find("svg", "mix")  # the charts are inline SVG...
    assert page.style.strip()  # ...the styles are inline...
    assert page.script.strip()  # ...and so is the filter
    assert "@import" not in page.style
    assert not re.search(r"url\(", page.style)
    assert not re.search(r"https?://", page.script)
    assert not re.search(r"\b(?:fetch|XMLHttpRequest|import\()", page.script)


def test_the_page_opens_on_the_overview(replay: Replay) -> None:
    text = replay.measured
    order = [
        "<header>",
        'class="run-meta"',
        'id="overview"',
        'class="cards"',
        'class="run-mix"',
        'class="cases-table"',
        'id="calibration"',
        'class="claims-head"',
        '<section class="case"',
    ]
    positions = [text.index(marker) for marker in order]
    assert positions == sorted(positions)


def test_the_header_shows_the_run_metadata(replay: Replay) -> None:
    page = outline(replay.text)
    meta = {
        e.attrs["data-field"]: text_of(e) for e in page.find("div") if e.attrs.get("data-field")
    }
    run = replay.report["run"]

    assert meta == {
        "plugin_version": f"plugin pytest-citations {version('pytest-citations')}",
        "judge": "judge openai",
        "model": "model gpt-4o-mini",
        "embedder": "embedder all-MiniLM-L6-v2 (English pages), multilingual-e5-small (other "
        "pages)",
        "record_mode": "record mode none",
        "started": f"started {run['started']}",
        "run_id": f"run id {run['run_id']}",
        "decision": "release decision fail",
    }
    (verdict,) = page.find("span", "verdict")
    assert text_of(verdict) == "fail"
    assert "fail" in verdict.classes


def test_the_case_table_is_the_terminal_table(replay: Replay) -> None:
    terminal = terminal_table(replay.output)
    found = rows(replay.text)

    assert list(found) == [cells[0] for cells in terminal]  # same cases, same order
    assert len(found) == len(replay.report["cases"]) == 12
    for cells in terminal:
        numbers = re.findall(r'<td class="num[^"]*">([^<]*)</td>', found[cells[0]])
        # claims, the seven claim labels, precision, reachable precision
        assert numbers == cells[1:], cells[0]
    header = outline(replay.text).find("th", "label-col")
    assert [text_of(th) for th in header] == list(LABEL_ORDER)


def _segments(svg_html: str) -> list[tuple[str, float, float]]:
    return [
        (label, float(x), float(width))
        for label, x, width in re.findall(
            r'<rect data-label="(\w+)" x="([\d.]+)" y="0" width="([\d.]+)"', svg_html
        )
    ]


def test_each_case_and_the_run_have_a_label_mix_bar(replay: Replay) -> None:
    found = rows(replay.text)
    for case in replay.report["cases"]:
        key = f"{case['file']}::{case['id']}"
        labels = [claim["label"] for claim in case["claims"]]
        segments = _segments(found[key])
        expected = [(label, labels.count(label)) for label in LABEL_ORDER if label in labels]
        assert [label for label, _, _ in segments] == [label for label, _ in expected], key
        edge = 0.0
        for (label, x, width), (_, count) in zip(segments, expected, strict=True):
            assert x == pytest.approx(edge, abs=1e-3)
            assert width == pytest.approx(100 * count / len(labels), abs=1e-3), (key, label)
            edge += width
        assert edge == pytest.approx(100, abs=1e-2)

    # The run's bar and its legend count every claim.
    run_mix = re.search(r'<div class="run-mix">(.*?)</div>', replay.text, re.DOTALL)
    assert run_mix
    labels = [claim["label"] for claim in replay.claims]
    total = len(labels)
    for label, _, width in _segments(run_mix.group(1)):
        assert width == pytest.approx(100 * labels.count(label) / total, abs=1e-3)
        assert f"{label} <b>{labels.count(label)}</b>" in run_mix.group(1)


def test_every_label_and_the_unchecked_state_have_their_own_colour() -> None:
    # The bars, the legend, the table's swatches and the badges colour what count_labels
    # counts, each by its own colour: none falls back to a shared grey.
    assert set(COLOURS) == set(LABEL_ORDER)
    assert len(set(COLOURS.values())) == len(COLOURS)
    for label, colour in COLOURS.items():
        assert f".badge.{label} {{ background: {colour}; }}" in STYLE


def _stored_precision(replay: Replay, prefix: str) -> Precision:
    return Precision.of(
        Label(citation["label"])
        for nodeid, entry in replay.baseline["claims"].items()
        if nodeid.startswith(prefix)
        for citation in entry["citations"]
    )


def test_claims_changed_against_the_baseline_are_marked(replay: Replay) -> None:
    found = rows(replay.text)

    assert "1 regressed" in found["cases/boiling-point.yaml::boiling-point"]
    assert "1 improved" in found["cases/returns-policy.yaml::returns-policy"]
    assert "1 new" in found["cases/fetch-rules.yaml::fetch-rules"]
    assert "regressed from supported" in article(replay.text, REGRESSED)
    assert "improved from not_found" in article(replay.text, IMPROVED)
    assert "new since the baseline" in article(replay.text, NEW)
    changes = re.search(r'<div class="changes">([^<]*)</div>', replay.text)
    assert changes
    assert changes.group(1) == "against the baseline: 1 regressed, 1 improved, 1 new"


def test_precision_is_shown_against_the_baseline(replay: Replay) -> None:
    found = rows(replay.measured)
    boiling = "cases/boiling-point.yaml::boiling-point"
    before = _stored_precision(replay, boiling + "::")
    now = next(c for c in replay.report["cases"] if c["id"] == "boiling-point")

    assert before.fraction() == "0.6667 (2/3)"  # the regressed claim's citation was supported
    assert now["citation_precision"] == pytest.approx(1 / 3)
    assert f"<b>▼ 0.3333</b> from {before.fraction()}" in found[boiling]
    library = "cases/calibration/library.yaml::library-hours"
    assert "unchanged (" in found[library]
    # The run's card: every stored claim of the run's cases, against the run's precision.
    stored = _stored_precision(replay, "cases/")
    card = re.search(r'data-figure="citation_precision">(.*?)</div></div>', replay.measured)
    assert card
    assert f'data-baseline="{stored.citation:.4f}"' in card.group(1)
    drop = replay.report["summary"]["citation_precision"] - (stored.citation or 0)
    assert f"▼ {abs(drop):.4f}</b> from {stored.fraction()}" in card.group(1)


def test_calibration_figures_match_the_terminal(replay: Replay) -> None:
    figures = re.search(r"accuracy=(\S+) balanced_accuracy=(\S+) cohen_kappa=(\S+)", replay.output)
    assert figures
    page = outline(replay.measured)
    cards = {e.attrs["data-figure"]: text_of(e) for e in page.find("div", "card")}

    accuracy, balanced, kappa = figures.groups()
    assert cards["accuracy"].startswith(f"accuracy {accuracy} ")
    assert cards["balanced_accuracy"].startswith(f"balanced accuracy {balanced} ")
    assert cards["kappa"].startswith(f"Cohen's kappa {kappa} ")
    assert float(kappa) == pytest.approx(0.1879)
    assert cards["kappa"].endswith("slight agreement")  # Landis and Koch: 0.00-0.20

    # The heatmap holds the terminal's confusion matrix, cell by cell.
    lines = replay.output.splitlines()
    start = lines.index("confusion (rows human, columns judge):")
    judge = lines[start + 1].split()
    cells = {(c.attrs["data-human"], c.attrs["data-judge"]): c for c in page.find("g", "cell")}
    assert len(cells) == 16
    for line in lines[start + 2 : start + 6]:
        human, *counts = line.split()
        for label, count in zip(judge, counts, strict=True):
            cell = cells[(human, label)]
            assert cell.attrs["data-count"] == count
            assert ("agree" in cell.classes) == (human == label)


def test_each_labelled_claim_shows_the_human_label_beside_the_judges(replay: Replay) -> None:
    labelled = [claim for claim in replay.claims if claim["expect"]]
    assert len(labelled) == 48
    disagree = 0
    for claim in labelled:
        shown = article(replay.measured, claim["nodeid"])
        differs = as_judge_label(claim["label"]) != claim["expect"]
        disagree += differs
        sign = "≠" if differs else "="
        assert f"human: {claim['expect']} {sign} judge" in shown, claim["nodeid"]
        assert ("disagrees" in shown.split(">", 1)[0]) == differs
    assert 0 < disagree < len(labelled)
    assert f">judge ≠ human ({disagree})</button>" in replay.measured
    unlabelled = next(claim for claim in replay.claims if not claim["expect"])
    assert "human:" not in article(replay.measured, unlabelled["nodeid"])


def test_figures_costs_and_release_decision_are_shown(replay: Replay) -> None:
    text = page_text(replay.text)
    summary = replay.report["summary"]
    supported, citations = summary["supported"], summary["citations"]

    assert f"<title>{TITLE}</title>" in replay.text
    assert f"citation precision {summary['citation_precision']:.4f}" in text
    assert f"{supported} of {citations} citations supported" in text
    assert f"reachable precision {summary['reachable_precision']:.4f}" in text
    assert f"{supported} of {summary['reachable']} reachable citations" in text
    assert f"fully supported claims {summary['supported_share']:.4f}" in text
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


def test_each_quote_is_shown_and_marked_inside_its_folded_passage(replay: Replay) -> None:
    page = outline(replay.text)
    quoted = [
        (claim, citation)
        for claim in replay.claims
        for citation in claim["citations"]
        if citation["evidence_quote"]
    ]
    assert len(quoted) >= 5
    shown_quotes = [text_of(p) for p in page.find("p", "quote")]

    for claim, citation in quoted:
        quote = squeeze(citation["evidence_quote"])
        assert quote in shown_quotes  # in view without opening anything
        evidence = next(item for item in claim["evidence"] if item["url"] == citation["url"])
        passage = next(p for p in evidence["passages"] if quote in squeeze(p))
        matches = [
            full for full, marks in page.blockquotes if [squeeze(mark) for mark in marks] == [quote]
        ]
        assert matches, f"no <mark> holds {quote!r}"
        # The mark sits inside the passage it came from, with the passage's other text.
        assert any(squeeze(full) == squeeze(passage) for full in matches), quote
        assert any(len(squeeze(full)) > len(quote) for full in matches)
    # Every passage is folded: inside a <details> that is not open.
    folds = page.find("details", "passage")
    assert len(folds) >= len(page.blockquotes) > 0
    assert all("open" not in fold.attrs for fold in folds)


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

    # The run was calibrated: the judge-against-human filter is there too.
    assert set(buttons) == {"all", "failing", "disagree", *labels}
    assert buttons["all"] == "true"
    assert [b for b, pressed in buttons.items() if pressed == "true"] == ["all"]
    for label in labels:
        count = sum(claim["label"] == label for claim in replay.claims)
        assert f">{label} ({count})</button>" in replay.text


def test_hostile_text_is_escaped(tmp_path: Path) -> None:
    (tmp_path / "cases").mkdir()
    (tmp_path / "cassettes").mkdir()  # the folder a replay reads, empty
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
    # The case's key reaches the charts' labels escaped too.
    assert 'aria-label="label mix of cases/hostile.yaml::hostile: ' in text
