"""The drift report: policy, counts, costs against a full re-record, what was left out, the
terminal lines and the JSON (issue 12)."""

from __future__ import annotations

import json

import pytest
from drift_world import (
    BOILING_CLAIM,
    BOILING_URL,
    GIFT_CLAIM,
    RETURNS_CLAIM,
    RETURNS_URL,
    World,
)
from fakes import NOT_FOUND_MARKDOWN

from pytest_citations import ConfigurationError
from pytest_citations.drift import DEFAULT_FAIL_ON, DriftPlan, DriftPolicy, DriftStatus


def test_the_default_policy_fails_on_gone_and_flipped() -> None:
    assert DriftPolicy().fail_on == frozenset(DEFAULT_FAIL_ON) == {"gone", "flipped"}
    assert DriftPolicy.parse(None) == DriftPolicy()
    assert DriftPolicy.parse(" Gone, evidence_changed ,").fail_on == {"gone", "evidence_changed"}
    assert DriftPolicy.parse("moved").describe() == "moved"


def test_an_unknown_status_in_fail_on_names_the_choices() -> None:
    with pytest.raises(ConfigurationError, match=r"unknown drift status 'vanished'.*now_pdf"):
        DriftPolicy.parse("gone,vanished")


def test_costs_one_crawl_sequence_per_url_and_judge_calls_only_for_changed_evidence(
    world: World,
) -> None:
    # Three case files cite the same two pages: one crawl sequence per URL all the same.
    world.case("a", (RETURNS_CLAIM, [RETURNS_URL]), (BOILING_CLAIM, [BOILING_URL]))
    world.case("b", (RETURNS_CLAIM, [RETURNS_URL]), (GIFT_CLAIM, [RETURNS_URL]))
    world.case("c", (BOILING_CLAIM, [BOILING_URL]))
    world.record()
    plans: list[DriftPlan] = []
    world.crawlbase.edit(RETURNS_URL, "within 30 days", "within a few days")

    report = world.drift(on_plan=plans.append)

    assert plans == [report.plan]
    assert (report.plan.cassettes, report.plan.citations, report.plan.urls) == (3, 5, 2)
    assert (report.plan.crawls, report.plan.credits) == (2, 3.0)
    # Every judge call the cassettes hold: what --citations-record=all would make again.
    assert report.plan.full_rerecord_judge_calls == 3
    assert world.crawlbase.crawl_count == report.costs.crawls == 2
    assert world.crawlbase.credits == report.costs.credits == 3.0
    # Two case files cite the supported claim: it is judged again once. The not_found
    # claim was shown the edited sentence too: judged again (and still not_found).
    assert world.judge.call_count == report.costs.judge_calls == 2
    assert sorted(call.claim for call in world.judge.calls) == [RETURNS_CLAIM, GIFT_CLAIM]
    assert report.costs.full_rerecord_judge_calls == 3
    assert report.counts() == {
        "unchanged": 2, "edited": 0, "evidence_changed": 3, "moved": 0, "gone": 0,
        "now_needs_js": 0, "now_pdf": 0, "unchecked": 0, "flipped": 2,
    }  # fmt: skip
    assert report.costs.line() == (
        "drift cost: 2 crawls, 3 credits (normal 2, javascript 0, storage 1); 2 judge calls, "
        f"{report.costs.judge_tokens} tokens (a full re-record: the same crawls and 3 judge "
        "calls)"
    )


def test_citations_without_a_replayable_recording_are_left_out_and_said(world: World) -> None:
    world.case("a", (RETURNS_CLAIM, [RETURNS_URL]))
    world.record()
    world.case("a", (RETURNS_CLAIM, [RETURNS_URL]), (BOILING_CLAIM, [BOILING_URL]))
    world.case("never", (BOILING_CLAIM, [BOILING_URL]))

    report = world.drift()

    assert [d.nodeid for d in report.citations] == ["cases/a.yaml::a::claim-1"]
    skipped = {(s.nodeid, s.cassette): s.reason for s in report.skipped}
    assert skipped[("cases/never.yaml::never::claim-1", "cassettes/cases/never.yaml")] == (
        "no cassette"
    )
    reason = skipped[("cases/a.yaml::a::claim-2", "cassettes/cases/a.yaml")]
    assert reason.startswith("the recording does not replay: cassettes/cases/a.yaml has no ")
    assert reason.endswith("pytest --citations cases/a.yaml --citations-record=new_episodes")
    assert report.plan.skipped == 2
    assert world.crawlbase.crawl_count == 1  # nothing is fetched for what was left out


def test_the_terminal_lines_and_the_json(world: World) -> None:
    world.case("a", (RETURNS_CLAIM, [RETURNS_URL]), (BOILING_CLAIM, [BOILING_URL]))
    world.record()
    world.crawlbase.add(RETURNS_URL, markdown=NOT_FOUND_MARKDOWN, original_status=404)
    world.crawlbase.edit(BOILING_URL, "cooks food faster", "cooks food \x1b[31mfaster\x1b[0m")

    report = world.drift(policy=DriftPolicy.parse("gone,edited"))

    lines = report.lines()
    assert lines[0] == (
        "drift: 2 citations in 1 cassette, 2 URLs fetched live; fail_on edited,gone"
    )
    assert lines[1] == (
        "  unchanged 0, edited 1, evidence_changed 0, moved 0, gone 1, now_needs_js 0, "
        "now_pdf 0, unchecked 0, flipped 1"
    )
    assert lines[2:4] == [
        f"  GONE cases/a.yaml::a::claim-1 {RETURNS_URL}: supported → unreachable (http_404) "
        "FLIPPED",
        "      now unreachable (http_404)",
    ]
    assert lines[4] == f"  EDITED cases/a.yaml::a::claim-2 {BOILING_URL}: supported"
    assert lines[5] == "      1 paragraph changed, none the verdict rests on"
    assert "\x1b" not in "\n".join(lines)
    assert lines[-1] == "drift decision: fail (gone 1, edited 1)"
    data = json.loads(json.dumps(report.to_dict()))
    assert data["counts"]["gone"] == 1
    assert data["decision"] == "fail (gone 1, edited 1)"
    assert [c["status"] for c in data["citations"]] == ["gone", "edited"]
    assert data["citations"][0]["new"]["reason"] == "http_404"
    assert data["failures"] == [
        {"nodeid": "cases/a.yaml::a::claim-1", "url": RETURNS_URL, "reasons": ["gone"]},
        {"nodeid": "cases/a.yaml::a::claim-2", "url": BOILING_URL, "reasons": ["edited"]},
    ]
    assert DriftStatus.GONE.value in data["policy"]["fail_on"]
