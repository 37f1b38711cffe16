"""The engine holds a run's budget (issue 20): ``Settings.max_judge_calls``,
``max_judge_tokens`` and ``max_credits`` cap what a verifier sends live. A request the
budget cannot cover is never sent (the emulators' logs show it), its citations are unchecked
with reason ``over_budget``, the claim notes say which budget, and the cap holds exactly
whatever the concurrency. A failed crawl and a judge error cost nothing, and a request that
never left gives its reservation back."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence

import httpx
import pytest

from pytest_citations import ClaimVerdict, Verifier
from pytest_citations.errors import OverBudget
from pytest_citations.labels import Reason
from pytest_citations.network.budget import (
    Budget,
    BudgetTransport,
    Price,
    Spend,
    account,
    priced,
)
from pytest_citations.network.usage import Charge, Usage
from pytest_citations.pipeline.verifier import ClaimRequest

PAGES = [f"https://example.org/budget/{n}" for n in range(6)]


def claim(n: int) -> str:
    return f"The budget page number {n} names the figure {n * 7} plainly."


@pytest.fixture
def site(crawlbase, judge, article) -> None:
    for n, url in enumerate(PAGES):
        crawlbase.add(url, markdown=article(claim(n)))


def run(verifier: Verifier, requests: Sequence[ClaimRequest]) -> list[ClaimVerdict]:
    async def scenario() -> list[ClaimVerdict]:
        async with verifier:
            return await verifier.verify_many(requests)

    return asyncio.run(scenario())


def requests() -> list[ClaimRequest]:
    return [ClaimRequest.of(claim(n), [url]) for n, url in enumerate(PAGES)]


def over(verdicts: Sequence[ClaimVerdict]) -> list[ClaimVerdict]:
    return [v for v in verdicts if v.citations[0].reason == Reason.OVER_BUDGET]


@pytest.mark.parametrize("concurrency", [1, 16])
def test_no_more_judge_calls_are_sent_than_the_budget(
    site, crawlbase, judge, make_verifier, concurrency: int
) -> None:
    judge.latency = 0.05  # at concurrency 16 every call is in flight at once
    verdicts = run(make_verifier(max_judge_calls=4, concurrency=concurrency), requests())

    assert judge.call_count == 4
    assert crawlbase.crawl_count == 6  # fetches were not limited
    refused = over(verdicts)
    assert len(refused) == 2
    for verdict in refused:
        assert not verdict.complete
        assert verdict.lacks_recording
        assert verdict.over_budget == verdict.problems
        assert "(max_judge_calls=4: 4 sent)" in verdict.problems[0]


@pytest.mark.parametrize("concurrency", [1, 16])
def test_no_crawl_is_sent_that_could_pass_the_credits(
    site, crawlbase, judge, make_verifier, concurrency: int
) -> None:
    # A normal crawl with storage is 1.5 credits: three fit in 5, a fourth could pass it.
    verifier = make_verifier(max_credits=5, concurrency=concurrency)
    verdicts = run(verifier, requests())

    assert crawlbase.crawl_count == 3
    assert crawlbase.credits == 4.5
    assert verifier.usage.credits == 4.5
    assert len(over(verdicts)) == 3
    assert judge.call_count == 3


def test_a_token_budget_stops_the_calls_once_it_is_reached(site, judge, make_verifier) -> None:
    verdicts = run(make_verifier(max_judge_tokens=1, concurrency=1), requests())

    assert judge.call_count == 1  # its tokens are known once it returns: it passes the budget
    assert len(over(verdicts)) == 5
    assert "(max_judge_tokens=1: " in over(verdicts)[0].problems[0]


@pytest.mark.parametrize("provider", ["openai", "anthropic", "ollama"])
@pytest.mark.parametrize("reported", ["negative", "missing"])
def test_a_reply_that_reports_no_or_negative_usage_counts_its_reserved_most(
    site, judge, make_verifier, provider: str, reported: str
) -> None:
    """Issue 24: a provider (or a proxy) whose answers report negative token usage gave the
    budget tokens back, and one that reports none cost nothing: either way the token budget
    never held. Such an answer counts what its call reserved: its request's bytes (a token
    is at least one byte) and a reply's allowance."""
    judge.usage_reported = reported
    verifier = make_verifier(max_judge_tokens=1, concurrency=1, judge_provider=provider)

    verdicts = run(verifier, requests())

    assert judge.call_count == 1  # the first call's tokens pass the budget of 1
    assert len(over(verdicts)) == 5
    [sent] = judge.calls
    request_bytes = len(json.dumps(sent.body, separators=(",", ":"), ensure_ascii=False).encode())
    assert verifier.usage.judge_tokens >= request_bytes > 0


def test_a_price_read_as_negative_is_the_most() -> None:
    """Whatever an answer says it cost, the budget never gets back more than was held."""
    price = Price(Spend(judge_calls=1, judge_tokens=900), lambda response: Charge(1, -50))

    assert price.of(httpx.Response(200)) == Charge(judge_calls=1, prompt_tokens=900)


def test_a_failed_crawl_costs_nothing(crawlbase, judge, make_verifier, article) -> None:
    crawlbase.add(PAGES[0], markdown=article(claim(0)), fail_normal=True)  # 520, free
    verifier = make_verifier(max_credits=2.5, crawlbase_js_token=None)

    verdicts = run(verifier, [ClaimRequest.of(claim(0), [PAGES[0]])])

    # The failed normal attempt held 1.5 and cost nothing: the JavaScript attempt (2.5) fits.
    assert [r.javascript for r in crawlbase.requests] == [False, True]
    assert verdicts[0].complete
    assert verifier.usage.credits == 2.5


def test_a_replayed_answer_never_reaches_the_budget() -> None:
    sent: list[httpx.Request] = []

    class Peer(httpx.AsyncBaseTransport):
        async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
            sent.append(request)
            return httpx.Response(200, json={"usage": {"total_tokens": 3}})

    budget = Budget(judge_calls=1)
    transport = BudgetTransport(Peer(), budget)
    price = Price(Spend(judge_calls=1), lambda response: Charge(judge_calls=1, prompt_tokens=3))

    async def scenario() -> None:
        request = priced(httpx.Request("POST", "http://127.0.0.1:9/"), price)
        await transport.handle_async_request(request)
        with pytest.raises(OverBudget):
            await transport.handle_async_request(request)
        # A request without a price (a stored page read back) is free.
        await transport.handle_async_request(httpx.Request("GET", "http://127.0.0.1:9/"))

    asyncio.run(scenario())
    assert len(sent) == 2
    assert budget.spent == Spend(judge_calls=1, judge_tokens=3)


def test_a_request_that_never_left_gives_its_reservation_back() -> None:
    class Closed(httpx.AsyncBaseTransport):
        async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
            raise httpx.ConnectError("connection failed (ConnectError)")

    budget = Budget(credits=1.5)
    transport = BudgetTransport(Closed(), budget)
    price = Price(Spend(credits=1.5), lambda response: Charge(credits=1.5, crawl="normal"))

    async def scenario() -> None:
        for _ in range(3):  # each attempt fits again: nothing was spent
            with pytest.raises(httpx.ConnectError):
                await transport.handle_async_request(
                    priced(httpx.Request("GET", "http://127.0.0.1:9/"), price)
                )

    asyncio.run(scenario())
    assert budget.spent == Spend()


# -- one ledger (issue 25) ---------------------------------------------------------------------


class Counted(httpx.AsyncBaseTransport):
    """A peer that answers every call with its tokens, and counts how often its answer is
    priced."""

    def __init__(self) -> None:
        self.priced = 0

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, json={"tokens": 3}, request=request)

    def charge(self, response: httpx.Response) -> Charge:
        self.priced += 1
        return Charge(judge_calls=1, prompt_tokens=response.json()["tokens"], provider="p")


def test_an_answer_is_priced_once_and_counted_once_into_the_ledger_the_budget_reads() -> None:
    """Every live answer was priced twice, into two ledgers: the budget's and the usage
    report's. Now the budget settles with the answer's charge, the backend counts that same
    charge into the run's ledger, and the budget reads what was spent from it."""
    ledger = Usage()
    budget = Budget(judge_calls=2, ledger=ledger)
    peer = Counted()
    transport = BudgetTransport(peer, budget)
    price = Price(Spend(judge_calls=1), peer.charge)

    async def call() -> None:
        request = priced(httpx.Request("POST", "http://127.0.0.1:9/"), price)
        response = await transport.handle_async_request(request)
        assert budget.spent == Spend(
            judge_calls=1 + ledger.judge_calls, judge_tokens=3 + ledger.judge_tokens
        )
        charge = account(ledger, response)  # the backend that receives it
        assert charge == Charge(judge_calls=1, prompt_tokens=3, provider="p")
        assert account(ledger, response) == charge  # counted once, however often asked

    async def scenario() -> None:
        await call()
        await call()
        with pytest.raises(OverBudget):
            await call()

    asyncio.run(scenario())
    assert peer.priced == 2
    assert (ledger.judge_calls, ledger.judge_tokens) == (2, 6)
    assert budget.spent == Spend(judge_calls=2, judge_tokens=6)


def test_the_run_s_usage_is_the_ledger_its_budget_holds(site, crawlbase, judge, make_verifier):
    verifier = make_verifier(max_credits=5, concurrency=1)
    run(verifier, requests())

    assert verifier.usage.credits == crawlbase.credits == 4.5
    assert verifier.usage.judge_calls == judge.call_count == 3
