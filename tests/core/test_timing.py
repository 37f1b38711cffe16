"""A claim's own time (the JUnit time of its item): the requests it sent while they were in
flight and the model work it ran, charged to the claim that started the work; a page two
claims cite counts for the first. Measured against emulators that answer after a delay."""

from __future__ import annotations

import asyncio
import dataclasses
import time

import pytest

from pytest_citations import ClaimRequest
from pytest_citations.timing import charge, clocked, split

LATENCY = 0.15
URLS = ["https://a.org/boiling", "https://b.org/boiling"]
FACT = "Water boils at 100 degrees Celsius at sea level."


def _verify(make_verifier, requests, **overrides):
    async def scenario():
        async with make_verifier(**overrides) as verifier:
            started = time.perf_counter()
            verdicts = await verifier.verify_many(requests)
            return verdicts, time.perf_counter() - started

    return asyncio.run(scenario())


@pytest.fixture
def slow(crawlbase, judge, article):
    """Both pages hold the fact; every crawl and judge call takes LATENCY seconds."""
    for url in URLS:  # two different pages: a judge call for each
        crawlbase.add(url, markdown=article(FACT, filler=2, title=url))
    crawlbase.latency = judge.latency = LATENCY
    return crawlbase, judge


def test_the_claim_that_fetched_a_shared_page_is_charged_for_it(slow, make_verifier):
    crawlbase, judge = slow
    first = ClaimRequest.of(f"{FACT} First.", URLS)  # fetches both pages, two judge calls
    second = ClaimRequest.of(f"{FACT} Second.", URLS[:1])  # reuses page a, one judge call

    (one, two), wall = _verify(make_verifier, [first, second])

    assert crawlbase.crawl_count == 2
    assert judge.call_count == 3
    # Each request counts while in flight: at least its latency, each charged once.
    assert two.work_seconds >= LATENCY
    assert one.work_seconds >= 4 * LATENCY  # two crawls and two judge calls
    assert one.work_seconds > 2.5 * two.work_seconds
    # The claims ran concurrently: their own times overlap and add up to more than the wall
    # time, which is why an item's JUnit time is a share of its file's time (split).
    assert one.work_seconds + two.work_seconds > wall
    assert dataclasses.replace(one, work_seconds=0.0) == one  # a measurement, not the verdict


def test_waiting_for_a_slot_is_not_a_claims_own_time(slow, make_verifier):
    # One request in flight at a time: the two claims queue behind each other. Counting the
    # wait would charge the second claim for the first one's requests.
    requests = [ClaimRequest.of(f"{FACT} Claim {n}.", [url]) for n, url in enumerate(URLS)]

    verdicts, wall = _verify(make_verifier, requests, concurrency=1)

    spent = [verdict.work_seconds for verdict in verdicts]
    assert all(seconds >= 2 * LATENCY for seconds in spent)  # a crawl and a judge call each
    assert sum(spent) == pytest.approx(wall, rel=0.25)  # serial: the work is the wall time
    assert max(spent) < 1.5 * min(spent)


def test_work_outside_any_claim_is_charged_to_none() -> None:
    with clocked() as outer:
        with clocked() as inner:
            charge(0.5)
        charge(0.25)
    charge(1.0)  # no clock here: nothing to charge

    assert (outer.seconds, inner.seconds) == (0.25, 0.5)


def test_split_shares_a_wall_time_in_proportion_and_adds_up() -> None:
    assert split(3.0, [1.0, 2.0, 3.0]) == pytest.approx([0.5, 1.0, 1.5])
    assert sum(split(1.7, [0.3, 0.0, 0.9])) == pytest.approx(1.7)
    assert split(0.9, [0.0, 0.0, 0.0]) == pytest.approx([0.3, 0.3, 0.3])
    assert split(1.0, []) == []
