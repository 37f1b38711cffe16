"""The network serves work by priority (issue 10): fetches before judge calls, never more in
flight than the limit."""

from __future__ import annotations

import asyncio

import pytest

from pytest_citations.network.limits import FETCH, JUDGE, RequestLimit


def test_request_limit_serves_fetches_before_judge_calls_that_waited_longer() -> None:
    async def scenario() -> list[str]:
        limit = RequestLimit(1)
        order: list[str] = []
        release = asyncio.Event()

        async def hold() -> None:
            async with limit.slot(FETCH):
                await release.wait()

        async def take(name: str, priority: int) -> None:
            async with limit.slot(priority):
                order.append(name)

        holder = asyncio.create_task(hold())
        await asyncio.sleep(0)
        waiters = [asyncio.create_task(take("judge-1", JUDGE))]
        await asyncio.sleep(0)
        waiters.append(asyncio.create_task(take("fetch", FETCH)))
        await asyncio.sleep(0)
        waiters.append(asyncio.create_task(take("judge-2", JUDGE)))
        await asyncio.sleep(0)
        release.set()
        await asyncio.gather(holder, *waiters)
        return order

    assert asyncio.run(scenario()) == ["fetch", "judge-1", "judge-2"]


def test_request_limit_never_has_more_in_flight_than_its_limit() -> None:
    async def scenario() -> int:
        limit = RequestLimit(3)
        in_flight = peak = 0

        async def request(priority: int) -> None:
            nonlocal in_flight, peak
            async with limit.slot(priority):
                in_flight += 1
                peak = max(peak, in_flight)
                await asyncio.sleep(0.001)
                in_flight -= 1

        await asyncio.gather(*(request(i % 2) for i in range(40)))
        return peak

    assert asyncio.run(scenario()) == 3


def test_a_cancelled_waiter_gives_its_slot_to_the_next() -> None:
    async def scenario() -> bool:
        limit = RequestLimit(1)
        release = asyncio.Event()

        async def hold() -> None:
            async with limit.slot():
                await release.wait()

        holder = asyncio.create_task(hold())
        await asyncio.sleep(0)
        cancelled = asyncio.create_task(limit.slot().__aenter__())
        await asyncio.sleep(0)
        cancelled.cancel()
        release.set()
        await holder
        async with asyncio.timeout(1):
            async with limit.slot():
                return True

    assert asyncio.run(scenario())


def test_request_limit_rejects_zero() -> None:
    with pytest.raises(ValueError, match="at least 1"):
        RequestLimit(0)
