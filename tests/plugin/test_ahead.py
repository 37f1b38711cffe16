"""The look-ahead of case files (plugin/ahead.py): in order, within a budget of claims, a
demanded file first, nothing more after a fatal error, nothing left running at close."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator

import pytest

from pytest_citations.plugin.ahead import VerifyAhead


class Fatal(Exception):
    pass


@pytest.fixture
def loop() -> Iterator[asyncio.AbstractEventLoop]:
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    yield loop
    loop.call_soon_threadsafe(loop.stop)
    thread.join()
    loop.close()


def job(started: list[str], name: str, gate: asyncio.Event | None = None, error=None):
    async def run() -> str:
        started.append(name)
        if gate is not None:
            await gate.wait()
        if error is not None:
            raise error
        return name

    return run


def test_jobs_start_in_order_within_the_budget_and_a_demanded_one_jumps_the_queue(loop) -> None:
    ahead = VerifyAhead(loop, concurrency=1)
    ahead.budget = 10
    started: list[str] = []
    gate = asyncio.Event()
    for name, claims in (("a", 6), ("b", 4), ("c", 6), ("d", 1)):
        ahead.plan(name, claims, job(started, name, gate if name != "d" else None))

    asyncio.run_coroutine_threadsafe(asyncio.sleep(0), loop).result()
    holder = threading.Thread(target=ahead.result, args=("a",))
    holder.start()
    while len(started) < 2:
        threading.Event().wait(0.01)
    assert started == ["a", "b"]  # c would pass the budget of 10 claims
    assert ahead.result("d") == "d"  # demanded: started at once
    loop.call_soon_threadsafe(gate.set)
    holder.join()
    assert ahead.result("c") == "c"
    assert started == ["a", "b", "d", "c"]


def test_a_fatal_error_starts_nothing_more_and_close_cancels_the_rest(loop) -> None:
    ahead = VerifyAhead(loop, concurrency=1, fatal=(Fatal,))
    ahead.budget = 1
    started: list[str] = []
    ahead.plan("a", 1, job(started, "a", error=Fatal("refused")))
    ahead.plan("b", 1, job(started, "b"))

    with pytest.raises(Fatal):
        ahead.result("a")
    asyncio.run_coroutine_threadsafe(ahead.aclose(), loop).result()

    assert started == ["a"]


def test_until_the_accounts_answered_only_demanded_files_run(loop) -> None:
    proven = threading.Event()
    ahead = VerifyAhead(loop, concurrency=4, proven=proven.is_set)
    started: list[str] = []
    gate = asyncio.Event()
    ahead.plan("a", 1, job(started, "a", gate))
    ahead.plan("b", 1, job(started, "b"))
    waiting = threading.Thread(target=ahead.result, args=("a",))
    waiting.start()
    threading.Event().wait(0.2)
    assert started == ["a"]

    proven.set()
    for _ in range(500):  # the look-ahead looks again every 50 ms
        if len(started) == 2:
            break
        threading.Event().wait(0.01)
    assert started == ["a", "b"]
    loop.call_soon_threadsafe(gate.set)
    waiting.join()
    asyncio.run_coroutine_threadsafe(ahead.aclose(), loop).result()
