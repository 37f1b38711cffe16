"""Economy and concurrency (A3 and issue 2, point 8): one fetch sequence per URL, one judge
call per identical request, a bounded number of requests in flight, credits counted."""

from __future__ import annotations

import asyncio

import pytest

from pytest_citations import ClaimRequest, Label, Settings
from pytest_citations.errors import ConfigurationError

URLS = ["https://a.org/science", "https://b.org/science", "https://c.org/science"]
FACTS = [
    "Water boils at 100 degrees Celsius at sea level.",
    "Ice melts at 0 degrees Celsius.",
    "Sound travels at 343 metres per second in air.",
]


def _claims(count: int) -> list[str]:
    return [f"{FACTS[n % 3]} Observation number {n}." for n in range(count)]


def _run_many(make_verifier, requests, **overrides):
    async def scenario():
        async with make_verifier(**overrides) as verifier:
            return await verifier.verify_many(requests), verifier.usage

    return asyncio.run(scenario())


def test_ten_claims_citing_the_same_three_urls_fetch_each_once(
    crawlbase, judge, make_verifier, article
):
    """A3 / issue 2 point 8: one fetch sequence per distinct URL per run."""
    for url, fact in zip(URLS, FACTS, strict=True):
        crawlbase.add(url, markdown=article(fact))
    requests = [ClaimRequest.of(claim, URLS) for claim in _claims(10)]

    results, usage = _run_many(make_verifier, requests)

    assert len(results) == 10
    assert crawlbase.crawl_count == 3
    assert [crawlbase.count(url) for url in URLS] == [1, 1, 1]
    assert judge.call_count == 30  # ten distinct claims x three pages
    assert usage.judge_calls == 30
    assert usage.credits == crawlbase.credits == 3 * 1.5


def test_no_claims_no_requests(crawlbase, judge, make_verifier):
    """A3: an empty batch makes no request and spends nothing."""
    results, usage = _run_many(make_verifier, [])
    assert results == []
    assert crawlbase.crawl_count == judge.call_count == 0
    assert usage.credits == 0


def test_fetch_sequence_with_retries_happens_once_per_url(crawlbase, judge, make_verifier, article):
    """F2 + F6: the readability and JavaScript retries belong to the one fetch sequence."""
    # Thin page: readability retry + JavaScript belong to the one fetch sequence.
    crawlbase.add(URLS[0], markdown="Menu", markdown_js=article(FACTS[0]))
    requests = [ClaimRequest.of(claim, URLS[:1]) for claim in _claims(6)]

    _run_many(make_verifier, requests)

    assert crawlbase.count(URLS[0]) == 3


def test_identical_judge_requests_are_made_once(crawlbase, judge, make_verifier, article):
    """J1 / issue 2 point 8: an identical judge request is made once per run."""
    for url, fact in zip(URLS, FACTS, strict=True):
        crawlbase.add(url, markdown=article(fact))
    claims = _claims(5)
    # Every claim twice, in separate requests, concurrently.
    requests = [ClaimRequest.of(claim, URLS) for claim in claims + claims]

    results, usage = _run_many(make_verifier, requests)

    assert judge.call_count == usage.judge_calls == 5 * 3
    assert results[:5] == results[5:]
    asked = [(call.claim, tuple(call.passages)) for call in judge.calls]
    assert len(set(asked)) == len(asked)


def test_same_passages_from_two_urls_are_judged_once(crawlbase, judge, make_verifier, article):
    """J1: same claim, same passages: the same judge request, made once."""
    page = article(FACTS[0])
    crawlbase.add(URLS[0], markdown=page)
    crawlbase.add(URLS[1], markdown=page)

    results, _ = _run_many(make_verifier, [ClaimRequest.of(FACTS[0], URLS[:2])])

    assert crawlbase.crawl_count == 2
    assert judge.call_count == 1
    assert [c.label for c in results[0].citations] == [Label.SUPPORTED, Label.SUPPORTED]
    assert [c.url for c in results[0].citations] == URLS[:2]


@pytest.mark.parametrize("limit", [1, 2, 4])
def test_a3_requests_in_flight_never_exceed_the_concurrency_limit(
    crawlbase, judge, make_verifier, article, limit
):
    """A3: BATCH_CONCURRENCY bounds the requests in flight, and is used."""
    # Long enough for requests to overlap, even on a busy machine, where overlap is asserted.
    crawlbase.latency = judge.latency = 0.2 if limit == 4 else 0.05
    urls = [f"https://site{n}.org/page" for n in range(6)]
    for n, url in enumerate(urls):
        crawlbase.add(url, markdown=article(FACTS[n % 3], title=f"Page {n}"))
    requests = [ClaimRequest.of(fact, urls) for fact in FACTS[:2]]

    results, _ = _run_many(make_verifier, requests, concurrency=limit)

    assert len(results) == 2
    assert crawlbase.crawl_count == 6
    assert judge.call_count == 12
    assert 1 <= crawlbase.max_in_flight <= limit
    assert 1 <= judge.max_in_flight <= limit
    if limit == 4:
        assert crawlbase.max_in_flight > 1
        assert judge.max_in_flight > 1


def test_a3_default_concurrency_is_4_and_read_from_batch_concurrency():
    assert Settings().network.concurrency == 4
    assert Settings.from_env({}).network.concurrency == 4
    assert Settings.from_env({"BATCH_CONCURRENCY": "16"}).network.concurrency == 16
    with pytest.raises(ConfigurationError, match="BATCH_CONCURRENCY"):
        Settings.from_env({"BATCH_CONCURRENCY": "0"})
    with pytest.raises(ConfigurationError, match="BATCH_CONCURRENCY"):
        Settings.from_env({"BATCH_CONCURRENCY": "many"})
    with pytest.raises(ConfigurationError):
        Settings.from_env({}, concurrency=0)


def test_credits_normal_js_storage_and_failed(crawlbase, judge, make_verifier, article):
    """F2, F3, F6, F8: normal 1, JavaScript 2, storage +0.5, failed crawl 0."""
    crawlbase.add(URLS[0], markdown=article(FACTS[0]))  # normal 1 + storage 0.5
    crawlbase.add(URLS[1], markdown=article(FACTS[1]), fail_normal=True)  # 0 + JS 2 + 0.5
    crawlbase.add(URLS[2], markdown="# Gone\n", original_status=404)  # a 404 is billed: 1.5
    requests = [ClaimRequest.of(FACTS[0], URLS)]

    _, usage = _run_many(make_verifier, requests)

    assert (usage.normal_crawls, usage.javascript_crawls, usage.failed_crawls) == (2, 1, 1)
    assert usage.stored_pages == 3
    assert usage.credits == crawlbase.credits == 1.5 + 2.5 + 1.5
