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

from pytest_citations import ConfigurationError
from pytest_citations.drift import DEFAULT_FAIL_ON, DriftPlan, DriftPolicy, DriftStatus
from pytest_citations.drift.report import SHOWN_CHARS
from pytest_citations.recording import UnreadableCassette
from pytest_citations.sandbox import NOT_FOUND_MARKDOWN


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


def test_citations_without_a_recording_are_unchecked_and_fail_the_run(world: World) -> None:
    world.case("a", (RETURNS_CLAIM, [RETURNS_URL]))
    world.record()
    world.case("a", (RETURNS_CLAIM, [RETURNS_URL]), (BOILING_CLAIM, [BOILING_URL]))
    world.case("never", (BOILING_CLAIM, [BOILING_URL]))

    report = world.drift()

    # A missing recording is never a skip: it is a check that could not run.
    assert report.skipped == []
    found = {(d.nodeid, d.cassette): d for d in report.citations}
    assert found[("cases/a.yaml::a::claim-1", "cassettes/cases/a.yaml")].checked
    never = found[("cases/never.yaml::never::claim-1", "cassettes/cases/never.yaml")]
    assert never.status is DriftStatus.UNCHECKED
    assert never.detail == "no cassette at cassettes/cases/never.yaml"
    lacking = found[("cases/a.yaml::a::claim-2", "cassettes/cases/a.yaml")]
    assert lacking.status is DriftStatus.UNCHECKED
    assert lacking.detail.startswith(
        "the cassette holds no recording of it: cassettes/cases/a.yaml has no recording of "
    )
    assert lacking.detail.endswith(
        "pytest --citations cases/a.yaml --citations-record=new_episodes"
    )
    assert (report.plan.citations, report.plan.unchecked, report.plan.cassettes) == (1, 2, 1)
    assert report.counts()["unchecked"] == 2
    assert report.decision() == "fail (unchecked 2)"
    assert not report.nothing_checked
    assert world.crawlbase.crawl_count == 1  # nothing is fetched for what could not be checked
    allowed = world.drift(policy=DriftPolicy.parse(None, allow_unchecked=True))
    assert allowed.decision() == "pass"


def test_a_run_that_checked_nothing_fails_whatever_the_policy(world: World) -> None:
    world.case("a", (RETURNS_CLAIM, [RETURNS_URL]))
    world.case("b", (BOILING_CLAIM, [BOILING_URL]))  # never recorded: no cassettes at all

    report = world.drift(
        policy=DriftPolicy.parse("gone", allow_unchecked=True),
        cassette_dir=world.root / "cassettes",
        hint="is that the cassette folder?",
    )

    folder = (world.root / "cassettes").resolve()
    assert report.nothing_checked == (
        f"none of the 2 case files has a cassette under {folder}: is that the cassette folder?"
    )
    assert report.failed
    assert report.decision() == "fail (nothing checked)"
    assert f"  nothing checked: {report.nothing_checked}" in report.lines()
    assert report.to_dict()["nothing_checked"] == report.nothing_checked
    assert world.crawlbase.crawl_count == 0


def test_a_corrupt_cassette_is_an_error_naming_the_file_and_the_fix(world: World) -> None:
    world.case("a", (RETURNS_CLAIM, [RETURNS_URL]))
    world.case("b", (BOILING_CLAIM, [BOILING_URL]))
    world.record()
    cassette = world.cassette("b")
    cassette.write_bytes(cassette.read_bytes()[:200])

    with pytest.raises(UnreadableCassette) as raised:
        world.drift()

    message = str(raised.value)
    assert message.startswith("cassette cassettes/cases/b.yaml cannot be read: ")
    assert message.endswith(
        "record it again with: pytest --citations cases/b.yaml --citations-record=new_episodes"
    )
    assert world.crawlbase.crawl_count == 0  # nothing is sent before every cassette is read


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


def test_a_long_node_id_never_hides_the_status_or_the_flip(world: World) -> None:
    name = "an-assistant-answer-about-the-returns-policy-" * 3
    world.case(name, (RETURNS_CLAIM, [RETURNS_URL]))
    world.record()
    world.crawlbase.edit(RETURNS_URL, "within 30 days", "within 14 days")

    report = world.drift()

    heads = [line for line in report.lines() if line.startswith("  EVIDENCE_CHANGED ")]
    assert len(heads) == 1
    head = heads[0]
    assert len(head) <= SHOWN_CHARS
    # The node id is cut in its middle: its start, its claim and the verdicts stay.
    assert head.startswith("  EVIDENCE_CHANGED cases/an-assistant-answer")
    assert "…" in head
    assert "::claim-1 " in head
    assert head.endswith(f"{RETURNS_URL}: supported → contradicted FLIPPED")
