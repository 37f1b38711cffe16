"""What a run spends: Crawlbase requests and credits (F6, F8), judge calls and tokens, and
what a replay saved.

Each answer is priced once, as a :class:`Charge`, and counted once into the run's ledger, a
:class:`Usage`: the usage report reads it, and so does the run's budget
(:mod:`pytest_citations.network.budget`), which adds only what requests in flight hold."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, fields
from typing import Any

#: The most a count read from a file may be: no run checks a trillion citations or spends
#: a trillion tokens, and a float division by a count of hundreds of digits overflows.
MOST_COUNTED = 10**12


def count_of(value: object, what: str) -> int:
    """A count read from a file (a report, a base): a whole number from 0 to
    :data:`MOST_COUNTED`. Anything else (JSON's ``Infinity`` and ``NaN``, which Python's
    json reads as floats, a fraction, a string, true/false, a negative or huge number) is a
    ValueError naming ``what``."""
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MOST_COUNTED:
        shown = repr(value) if len(repr(value)) <= 24 else f"a number of {len(str(value))} digits"
        raise ValueError(f"{what} is {shown}, not a count from 0 to {MOST_COUNTED:,}")
    return value


#: Crawlbase credits per request kind (F6, F8): a normal crawl 1, a JavaScript crawl 2, and
#: storing the page half a credit more; a failed crawl costs nothing.
CREDITS = {"normal": 1.0, "javascript": 2.0, "storage": 0.5}


@dataclass(frozen=True)
class Charge:
    """What one answer cost, priced once from it: judge calls billed and their tokens, and
    Crawlbase credits; for the usage report, what it was (a crawl of a ``kind``, ``normal``
    or ``javascript``, that ``stored`` the page or not; a read of a stored page; a call to
    the judge ``provider``); ``replayed`` when a recording answered it (nothing was spent:
    what it would have cost live was saved)."""

    judge_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    credits: float = 0.0
    provider: str = ""
    crawl: str = ""
    stored: bool = False
    storage_read: bool = False
    replayed: bool = False

    @property
    def judge_tokens(self) -> int:
        """Prompt plus completion tokens."""
        return self.prompt_tokens + self.completion_tokens


@dataclass
class Usage:
    """What a run spent: Crawlbase requests and credits, judge calls and tokens. The run's
    ledger: every answer is counted into it once (:meth:`record`)."""

    crawl_requests: int = 0
    normal_crawls: int = 0
    javascript_crawls: int = 0
    stored_pages: int = 0
    failed_crawls: int = 0
    storage_reads: int = 0
    judge_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    judge_calls_by_provider: dict[str, int] = field(default_factory=dict)
    #: Answered by recordings: what the same run would have cost live.
    replayed_crawls: int = 0
    replayed_credits: float = 0.0
    replayed_judge_calls: int = 0
    replayed_judge_tokens: int = 0

    def credits_by_kind(self) -> dict[str, float]:
        """Crawlbase credits spent per kind (see :data:`CREDITS`)."""
        return {
            "normal": CREDITS["normal"] * self.normal_crawls,
            "javascript": CREDITS["javascript"] * self.javascript_crawls,
            "storage": CREDITS["storage"] * self.stored_pages,
        }

    @property
    def credits(self) -> float:
        """Crawlbase credits spent: normal, JavaScript and storage together."""
        return sum(self.credits_by_kind().values())

    @property
    def judge_tokens(self) -> int:
        """Prompt plus completion tokens the judge reported."""
        return self.prompt_tokens + self.completion_tokens

    def record(self, charge: Charge) -> None:
        """Count one answer: spent when live, saved when a recording answered it. A crawl
        is a request whatever it cost (a failed one when nothing was billed)."""
        if charge.replayed:
            self.replayed_crawls += 1 if charge.crawl else 0
            self.replayed_credits += charge.credits
            self.replayed_judge_calls += charge.judge_calls
            self.replayed_judge_tokens += charge.judge_tokens if charge.judge_calls else 0
            return
        self.storage_reads += 1 if charge.storage_read else 0
        if charge.crawl:
            self.crawl_requests += 1
            if not charge.credits:
                self.failed_crawls += 1
            elif charge.crawl == "javascript":
                self.javascript_crawls += 1
            else:
                self.normal_crawls += 1
            self.stored_pages += 1 if charge.stored and charge.credits else 0
        if charge.judge_calls:
            self.judge_calls += charge.judge_calls
            by_provider = self.judge_calls_by_provider
            by_provider[charge.provider] = by_provider.get(charge.provider, 0) + charge.judge_calls
            self.prompt_tokens += charge.prompt_tokens
            self.completion_tokens += charge.completion_tokens

    def add(self, other: Usage) -> None:
        """Accumulate another run's usage into this one."""
        for name in (
            "crawl_requests",
            "normal_crawls",
            "javascript_crawls",
            "stored_pages",
            "failed_crawls",
            "storage_reads",
            "judge_calls",
            "prompt_tokens",
            "completion_tokens",
            "replayed_crawls",
            "replayed_credits",
            "replayed_judge_calls",
            "replayed_judge_tokens",
        ):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        for provider, count in other.judge_calls_by_provider.items():
            self.judge_calls_by_provider[provider] = (
                self.judge_calls_by_provider.get(provider, 0) + count
            )

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready mapping, derived figures included."""
        data = asdict(self)
        data["credits"] = self.credits
        data["judge_tokens"] = self.judge_tokens
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Usage:
        """Inverse of :meth:`to_dict` (derived figures are ignored); a figure that is no
        amount (see :func:`amounts`) is a ValueError naming it."""
        found = amounts(cls, data)
        by_provider = data.get("judge_calls_by_provider") or {}
        if not isinstance(by_provider, Mapping):
            raise ValueError("judge_calls_by_provider is not an object")
        found["judge_calls_by_provider"] = {
            str(name): count_of(count, f"judge_calls_by_provider.{name}")
            for name, count in by_provider.items()
        }
        return cls(**found)


@dataclass(frozen=True)
class SpendPlan:
    """What a recording run is about to record and what that may cost, estimated from its
    cassettes before anything is sent: the claims whose judge calls are not recorded, at
    most how many judge calls they take, and the pages not recorded with what they cost when
    each answers its first crawl (``credits``) and at most (``most_credits``). It covers the
    ``case_files`` of the run; the ``tests`` that use the ``citation_verifier`` fixture are
    not planned (their claims are known only when they run), though the budget holds them."""

    claims: int = 0
    judge_calls: int = 0
    pages: int = 0
    credits: float = 0.0
    most_credits: float = 0.0
    case_files: int = 0
    tests: int = 0

    def to_dict(self) -> dict[str, Any]:
        """The JSON form (the JSON report's ``summary.plan``)."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> SpendPlan:
        """Inverse of :meth:`to_dict`; a figure that is no amount is a ValueError."""
        return cls(**amounts(cls, data))

    def __add__(self, other: SpendPlan) -> SpendPlan:
        """Two shards' plans as one run's (a page both shards lack counts in each: each
        shard would crawl it)."""
        return SpendPlan(
            *(getattr(self, name) + getattr(other, name) for name in self.__dataclass_fields__)
        )


def amounts(kind: type, data: Mapping[str, Any]) -> dict[str, Any]:
    """The figures of ``data`` that ``kind`` (a dataclass) declares as ``int`` or ``float``,
    read back from a file: counts (see :func:`count_of`), and
    credits finite and at least 0. Anything else is a ValueError naming the figure: a
    report read back must not hold what no run spends (a negative or infinite amount)."""
    found: dict[str, Any] = {}
    for declared in fields(kind):
        if declared.name not in data or declared.type not in ("int", "float"):
            continue
        value = data[declared.name]
        if declared.type == "int":
            found[declared.name] = count_of(value, declared.name)
        elif isinstance(value, bool) or not isinstance(value, int | float):
            raise ValueError(f"{declared.name} is {value!r:.24}, not an amount")
        elif not math.isfinite(value) or value < 0:
            raise ValueError(f"{declared.name} is {value!r}, not an amount of at least 0")
        else:
            found[declared.name] = float(value)
    return found


@dataclass(frozen=True)
class Spending:
    """What a run was allowed to spend and how what it lacks gets recorded, for the
    summary's next steps: the budgets set (by :class:`~pytest_citations.pipeline.Settings`
    field), the variables a recording needs (named, never their values), where case files
    named in node ids are from where the record command runs (``""``: the same folder),
    the plan made before the first request of a recording run, and how many processes held
    the budget (one a run, each shard's own when shard reports are merged)."""

    budget: Mapping[str, float] = field(default_factory=dict)
    record_variables: tuple[str, ...] = ()
    file_prefix: str = ""
    plan: SpendPlan | None = None
    holders: int = 0

    def joined(self, other: Spending) -> Spending:
        """This run's spending and a shard's, as one merged run's: the budget each held,
        the variables either needs, the plans added up."""
        plans = [plan for plan in (self.plan, other.plan) if plan is not None]
        return Spending(
            budget=self.budget or other.budget,
            record_variables=tuple(
                dict.fromkeys((*self.record_variables, *other.record_variables))
            ),
            file_prefix=self.file_prefix or other.file_prefix,
            plan=sum(plans[1:], plans[0]) if plans else None,
            holders=self.holders + other.holders,
        )
