"""What the network takes: how long to wait, how often to retry, how many requests at once
(:class:`NetworkConfig`), and what a run may spend live (:class:`SpendingLimits`), each read
from its environment variables here, beside the code that uses it.

Each value is a :class:`Limit`: a row that names its field, its environment variable and
what a valid value is. The plugin (``--citations-<name>``, ini ``citations_<name>``) and the
command (``--<name>``) offer every limit from these rows.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from ..errors import ConfigurationError


@dataclass(frozen=True)
class Limit:
    """A limit: its name (``--citations-<name>``), the config field it sets, its
    environment variable, and what a valid value is."""

    name: str
    field: str
    env: str
    integer: bool
    minimum: float
    #: True when the minimum itself is not allowed (timeouts must be more than 0).
    exclusive: bool
    help: str
    #: What a value counts when it need not be whole (a budget of credits).
    unit: str = "seconds"
    #: The most that still means something (None: no bound): a wait of years is a hang.
    maximum: float | None = None

    @property
    def metavar(self) -> str:
        """How a flag's help names the value: ``N``, or ``SECONDS`` for a time."""
        return "SECONDS" if self.unit == "seconds" and not self.integer else "N"

    def parse(self, raw: object, what: str) -> float:
        """The value of ``raw`` (named ``what`` in the error), or a configuration error."""
        try:
            number = float(str(raw).strip())
            # nan passes every comparison (a budget of nan credits limits nothing) and inf
            # says "no limit", which leaving the option out says already.
            if not math.isfinite(number) or (self.integer and number != int(number)):
                raise ValueError
        except ValueError:
            kind = "a whole number" if self.integer else f"a number of {self.unit}"
            raise ConfigurationError(f"{what} must be {kind}, got {raw!r}") from None
        if number < self.minimum or (self.exclusive and number == self.minimum):
            bound = "more than" if self.exclusive else "at least"
            raise ConfigurationError(f"{what} must be {bound} {self.minimum:g}, got {raw!r}")
        if self.maximum is not None and number > self.maximum:
            raise ConfigurationError(f"{what} must be at most {self.maximum:g}, got {raw!r}")
        return int(number) if self.integer else number

    def unusable(self, value: float | None) -> str | None:
        """Why a value set in code (or parsed by argparse) is no limit: not finite, or past
        :attr:`maximum`; None when it is usable as far as these go."""
        if value is None:
            return None
        if not math.isfinite(value):
            return f"{self.field} must be a finite number, got {value!r}"
        if self.maximum is not None and value > self.maximum:
            return f"{self.field} must be at most {self.maximum:g}, got {value!r}"
        return None


def check_limits(limits: Iterable[Limit], config: object) -> None:
    """A configuration error for the first value of ``config`` (one per limit, by field)
    that is no limit (:meth:`Limit.unusable`)."""
    for limit in limits:
        unusable = limit.unusable(getattr(config, limit.field))
        if unusable is not None:
            raise ConfigurationError(unusable)


def read_limits(limits: Iterable[Limit], environ: Mapping[str, str]) -> dict[str, Any]:
    """The values of ``limits`` set in ``environ``, by field (a bad one is an error naming
    its variable)."""
    return {
        limit.field: limit.parse(environ[limit.env], limit.env)
        for limit in limits
        if environ.get(limit.env, "").strip()
    }


#: The longest wait that still means something: a day.
DAY = 86_400

NETWORK_LIMITS = (
    Limit(
        "timeout",
        "read_timeout",
        "CITATIONS_TIMEOUT",
        False,
        0,
        True,
        "seconds any one read or write may wait (default 90)",
        maximum=DAY,
    ),
    Limit(
        "connect-timeout",
        "connect_timeout",
        "CITATIONS_CONNECT_TIMEOUT",
        False,
        0,
        True,
        "seconds to open a connection (default 10)",
        maximum=DAY,
    ),
    Limit(
        "deadline",
        "deadline",
        "CITATIONS_DEADLINE",
        False,
        0,
        True,
        "seconds one request may take in all, retries included (default 180)",
        maximum=DAY,
    ),
    Limit(
        "retries",
        "retries",
        "CITATIONS_RETRIES",
        True,
        0,
        False,
        "retries of a failed request after the first attempt (default 3)",
    ),
    Limit(
        "concurrency",
        "concurrency",
        "BATCH_CONCURRENCY",
        True,
        1,
        False,
        "requests in flight at once, for the whole run (default 4)",
    ),
)


@dataclass(frozen=True)
class NetworkConfig:
    """How the network sends: timeouts, retries with backoff, the overall deadline of one
    request, and how many requests are in flight at once (A3)."""

    #: Seconds to open a connection (``CITATIONS_CONNECT_TIMEOUT``).
    connect_timeout: float = 10.0
    #: Seconds any one read or write may wait (``CITATIONS_TIMEOUT``); Crawlbase advises 90.
    read_timeout: float = 90.0
    #: Retries after the first attempt (``CITATIONS_RETRIES``).
    retries: int = 3
    #: Seconds of the first backoff (doubled each retry, with jitter) and the most any
    #: backoff or ``Retry-After`` waits.
    backoff: float = 1.0
    max_backoff: float = 30.0
    #: Wall-clock seconds one request may take in all, retries and backoff included
    #: (``CITATIONS_DEADLINE``): a peer that trickles bytes cannot hold a run forever.
    deadline: float = 180.0
    #: Requests in flight at once, for the whole run (``BATCH_CONCURRENCY``, A3).
    concurrency: int = 4

    def __post_init__(self) -> None:
        check_limits(NETWORK_LIMITS, self)
        if self.concurrency < 1:
            raise ConfigurationError("the concurrency limit must be at least 1")
        if self.retries < 0:
            raise ConfigurationError("retries must be 0 or more")
        for name in ("connect_timeout", "read_timeout", "deadline"):
            if getattr(self, name) <= 0:
                raise ConfigurationError(f"{name} must be more than 0 seconds")

    @classmethod
    def from_env(cls, environ: Mapping[str, str], **overrides: Any) -> NetworkConfig:
        """The values of the documented variables (:data:`NETWORK_LIMITS`); keyword
        arguments win over them."""
        return cls(**{**read_limits(NETWORK_LIMITS, environ), **overrides})

    def without_backoff(self) -> NetworkConfig:
        """No waiting between attempts, nor on a ``Retry-After`` (a replay, a recorded
        answer checked offline)."""
        return dataclasses.replace(self, backoff=0.0, max_backoff=0.0)


#: What a run may spend, live (a recording answers for free): past a budget the remaining
#: requests are not sent, and their claims are unchecked (``over_budget``).
BUDGETS = (
    Limit(
        "max-judge-calls",
        "max_judge_calls",
        "CITATIONS_MAX_JUDGE_CALLS",
        True,
        0,
        False,
        "judge calls the run may send (default: no limit)",
    ),
    Limit(
        "max-judge-tokens",
        "max_judge_tokens",
        "CITATIONS_MAX_JUDGE_TOKENS",
        True,
        0,
        False,
        "judge tokens the run may spend: no call is sent once they are reached, and the "
        "calls in flight then may pass them (default: no limit)",
    ),
    Limit(
        "max-credits",
        "max_credits",
        "CITATIONS_MAX_CREDITS",
        False,
        0,
        False,
        "Crawlbase credits the run may spend: a crawl that could pass them is not sent "
        "(default: no limit)",
        unit="credits",
    ),
)


@dataclass(frozen=True)
class SpendingLimits:
    """What a run may spend live, None for no limit (:data:`BUDGETS`): judge calls, judge
    tokens and Crawlbase credits (see :mod:`pytest_citations.network.budget`)."""

    max_judge_calls: int | None = None
    max_judge_tokens: int | None = None
    max_credits: float | None = None

    def __post_init__(self) -> None:
        check_limits(BUDGETS, self)
        for limit in BUDGETS:
            value = getattr(self, limit.field)
            if value is not None and value < 0:
                raise ConfigurationError(f"{limit.field} must be 0 or more")

    @classmethod
    def from_env(cls, environ: Mapping[str, str], **overrides: Any) -> SpendingLimits:
        """The budgets the documented variables set (:data:`BUDGETS`); keyword arguments
        win over them."""
        return cls(**{**read_limits(BUDGETS, environ), **overrides})

    @property
    def given(self) -> dict[str, float]:
        """The budgets that were set, by field (``{"max_judge_calls": 3}``)."""
        return {
            limit.field: getattr(self, limit.field)
            for limit in BUDGETS
            if getattr(self, limit.field) is not None
        }


__all__ = [
    "BUDGETS",
    "DAY",
    "NETWORK_LIMITS",
    "Limit",
    "NetworkConfig",
    "SpendingLimits",
    "check_limits",
    "read_limits",
]
