"""A drift run never records a failure (401/402/403, 429, 5xx, timeouts), and a check that
could not run is not a pass (issue 12, with the trust rules of issue 8)."""

from __future__ import annotations

import pytest
from drift_world import (
    BOILING_CLAIM,
    BOILING_PAGE,
    BOILING_URL,
    RETURNS_CLAIM,
    RETURNS_PAGE,
    RETURNS_URL,
    World,
)

from pytest_citations import AuthenticationError, Label, MissingTokenError
from pytest_citations.drift import DriftPolicy, DriftStatus
from pytest_citations.recording.pages import read_interactions
from pytest_citations.sanitize import Secret

EDITED_RETURNS = RETURNS_PAGE.replace("within 30 days", "within a few days")


@pytest.fixture
def recorded(world: World) -> World:
    world.case("policy", (RETURNS_CLAIM, [RETURNS_URL]), (BOILING_CLAIM, [BOILING_URL]))
    world.record()
    return world


def statuses(world: World) -> set[int]:
    return {
        response["status"]["code"] for _, response in read_interactions(world.cassette("policy"))
    }


def test_a_crawl_that_keeps_failing_is_unchecked_and_never_recorded(recorded: World) -> None:
    recorded.crawlbase.add(BOILING_URL, markdown=BOILING_PAGE, errors=[503] * 10)
    recorded.crawlbase.add(RETURNS_URL, markdown=EDITED_RETURNS)

    report = recorded.drift(update=True)

    boiling = next(d for d in report.citations if d.url == BOILING_URL)
    assert boiling.status is DriftStatus.UNCHECKED
    assert boiling.detail == "fetching the page failed: Crawlbase crawl: HTTP 503 after 3 attempts"
    assert not report.complete
    assert report.decision() == "fail (flipped 1, unchecked 1)"
    # The page that could be checked gets its new recording; the failure is in no cassette.
    assert report.written == ["cassettes/cases/policy.yaml"]
    assert statuses(recorded) == {200}
    allowed = DriftPolicy.parse("gone", allow_unchecked=True)
    assert allowed.reasons(boiling) == []


def test_a_throttled_crawl_that_succeeds_on_retry_records_only_the_answer(
    recorded: World,
) -> None:
    recorded.crawlbase.add(RETURNS_URL, markdown=EDITED_RETURNS, errors=[429, 500])

    report = recorded.drift(update=True)

    drift = next(d for d in report.citations if d.url == RETURNS_URL)
    assert drift.status is DriftStatus.EVIDENCE_CHANGED
    assert report.written == ["cassettes/cases/policy.yaml"]
    assert statuses(recorded) == {200}


def test_a_judge_that_fails_leaves_the_cassette_as_it_was(recorded: World) -> None:
    before = recorded.cassette("policy").read_bytes()
    recorded.crawlbase.add(RETURNS_URL, markdown=EDITED_RETURNS)
    recorded.judge.fail_next(500, count=10)

    report = recorded.drift(update=True)

    drift = next(d for d in report.citations if d.url == RETURNS_URL)
    assert drift.status is DriftStatus.EVIDENCE_CHANGED
    assert drift.new is not None
    assert (drift.new.label, drift.new.reason) == (Label.NOT_FOUND, "judge_error")
    assert not drift.checked
    assert not drift.flipped
    assert report.written == []
    assert report.notes == [
        "cassettes/cases/policy.yaml left unchanged: a check it depends on could not run"
    ]
    assert recorded.cassette("policy").read_bytes() == before
    assert report.failed
    assert not report.complete


def test_a_refused_crawlbase_token_stops_the_run_and_writes_nothing(recorded: World) -> None:
    before = recorded.cassette("policy").read_bytes()
    recorded.crawlbase.add(RETURNS_URL, markdown=EDITED_RETURNS)
    wrong = {**recorded.settings.secrets, "CRAWLBASE_TOKEN": Secret("wrong", "CRAWLBASE_TOKEN")}

    with pytest.raises(AuthenticationError, match="CRAWLBASE_TOKEN"):
        recorded.drift(update=True, settings=recorded.settings.replace(secrets=wrong))

    assert recorded.cassette("policy").read_bytes() == before


def test_the_judge_key_is_needed_only_when_something_is_judged_again(recorded: World) -> None:
    secrets = dict(recorded.settings.secrets)
    del secrets["OPENAI_API_KEY"]
    keyless = recorded.settings.replace(secrets=secrets)

    report = recorded.drift(settings=keyless)

    assert {d.status for d in report.citations} == {DriftStatus.UNCHANGED}
    recorded.crawlbase.add(RETURNS_URL, markdown=EDITED_RETURNS)
    with pytest.raises(MissingTokenError, match="OPENAI_API_KEY"):
        recorded.drift(settings=keyless)
