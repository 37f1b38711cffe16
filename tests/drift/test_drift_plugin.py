"""Drift over cassettes the plugin itself recorded, and the plugin replaying what the
update mode wrote, offline (issue 12): the recordings stay the plugin's own."""

from __future__ import annotations

import shutil

import pytest
from drift_world import RETURNS_CLAIM, RETURNS_PAGE, RETURNS_URL, case_text
from ops_support import copy_examples
from plugin_helpers import TOKENS, Citations

from pytest_citations import Settings
from pytest_citations.drift import DriftSource, DriftStatus, run_drift
from pytest_citations.recording.layout import mirrored_cassette

BOILING_URL = "https://example.org/physics/boiling"  # the example site's page
BOILING_CLAIM = "Water boils at 100 °C at sea level."


def live_settings(crawlbase_url: str, openai_url: str) -> Settings:
    environment = {**TOKENS, "CRAWLBASE_API_URL": crawlbase_url, "OPENAI_BASE_URL": openai_url}
    return Settings.from_env(environment, embedding_model="lexical", retries=1, backoff=0.01)


def test_drift_reads_and_updates_the_plugins_own_cassettes(citations: Citations) -> None:
    citations.write("cases/policy.yaml", case_text("policy", [(RETURNS_CLAIM, [RETURNS_URL])]))
    citations.write("cases/water.yaml", case_text("water", [(BOILING_CLAIM, [BOILING_URL])]))
    with citations.web() as web:
        web.crawlbase.add(RETURNS_URL, markdown=RETURNS_PAGE)
        citations.run("--citations-record=once", "cases/", gate="default").assert_outcomes(passed=4)
    sources = [
        DriftSource.from_case_file(
            citations.path / f"cases/{name}.yaml", citations.path / "cassettes", citations.path
        )
        for name in ("policy", "water")
    ]
    # The plugin recorded where the drift check looks.
    assert [s.cassette for s in sources] == [
        citations.cassette("cases/policy.yaml"),
        citations.cassette("cases/water.yaml"),
    ]
    assert (
        mirrored_cassette(
            citations.path / "cases/policy.yaml", citations.path / "cassettes", citations.path
        )
        == sources[0].cassette
    )
    water_before = sources[1].cassette.read_bytes()

    with citations.web() as web:
        web.crawlbase.add(RETURNS_URL, markdown=RETURNS_PAGE.replace("30 days", "14 days"))
        settings = live_settings(web.crawlbase.url, web.judge.openai_base_url)
        report = run_drift(sources, settings, update=True, root=citations.path)

    assert [d.status for d in report.citations] == [
        DriftStatus.EVIDENCE_CHANGED,
        DriftStatus.UNCHANGED,
    ]
    assert report.citations[0].labels() == "supported → contradicted"
    assert report.written == ["cassettes/cases/policy.yaml"]
    assert sources[1].cassette.read_bytes() == water_before

    # Offline, tokenless: the plugin replays the new recording and reports the new verdict.
    result = citations.run("cases/", gate="default")
    result.assert_outcomes(passed=3, failed=1)
    result.stdout.fnmatch_lines(
        ["FAILED cases/policy.yaml::policy::claim-1 - claim is contradicted*"]
    )
    result.stdout.fnmatch_lines(["*judge_calls=0 judge_tokens=0; replayed: 2 crawls*"])


@pytest.mark.parametrize("allow", [False, True], ids=["default", "allow-unchecked"])
def test_drift_with_the_cassettes_moved_away_checks_nothing_and_fails(
    citations: Citations, allow: bool
) -> None:
    copy_examples(citations.path)  # the repository's examples and their real cassettes
    shutil.move(citations.path / "cassettes", citations.path / "old-cassettes")
    extra = ["--citations-allow-unchecked"] if allow else []
    with citations.web() as web:
        result = citations.run("cases/", "--citations-drift", *extra, gate="default")
        crawled = web.crawlbase.crawl_count

    # The cassette folder is gone: one usage error naming it, before anything is fetched
    # (issue 24; the pytest-citations drift command reports each unchecked citation).
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    folder = (citations.path / "cassettes").resolve()
    result.stderr.fnmatch_lines([f"*the cassette folder {folder} does not exist*"])
    assert crawled == 0  # the gate replays offline, and drift fetches nothing it cannot compare
