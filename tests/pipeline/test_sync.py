"""The synchronous face of the verifier: from plain code and from inside a running loop."""

from __future__ import annotations

import asyncio
import threading

import pytest

from pytest_citations import ClaimRequest, Label, MissingTokenError, SyncVerifier

URL = "https://example.org/water"
CLAIM = "Water boils at 100 degrees Celsius at sea level."


@pytest.fixture
def page(crawlbase, article):
    crawlbase.add(URL, markdown=article(CLAIM))


def test_sync_verifier_from_plain_code(page, crawlbase, judge, make_verifier):
    """The sync face shares one run: F-rules and economy as in the async verifier."""
    threads_before = set(threading.enumerate())
    with SyncVerifier(make_verifier()) as verifier:
        result = verifier.verify(CLAIM, [URL])
        many = verifier.verify_many(
            [ClaimRequest.of(CLAIM, [URL]), ClaimRequest.of("Ice melts at 0 degrees.", [URL])]
        )
        stored = verifier.stored_page(result.citations[0].rid)
        usage = verifier.usage

    assert result.label is Label.SUPPORTED
    assert [r.label for r in many] == [Label.SUPPORTED, Label.NOT_FOUND]
    assert CLAIM in stored
    assert crawlbase.crawl_count == 1  # one run: the page is fetched once
    assert usage.judge_calls == judge.call_count == 2
    leftover = [t for t in set(threading.enumerate()) - threads_before if t.is_alive()]
    assert not [t for t in leftover if t.name.startswith("citations")]


def test_sync_verifier_inside_a_running_event_loop(page, judge, make_verifier):
    """Works from code that already runs an event loop (an async test)."""

    async def main():
        asyncio.get_running_loop()  # we are inside a loop, as an async test would be
        with SyncVerifier(make_verifier()) as verifier:
            return verifier.verify(CLAIM, [URL])

    result = asyncio.run(main())
    assert result.label is Label.SUPPORTED
    assert judge.call_count == 1


def test_sync_verifier_close_is_idempotent_and_final(page, make_verifier):
    verifier = SyncVerifier(make_verifier())
    verifier.close()
    verifier.close()
    with pytest.raises(RuntimeError, match="closed"):
        verifier.verify(CLAIM, [URL])


def test_sync_verifier_propagates_errors_that_stop_the_work(page, crawlbase, make_verifier):
    with (
        SyncVerifier(make_verifier(crawlbase_token=None)) as verifier,
        pytest.raises(MissingTokenError, match="CRAWLBASE_TOKEN"),
    ):
        verifier.verify(CLAIM, [URL])
    assert crawlbase.crawl_count == 0
