"""What a run may spend, live: judge calls, judge tokens and Crawlbase credits, held exactly
under any concurrency.

A request declares its price (:func:`priced`): the most it can cost, and how to read what it
did cost from its answer, a :class:`~pytest_citations.network.usage.Charge` (computed once per
answer, :meth:`Price.charge`). :class:`BudgetTransport`, just above the network, reserves the
most before the request goes out, refuses a request the budget cannot cover (it is never
sent: :class:`~pytest_citations.errors.OverBudget`), and settles to what the answer says it
cost (a failed crawl or a judge error costs nothing); a request that never left (the
connection could not be opened) gives its reservation back. Recordings answer above this
transport, so a replayed request never reaches it: only what the run spends counts.

There is one ledger: the run's :class:`~pytest_citations.network.usage.Usage`. The fetcher or judge
that receives an answer counts its charge into it (:func:`account`), live or replayed; the
budget reads what was spent from that same ledger, plus what it settled and the ledger does
not hold yet (an answer on its way up, or a request that failed after it may have been
billed, which costs the most), plus what requests in flight hold.

A judge call's tokens are known only once it returns. Calls are sent while the tokens spent
are below the budget; the calls already in flight when it is reached still count, so a run
may pass a token budget by the tokens of the calls in flight at that moment (at most the
concurrency limit's worth of calls: one call at a concurrency of 1).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, replace

import httpx

from ..errors import MissingTokenError, OverBudget
from .client import is_replayed
from .config import SpendingLimits
from .usage import Charge, Usage

#: The request extension that carries a request's :class:`Price`, the answer's
#: :class:`~pytest_citations.network.usage.Charge` once priced, and the budget that settled it.
PRICE = "pytest_citations.price"
_CHARGE = "pytest_citations.charge"
_SETTLED = "pytest_citations.settled"
_COUNTED = "pytest_citations.counted"
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

    @property
    def negative(self) -> bool:
        """True when some amount is below zero: no answer costs less than nothing."""
        return self.judge_calls < 0 or self.judge_tokens < 0 or self.credits < 0

    @classmethod
    def of(cls, charge: Charge) -> Spend:
        """What a charge costs the budget: its judge calls, their tokens, its credits."""
        return cls(charge.judge_calls, charge.judge_tokens, charge.credits)

    @classmethod
    def spent(cls, ledger: Usage) -> Spend:
        """What a ledger says was spent live."""
        return cls(ledger.judge_calls, ledger.judge_tokens, ledger.credits)


@dataclass(frozen=True)
class Price:
    """What a request may cost at most, and what its answer says it cost (None: the answer
    does not say, such as a judge reply without its token usage)."""

    most: Spend
    actual: Callable[[httpx.Response], Charge | None]

    def of(self, response: httpx.Response) -> Charge:
        """What ``response`` cost; the most, when the answer cannot say or says less than
        nothing (a negative count would hand the budget back what others spent)."""
        try:
            charge = self.actual(response)
        except Exception:  # an answer that cannot be read was still an answer: count it all
            charge = None
        if charge is None or Spend.of(charge).negative:
            most = self.most
            return Charge(most.judge_calls, most.judge_tokens, 0, most.credits)
        return charge

    def priced(self, response: httpx.Response) -> Charge | None:
        """The charge of ``response`` when it was priced already (by the budget's
        transport), else None."""
        found = response.request.extensions.get(_CHARGE)
        return found if isinstance(found, Charge) else None

    def charge(self, response: httpx.Response, request: httpx.Request | None = None) -> Charge:
        """What ``response`` (to ``request``, by default its own) cost, priced once per
        answer: the budget's transport and the backend that receives it read one charge."""
        extensions = (request or response.request).extensions
        found = extensions.get(_CHARGE)
        if not isinstance(found, Charge):
            found = extensions[_CHARGE] = self.of(response)
        return found


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
        ledger: Usage | None = None,
    ) -> None:
        self.judge_calls = judge_calls
        self.judge_tokens = judge_tokens
        self.credits = credits
        #: The run's ledger, which the answers are counted into (see :func:`account`).
        self.ledger = ledger if ledger is not None else Usage()
        self._held = Spend()
        #: Settled here and not (yet) in the ledger.
        self._unrecorded = Spend()
        self._lock = threading.Lock()

    @classmethod
    def of(cls, limits: SpendingLimits, ledger: Usage | None = None) -> Budget | None:
        """The budget ``limits`` set, reading what was spent from ``ledger``; None when
        they set none."""
        if not limits.given:
            return None
        return cls(limits.max_judge_calls, limits.max_judge_tokens, limits.max_credits, ledger)

    @property
    def spent(self) -> Spend:
        """What the run spent: what its ledger holds, and what was settled here and is not
        in it yet."""
        return Spend.spent(self.ledger) + self._unrecorded

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

    def settle(self, most: Spend, actual: Spend, request: httpx.Request | None = None) -> None:
        """A request held ``most`` and cost ``actual``; when its answer will be counted into
        the ledger (:func:`account`), ``request`` says which one."""
        with self._lock:
            self._held = self._held - most
            self._unrecorded = self._unrecorded + actual
            if request is not None:
                request.extensions[_SETTLED] = (self, actual)

    def recorded(self, ledger: Usage, charge: Charge, actual: Spend) -> None:
        """Count ``charge``, which this budget settled as ``actual``, into ``ledger``; when
        that is the budget's own ledger, it holds it from now on."""
        with self._lock:
            ledger.record(charge)
            if ledger is self.ledger:
                self._unrecorded = self._unrecorded - actual


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
        self.budget.settle(price.most, Spend.of(price.charge(response, request)), request)
        return response

    async def aclose(self) -> None:
        await self.inner.aclose()


def account(ledger: Usage, response: httpx.Response, charge: Charge | None = None) -> Charge | None:
    """Count a priced answer into ``ledger``, once, and return its charge (replayed when a
    recording answered it): ``charge`` when the caller priced the answer itself, else its
    price's (:meth:`Price.charge`); None for a request without a price (nothing to count)."""
    request = response.request
    price = request.extensions.get(PRICE)
    if not isinstance(price, Price):
        return None
    charge = price.priced(response) or charge or price.charge(response)
    if is_replayed(response):
        charge = replace(charge, replayed=True)
    if request.extensions.get(_COUNTED):
        return charge
    request.extensions[_COUNTED] = True
    settled = request.extensions.pop(_SETTLED, None)
    if settled is not None:
        budget, actual = settled
        budget.recorded(ledger, charge, actual)
    else:
        ledger.record(charge)
    return charge


__all__ = ["PRICE", "Budget", "BudgetTransport", "Price", "Spend", "account", "priced"]
