"""The drift check runs on a pruned cassette (issue 27): what ``cassettes prune --write``
leaves is everything a replay of the case file needs, so every citation replays, compares
and updates as it did before the stale recordings were taken out."""

from __future__ import annotations

import asyncio

from drift_world import (
    BOILING_URL,
    GIFT_CLAIM,
    RETURNS_CLAIM,
    RETURNS_SENTENCE,
    RETURNS_URL,
    World,
)

from pytest_citations.drift import DriftStatus
from pytest_citations.upkeep.prune import prune_cassettes


def prune(world: World) -> int:
    """``cassettes prune --write`` over the world's cassettes: the recordings taken out."""
    found = asyncio.run(
        prune_cassettes(
            [world.root / "cassettes"], world.settings, world.root / "cassettes", world.root,
            write=True,
        )
    )  # fmt: skip
    assert not any(pruned.problem for pruned in found)
    return sum(pruned.recordings for pruned in found)


def test_drift_checks_and_updates_a_pruned_cassette(world: World) -> None:
    world.case("shop", (RETURNS_CLAIM, [RETURNS_URL]), (GIFT_CLAIM, [RETURNS_URL, BOILING_URL]))
    world.record()
    world.case("shop", (RETURNS_CLAIM, [RETURNS_URL]))  # the gift claim removed
    before = world.drift()

    assert prune(world) >= 4  # the boiling page's fetch, the gift claim's calls and choices
    assert BOILING_URL not in world.cassette("shop").read_text(encoding="utf-8")

    after = world.drift()
    assert [c.status for c in after.citations] == [DriftStatus.UNCHANGED]
    assert after.to_dict()["citations"] == before.to_dict()["citations"]
    assert after.decision() == before.decision()
    assert world.crawlbase.crawl_count == 2  # the returns page, live, once a run

    world.crawlbase.edit(RETURNS_URL, RETURNS_SENTENCE, RETURNS_SENTENCE + " Or 45 by mail.")
    updated = world.drift(update=True)
    assert updated.complete
    assert updated.written
    assert [c.status for c in world.drift().citations] == [DriftStatus.UNCHANGED]
