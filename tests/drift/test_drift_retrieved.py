"""URLs a case lists under ``retrieved:`` are drift-checked like cited ones: a
``misattributed`` verdict rests on them (004, C3). Their recordings are in the case file's
cassette; they count, report and fail like cited citations, named as retrieved."""

from __future__ import annotations

import pytest
from drift_world import (
    BOILING_CLAIM,
    BOILING_URL,
    RETURNS_CLAIM,
    RETURNS_URL,
    World,
)

from pytest_citations import Label
from pytest_citations.drift import DriftStatus


@pytest.fixture
def misattributed(world: World) -> World:
    """The returns claim cites the boiling page (which says nothing of it) and the answer
    retrieved the returns page without citing it: ``misattributed``, resting on that page."""
    world.case("shop", (RETURNS_CLAIM, [BOILING_URL]), retrieved=[RETURNS_URL])
    world.record()
    return world


def test_a_retrieved_url_is_checked_and_its_flip_fails_the_run(misattributed: World) -> None:
    misattributed.crawlbase.edit(RETURNS_URL, "within 30 days", "within 14 days")

    report = misattributed.drift()

    drift = next(d for d in report.citations if d.url == RETURNS_URL)
    assert drift.retrieved
    assert drift.nodeid == "cases/shop.yaml::shop::claim-1"
    assert drift.status is DriftStatus.EVIDENCE_CHANGED
    assert (drift.old.label, drift.new and drift.new.label) == (
        Label.SUPPORTED,
        Label.CONTRADICTED,
    )
    cited = next(d for d in report.citations if d.url == BOILING_URL)
    assert not cited.retrieved
    assert cited.status is DriftStatus.UNCHANGED
    assert report.plan.citations == 2
    assert report.decision() == "fail (flipped 1)"
    assert (
        f"  EVIDENCE_CHANGED cases/shop.yaml::shop::claim-1 {RETURNS_URL} (retrieved): "
        "supported → contradicted FLIPPED"
    ) in report.lines()
    assert [c["retrieved"] for c in report.to_dict()["citations"]] == [False, True]
    assert misattributed.judge.call_count == 1


def test_the_update_mode_writes_a_retrieved_page_anew(misattributed: World) -> None:
    misattributed.crawlbase.edit(RETURNS_URL, "within 30 days", "within 14 days")

    updated = misattributed.drift(update=True)
    again = misattributed.drift()

    assert updated.written == ["cassettes/cases/shop.yaml"], updated.notes
    drift = next(d for d in again.citations if d.url == RETURNS_URL)
    assert drift.status is DriftStatus.UNCHANGED
    assert drift.old.label is Label.CONTRADICTED
    assert again.decision() == "pass"


def test_a_retrieved_url_its_claim_never_consulted_is_skipped_and_said(world: World) -> None:
    # The claim's own citation supports it: the verifier never looked at the retrieved page,
    # so no verdict rests on it and its cassette holds nothing of it, by design.
    world.case("water", (BOILING_CLAIM, [BOILING_URL]), retrieved=[RETURNS_URL])
    world.record()

    report = world.drift()

    assert [(d.url, d.retrieved) for d in report.citations] == [(BOILING_URL, False)]
    assert [(s.nodeid, s.url, s.retrieved) for s in report.skipped] == [
        ("cases/water.yaml::water::claim-1", RETURNS_URL, True)
    ]
    assert report.skipped[0].reason == (
        "not consulted when recorded: the claim's citations found it supported"
    )
    assert report.decision() == "pass"
    assert world.crawlbase.crawl_count == 1  # the retrieved page is not fetched
