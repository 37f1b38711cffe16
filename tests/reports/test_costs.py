"""Costs in the summary and the reports (issue 5, F6, F8): Crawlbase credits by kind (normal 1,
JavaScript 2, storage 0.5 a page; a failed or empty crawl costs nothing), judge calls and
tokens, and on a replay nothing spent and what the recordings saved.

The shipped example case files are recorded against the emulators (the fetch-rules page needs
JavaScript), then replayed offline; ``pytest --citations`` runs in a subprocess.
"""

from __future__ import annotations

import html
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from ops_support import Run, base_env, copy_examples, emulators, run_pytest

from pytest_citations.sandbox import CrawlRecord
from pytest_citations.sandbox import site as example_site

USAGE_LINE = re.compile(
    r"^crawlbase_credits=(?P<credits>[\d.]+) \(normal (?P<normal>[\d.]+), "
    r"javascript (?P<javascript>[\d.]+), storage (?P<storage>[\d.]+)\); "
    r"judge_calls=(?P<calls>\d+) judge_tokens=(?P<tokens>\d+)"
    r"(?:; replayed: (?P<r_crawls>\d+) crawls \((?P<r_credits>[\d.]+) credits saved\), "
    r"(?P<r_calls>\d+) judge calls \((?P<r_tokens>\d+) tokens saved\))?$",
    re.MULTILINE,
)


@dataclass
class Phase:
    """One run: its output, its JSON report and its HTML report."""

    run: Run
    report: dict[str, Any]
    html_text: str

    @property
    def usage(self) -> dict[str, Any]:
        usage: dict[str, Any] = self.report["summary"]["usage"]
        return usage

    def line(self) -> re.Match[str]:
        found = list(USAGE_LINE.finditer(self.run.stdout))
        assert len(found) == 1, self.run.stdout
        return found[0]


@dataclass
class Costs:
    recording: Phase
    replay: Phase
    crawls: list[CrawlRecord]
    judge_calls: int
    judge_tokens: int


def _phase(project: Path, run: Run, name: str) -> Phase:
    report = json.loads((project / f"{name}.json").read_text(encoding="utf-8"))
    return Phase(run, report, (project / f"{name}.html").read_text(encoding="utf-8"))


def _reports(name: str) -> tuple[str, ...]:
    return ("--citations-report", f"{name}.json", "--citations-html", f"{name}.html")


@pytest.fixture(scope="module")
def costs(tmp_path_factory: pytest.TempPathFactory) -> Costs:
    project = tmp_path_factory.mktemp("costs")
    copy_examples(project, cassettes=False)
    with emulators(project) as web:
        recorded = run_pytest(
            project, "cases/", "--citations-record=once", *_reports("recorded"), env=web.env
        )
        crawls = web.crawlbase.requests
        judge_calls = web.judge.call_count
        judge_tokens = web.judge.tokens["total"]
    replayed = run_pytest(project, "cases/", *_reports("replayed"), env=base_env(project))
    return Costs(
        _phase(project, recorded, "recorded"),
        _phase(project, replayed, "replayed"),
        crawls,
        judge_calls,
        judge_tokens,
    )


def _billed(record: CrawlRecord) -> bool:
    """Billed by Crawlbase: a successful crawl, except the empty-page answer (cb_status 207)
    of a normal request, which the rules escalate to JavaScript unbilled."""
    if record.status != 200:
        return False
    page = example_site.PAGES.get(record.target_url)
    return record.javascript or page is None or page.cb_status == 200


def test_recording_spends_credits_by_kind_and_judge_tokens(costs: Costs) -> None:
    recording = costs.recording
    assert "citations: record=once" in recording.run.stdout
    line = recording.line()
    billed = [record for record in costs.crawls if _billed(record)]
    normal = sum(1 for record in billed if not record.javascript)
    javascript = sum(1 for record in billed if record.javascript)
    stored = sum(1 for record in billed if record.store and record.rid)

    assert javascript >= 1  # the single-page app of fetch-rules needs a browser (F6)
    assert float(line["normal"]) == normal
    assert float(line["javascript"]) == 2 * javascript
    assert float(line["storage"]) == 0.5 * stored
    assert float(line["credits"]) == normal + 2 * javascript + 0.5 * stored
    assert int(line["calls"]) == costs.judge_calls > 0
    assert int(line["tokens"]) == costs.judge_tokens > 0
    assert line["r_crawls"] is None  # nothing was replayed


def test_recording_json_report_has_the_same_figures(costs: Costs) -> None:
    line = costs.recording.line()
    usage = costs.recording.usage

    assert usage["credits_by_kind"] == {
        "normal": float(line["normal"]),
        "javascript": float(line["javascript"]),
        "storage": float(line["storage"]),
    }
    assert usage["credits"] == float(line["credits"])
    assert usage["judge_calls"] == int(line["calls"])
    assert usage["judge_tokens"] == int(line["tokens"])
    assert usage["prompt_tokens"] + usage["completion_tokens"] == usage["judge_tokens"]
    assert usage["crawl_requests"] == len(costs.crawls)
    assert usage["failed_crawls"] >= 1  # the empty page answered before the JavaScript attempt
    assert usage["replayed_crawls"] == usage["replayed_judge_calls"] == 0


def test_replay_spends_nothing_and_reports_what_it_saved(costs: Costs) -> None:
    replay, recording = costs.replay, costs.recording
    assert "citations: record=none" in replay.run.stdout
    line = replay.line()
    spent = recording.usage

    assert line.group(0).startswith(
        "crawlbase_credits=0 (normal 0, javascript 0, storage 0); judge_calls=0 judge_tokens=0; "
    )
    assert int(line["r_crawls"]) == spent["crawl_requests"] == len(costs.crawls)
    assert float(line["r_credits"]) == spent["credits"]
    assert int(line["r_calls"]) == spent["judge_calls"]
    assert int(line["r_tokens"]) == spent["judge_tokens"]

    usage = replay.usage
    assert usage["credits"] == 0
    assert usage["credits_by_kind"] == {"normal": 0, "javascript": 0, "storage": 0}
    assert usage["judge_calls"] == usage["judge_tokens"] == usage["crawl_requests"] == 0
    assert usage["replayed_crawls"] == spent["crawl_requests"]
    assert usage["replayed_credits"] == spent["credits"]
    assert usage["replayed_judge_calls"] == spent["judge_calls"]
    assert usage["replayed_judge_tokens"] == spent["judge_tokens"]


def test_replay_gives_the_recordings_verdicts(costs: Costs) -> None:
    def labels(phase: Phase) -> list[tuple[str, str]]:
        return [
            (claim["nodeid"], claim["label"])
            for case in phase.report["cases"]
            for claim in case["claims"]
        ]

    assert labels(costs.replay) == labels(costs.recording)
    assert costs.replay.run.returncode == costs.recording.run.returncode == 1


@pytest.mark.parametrize("phase", ["recording", "replay"])
def test_html_report_shows_the_costs(costs: Costs, phase: str) -> None:
    current: Phase = getattr(costs, phase)

    assert current.line().group(0) in html.unescape(current.html_text)
