"""What a run may spend, live: judge calls, judge tokens and Crawlbase credits, held exactly
under any concurrency.

A request declares its price (:func:`priced`): the most it can cost, and how to read what it
did cost from its answer. :class:`BudgetTransport`, just above the network, reserves the most
before the request goes out, refuses a request the budget cannot cover (it is never sent:
:class:`~pytest_citations.errors.OverBudget`), and settles to what the answer says it cost (a
failed crawl or a judge error costs nothing); a request that never left (the connection could
not be opened) gives its reservation back. Recordings answer above this transport, so a
replayed request never reaches it: only what the run spends counts.

A judge call's tokens are known only once it returns. Calls are sent while the tokens spent
are below the budget; the calls already in flight when it is reached still count, so a run
may pass a token budget by the tokens of the calls in flight at that moment (at most the
concurrency limit's worth of calls: one call at a concurrency of 1).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass

import httpx

from ..errors import MissingTokenError, OverBudget
from .config import SpendingLimits

#: The request extension that carries a request's :class:`Price`.
PRICE = "pytest_citations.price"
#: Failures that mean the request never reached the peer: nothing was spent.
_NOT_SENT = (httpx.ConnectError, httpx.ConnectTimeout, httpx.PoolTimeout, MissingTokenError)


@dataclass(frozen=True)
class Spend:
    """An amount spent (or reserved): judge calls, judge tokens, Crawlbase credits."""

    judge_calls: int = 0
    judge_tokens: int = 0
    credits: float = 0.0

    def __add__(self, other: Spend) -> Spend:
        return Spend(
            self.judge_calls + other.judge_calls,
            self.judge_tokens + other.judge_tokens,
            self.credits + other.credits,
        )

    def __sub__(self, other: Spend) -> Spend:
        return Spend(
            self.judge_calls - other.judge_calls,
            self.judge_tokens - other.judge_tokens,
            self.credits - other.credits,
        )


@dataclass(frozen=True)
class Price:
    """What a request may cost at most, and what its answer says it cost."""

    most: Spend
    actual: Callable[[httpx.Response], Spend]

    def of(self, response: httpx.Response) -> Spend:
        """What ``response`` cost; the most, when the answer cannot say."""
        try:
            return self.actual(response)
        except Exception:  # an answer that cannot be read was still an answer: count it all
            return self.most


def priced(request: httpx.Request, price: Price) -> httpx.Request:
    """``request``, carrying its price for the budget."""
    request.extensions[PRICE] = price
    return request


def _passes(limit: float | None, total: float) -> bool:
    """Whether ``total`` would pass ``limit`` (None: no limit)."""
    return limit is not None and total > limit


class Budget:
    """The run's budget: what it may spend, what it spent, and what is reserved by requests
    in flight. None for a limit means no limit."""

    def __init__(
        self,
        judge_calls: int | None = None,
        judge_tokens: int | None = None,
        credits: float | None = None,
    ) -> None:
        self.judge_calls = judge_calls
        self.judge_tokens = judge_tokens
        self.credits = credits
        self.spent = Spend()
        self._held = Spend()
        self._lock = threading.Lock()

    @classmethod
    def of(cls, limits: SpendingLimits) -> Budget | None:
        """The budget ``limits`` set, or None when they set none."""
        if not limits.given:
            return None
        return cls(limits.max_judge_calls, limits.max_judge_tokens, limits.max_credits)

    def _refusal(self, most: Spend) -> str | None:
        """Which limit ``most`` would pass, in the header's words, or None."""
        spent, held = self.spent, self._held
        calls = spent.judge_calls + held.judge_calls
        if most.judge_calls and _passes(self.judge_calls, calls + most.judge_calls):
            return f"max_judge_calls={self.judge_calls}: {calls} sent"
        tokens = self.judge_tokens
        if most.judge_calls and tokens is not None and spent.judge_tokens >= tokens:
            return f"max_judge_tokens={tokens}: {spent.judge_tokens} spent"
        credits = spent.credits + held.credits
        if most.credits and _passes(self.credits, credits + most.credits):
            return (
                f"max_credits={self.credits:g}: {credits:g} spent or held by crawls in "
                f"flight, this crawl may cost {most.credits:g}"
            )
        return None

    def reserve(self, most: Spend) -> None:
        """Hold ``most`` for a request about to be sent, or raise
        :class:`~pytest_citations.errors.OverBudget` (nothing is held then)."""
        with self._lock:
            refusal = self._refusal(most)
            if refusal is not None:
                raise OverBudget(
                    f"the run's budget did not cover this request, so it was not sent ({refusal})"
                )
            self._held = self._held + most

    def settle(self, most: Spend, actual: Spend) -> None:
        """A request held ``most`` and cost ``actual``."""
        with self._lock:
            self._held = self._held - most
            self.spent = self.spent + actual


class BudgetTransport(httpx.AsyncBaseTransport):
    """Sends a priced request to ``inner`` only when the budget covers it (see the module's
    docstring); a request without a price (a stored page read back, free) passes."""

    def __init__(self, inner: httpx.AsyncBaseTransport, budget: Budget) -> None:
        self.inner = inner
        self.budget = budget

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        price = request.extensions.get(PRICE)
        if not isinstance(price, Price):
            return await self.inner.handle_async_request(request)
        self.budget.reserve(price.most)
        try:
            response = await self.inner.handle_async_request(request)
        except _NOT_SENT:
            self.budget.settle(price.most, Spend())
            raise
        except BaseException:  # it may have reached the peer and been billed: count it all
            self.budget.settle(price.most, price.most)
            raise
        self.budget.settle(price.most, price.of(response))
        return response

    async def aclose(self) -> None:
        await self.inner.aclose()


__all__ = ["PRICE", "Budget", "BudgetTransport", "Price", "Spend", "priced"]
