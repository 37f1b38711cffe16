"""The update mode (issue 12): new recordings only for the citations a drift run checked
again, atomically; recordings of unchanged pages keep every byte; nothing is written
without it."""

from __future__ import annotations

import asyncio
from pathlib import Path

from drift_world import (
    BOILING_CLAIM,
    BOILING_URL,
    FOOTER,
    GIFT_CLAIM,
    NEW_FOOTER,
    PAGES,
    RETURNS_CLAIM,
    RETURNS_URL,
    World,
)

from pytest_citations import Label
from pytest_citations.drift import DriftReport, DriftStatus
from pytest_citations.drift.replay import Replayer
from pytest_citations.pipeline.backends import Backends
from pytest_citations.recording import build_vcr
from pytest_citations.recording.choices import parse_choices
from pytest_citations.recording.files import cassette_document, dump_cassette, read_cassette
from pytest_citations.recording.pages import (
    crawl_target,
    is_judge_call,
    judge_bodies,
    read_interactions,
)
from pytest_citations.retrieval.selection import page_digest
from pytest_citations.sandbox import NOT_FOUND_MARKDOWN


def snapshot(world: World) -> dict[str, bytes]:
    return {name: world.cassette(name).read_bytes() for name in world.files}


def blocks(path: Path, *needles: str) -> list[str]:
    """The YAML of each interaction of a cassette whose request names one of ``needles``."""
    found = []
    for interaction in read_interactions(path):
        request = interaction[0]
        text = f"{request.uri}\n{request.body!r}"
        if any(needle in text for needle in needles):
            found.append(dump_cassette(cassette_document([interaction])) or "")
    return found


def labels(report: DriftReport) -> dict[str, str]:
    return {f"{d.nodeid} {d.url}": d.old.label.value for d in report.citations}


def test_a_drift_run_writes_nothing_unless_asked(world: World) -> None:
    world.case("policy", (RETURNS_CLAIM, [RETURNS_URL]), (BOILING_CLAIM, [BOILING_URL]))
    world.record()
    before = snapshot(world)
    world.crawlbase.add(RETURNS_URL, markdown=NOT_FOUND_MARKDOWN, original_status=404)
    world.crawlbase.edit(BOILING_URL, "cooks food faster", "cooks food much faster")

    report = world.drift()

    assert {d.status for d in report.citations} == {DriftStatus.GONE, DriftStatus.EDITED}
    assert report.written == []
    assert report.notes == []
    assert snapshot(world) == before


def test_update_writes_only_the_citations_it_checked_again(
    world: World, secret_values: tuple[str, ...]
) -> None:
    world.case("stable", (BOILING_CLAIM, [BOILING_URL]))
    world.case("policy", (RETURNS_CLAIM, [RETURNS_URL]), (BOILING_CLAIM, [BOILING_URL]))
    world.record()
    before = snapshot(world)
    boiling_before = blocks(world.cassette("policy"), BOILING_URL, "Water boils")
    world.crawlbase.edit(RETURNS_URL, "within 30 days", "within a few days")
    world.crawlbase.edit(BOILING_URL, FOOTER, NEW_FOOTER)

    report = world.drift(update=True)

    assert report.written == ["cassettes/cases/policy.yaml"]
    assert report.notes == []
    after = snapshot(world)
    assert after["stable"] == before["stable"]  # nothing re-checked there: byte-identical
    assert after["policy"] != before["policy"]
    # The unchanged page's recordings (its crawl, its judge call) keep every byte, even
    # though its live footer has a new date.
    assert blocks(world.cassette("policy"), BOILING_URL, "Water boils") == boiling_before
    # The returns page is the live one now, and its stale judge call is gone.
    policy = read_interactions(world.cassette("policy"))
    crawls = [i for i in policy if crawl_target(i[0]) == RETURNS_URL]
    assert len(crawls) == 1
    assert b"within a few days" in crawls[0][1]["body"]["string"]
    judged = [str(i[0].body) for i in policy if i[0].method == "POST"]
    assert len(judged) == 2
    assert not any("within 30 days of delivery" in body for body in judged)
    # Live traffic is scrubbed as a recording is: placeholders, never a token.
    written = world.cassette("policy").read_bytes()
    assert b"<CRAWLBASE_TOKEN>" in written
    assert not [secret for secret in secret_values if secret.encode() in written]

    world.judge.reset_counters()
    again = world.drift()

    # The new recording replays the verdict the live page gives, and is honest now.
    assert {d.status for d in again.citations} == {DriftStatus.UNCHANGED}
    assert labels(again)[f"cases/policy.yaml::policy::claim-1 {RETURNS_URL}"] == "partial"
    assert again.skipped == []
    assert world.judge.call_count == 0


def test_update_records_what_a_claim_of_several_citations_needs(world: World) -> None:
    # Neither page settles the claim, so the verifier checks both pages together (004, C2):
    # once a page changes, that joint check is a new request the recording must hold.
    world.case("gift", (GIFT_CLAIM, [RETURNS_URL, BOILING_URL]))
    world.record()
    world.crawlbase.edit(RETURNS_URL, "original packaging", "original packaging or a receipt")

    report = world.drift(update=True)

    (changed,) = [d for d in report.citations if d.status is DriftStatus.EVIDENCE_CHANGED]
    assert changed.url == RETURNS_URL
    assert changed.new is not None
    assert changed.new.label is Label.NOT_FOUND
    assert report.costs.judge_calls == 1
    assert report.costs.update_judge_calls == 1  # the joint check
    assert report.written == ["cassettes/cases/gift.yaml"]

    again = world.drift()

    assert again.skipped == []
    assert {d.status for d in again.citations} == {DriftStatus.UNCHANGED}


def test_update_records_a_page_that_is_gone(world: World) -> None:
    world.case("policy", (RETURNS_CLAIM, [RETURNS_URL]), (BOILING_CLAIM, [BOILING_URL]))
    world.record()
    world.crawlbase.add(RETURNS_URL, markdown=NOT_FOUND_MARKDOWN, original_status=404)

    report = world.drift(update=True)

    assert report.written == ["cassettes/cases/policy.yaml"]
    again = world.drift()
    assert labels(again)[f"cases/policy.yaml::policy::claim-1 {RETURNS_URL}"] == "unreachable"
    assert {d.status for d in again.citations} == {DriftStatus.UNCHANGED}
    assert not again.failed


def test_what_a_cassette_recorded_for_each_page(world: World) -> None:
    world.case("gift", (GIFT_CLAIM, [RETURNS_URL, BOILING_URL]), (RETURNS_CLAIM, [RETURNS_URL]))
    world.record()

    interactions = read_interactions(world.cassette("gift"))

    pages: dict[str, list[int]] = {}
    for position, (request, _) in enumerate(interactions):
        target = crawl_target(request)
        if target is not None:
            pages.setdefault(target, []).append(position)
    assert sorted(pages) == sorted([RETURNS_URL, BOILING_URL])
    assert all(len(positions) == 1 for positions in pages.values())
    # Three citations judged alone, and one joint check of the claim neither page settles.
    bodies = judge_bodies(interactions)
    assert len(bodies) == 4
    assert sum("joint_verdict" in body for body in bodies) == 1
    assert [is_judge_call(request) for request, _ in interactions].count(True) == 4


def recorded_pages(world: World, name: str) -> dict[str, str]:
    """The markdown of every page a cassette holds, as a replay fetches it."""

    async def read() -> dict[str, str]:
        config = build_vcr(world.settings.redactor())
        async with Replayer(world.settings, config, Backends(), {}) as replayer:
            found = await replayer.pages(world.cassette(name), list(PAGES))
        return {url: page.markdown for url, (page, _, _) in found.items() if page is not None}

    return asyncio.run(read())


def test_update_keeps_a_choice_of_passages_for_every_judge_call_it_keeps(world: World) -> None:
    world.case("policy", (RETURNS_CLAIM, [RETURNS_URL]), (BOILING_CLAIM, [BOILING_URL]))
    world.record()
    old = parse_choices(read_cassette(world.cassette("policy").read_bytes())[1])
    assert {key.url for key in old} == {RETURNS_URL, BOILING_URL}
    world.crawlbase.edit(RETURNS_URL, "within 30 days", "within a few days")

    report = world.drift(update=True)

    assert report.written == ["cassettes/cases/policy.yaml"]
    interactions, section = read_cassette(world.cassette("policy").read_bytes())
    choices = parse_choices(section)
    pages = {
        url: page_digest(markdown) for url, markdown in recorded_pages(world, "policy").items()
    }
    # One choice per judge call the cassette keeps, each for a page it holds.
    assert len(choices) == len(judge_bodies(interactions)) == 2
    assert {(key.url, key.page) for key in choices} == set(pages.items())
    # The unchanged page keeps its recorded choice; the re-fetched one has its own.
    [boiling] = [key for key in old if key.url == BOILING_URL]
    assert choices[boiling] == old[boiling]
    [returns] = [key for key in choices if key.url == RETURNS_URL]
    assert returns.claim == RETURNS_CLAIM
    assert returns not in old
