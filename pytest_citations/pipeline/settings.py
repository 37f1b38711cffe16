"""Settings of the engine, read from environment variables and overridable in code.

Settings stay generic: a fetcher or a judge declares the environment variables it reads
(see :mod:`pytest_citations.pipeline.backends`), and settings keep their values by variable name,
secrets in :attr:`Settings.secrets` (masked in every ``repr``) and base URLs in
:attr:`Settings.endpoints`. A new backend adds no field here.
"""

from __future__ import annotations

import dataclasses
import math
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import ConfigurationError
from ..redact import Redactor, Secret
from ..retrieval.choosing import BUDGET, MIN_BUDGET
from ..retrieval.embedders.base import DEFAULT_EMBEDDING_MODEL
from ..retrieval.passages import DEFAULT_MAX_WORDS
from .backends import Backends

#: The private key that signs cassettes (:mod:`pytest_citations.recording.signing`). No
#: request carries it, so it is not among :attr:`Settings.secrets` (whose values the network
#: transport puts into requests); output hides it all the same (:meth:`Settings.redactor`).
SIGNING_KEY_VARIABLE = "CITATIONS_SIGNING_KEY"


def hidden_secrets(env: Mapping[str, str]) -> tuple[Secret, ...]:
    """Values no output may show that no request carries: the signing key, whole and each
    line of it (a PEM block is printed line by line as often as whole)."""
    value = env.get(SIGNING_KEY_VARIABLE, "").strip()
    if not value:
        return ()
    lines = [line.strip() for line in value.splitlines()]
    parts = [line for line in lines if len(line) >= 16 and not line.startswith("-----")]
    return tuple(Secret(part, SIGNING_KEY_VARIABLE) for part in dict.fromkeys([value, *parts]))


@dataclass(frozen=True)
class Limit:
    """A request limit: a :class:`Settings` field, its environment variable, and what a
    valid value is. The plugin (``--citations-<name>``, ini ``citations_<name>``) and the
    command (``--<name>``) offer the same limits from this one table."""

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


#: What a run may spend, live (a recording answers for free): past a budget the remaining
#: requests are not sent, and their claims are unchecked (``over_budget``).
BUDGETS = (
    Limit("max-judge-calls", "max_judge_calls", "CITATIONS_MAX_JUDGE_CALLS", True, 0, False,
          "judge calls the run may send (default: no limit)"),
    Limit("max-judge-tokens", "max_judge_tokens", "CITATIONS_MAX_JUDGE_TOKENS", True, 0, False,
          "judge tokens the run may spend: no call is sent once they are reached, and the "
          "calls in flight then may pass them (default: no limit)"),
    Limit("max-credits", "max_credits", "CITATIONS_MAX_CREDITS", False, 0, False,
          "Crawlbase credits the run may spend: a crawl that could pass them is not sent "
          "(default: no limit)", unit="credits"),
)  # fmt: skip

#: The longest wait that still means something: a day.
DAY = 86_400

LIMITS = (
    Limit("timeout", "read_timeout", "CITATIONS_TIMEOUT", False, 0, True,
          "seconds any one read or write may wait (default 90)", maximum=DAY),
    Limit("connect-timeout", "connect_timeout", "CITATIONS_CONNECT_TIMEOUT", False, 0, True,
          "seconds to open a connection (default 10)", maximum=DAY),
    Limit("deadline", "deadline", "CITATIONS_DEADLINE", False, 0, True,
          "seconds one request may take in all, retries included (default 180)", maximum=DAY),
    Limit("retries", "retries", "CITATIONS_RETRIES", True, 0, False,
          "retries of a failed request after the first attempt (default 3)"),
    Limit("max-page-chars", "max_page_chars", "CITATIONS_MAX_PAGE_CHARS", True, 1000, False,
          "characters of a page kept for retrieval; the rest is cut (default 500000)"),
    Limit("concurrency", "concurrency", "BATCH_CONCURRENCY", True, 1, False,
          "requests in flight at once, for the whole run (default 4)"),
    *BUDGETS,
)  # fmt: skip


@dataclass(frozen=True)
class Settings:
    """Everything the engine needs to know, secrets included (masked in every ``repr``)."""

    #: The fetcher by name (``crawlbase``), and the judge provider (``openai``, …).
    fetcher: str = "crawlbase"
    judge_provider: str = "openai"
    #: The judge model; None for the provider's default.
    judge_model: str | None = None
    #: Tokens and keys by environment variable: ``{"CRAWLBASE_TOKEN": Secret(...)}``.
    secrets: Mapping[str, Secret] = field(default_factory=dict)
    #: Secrets hidden from output that no request carries (:func:`hidden_secrets`).
    hidden: tuple[Secret, ...] = ()
    #: Base URLs by environment variable: ``{"OPENAI_BASE_URL": "http://127.0.0.1:8080/v1"}``.
    endpoints: Mapping[str, str] = field(default_factory=dict)
    #: Requests in flight at once, for the whole run (``BATCH_CONCURRENCY``, A3).
    concurrency: int = 4
    #: Seconds to open a connection (``CITATIONS_CONNECT_TIMEOUT``).
    connect_timeout: float = 10.0
    #: Seconds any one read or write may wait (``CITATIONS_TIMEOUT``); Crawlbase advises 90.
    read_timeout: float = 90.0
    #: Wall-clock seconds one request may take in all, retries and backoff included
    #: (``CITATIONS_DEADLINE``): a peer that trickles bytes cannot hold a run forever.
    deadline: float = 180.0
    #: Retries after the first attempt (``CITATIONS_RETRIES``).
    retries: int = 3
    backoff: float = 1.0
    max_backoff: float = 30.0
    #: Characters of a fetched page kept for retrieval (``CITATIONS_MAX_PAGE_CHARS``); the
    #: rest is cut and the verdict says so in its ``warnings``.
    max_page_chars: int = 500_000
    embedding_model: str = DEFAULT_EMBEDDING_MODEL
    embedding_cache_dir: Path | None = None
    #: Words of the page the judge sees per citation, chosen line by line (0: the top
    #: ``top_k`` passages, which are also what a claim in another language than its page
    #: gets), and the words a passage holds at most (R1).
    budget: int = BUDGET
    top_k: int = 3
    passage_words: int = DEFAULT_MAX_WORDS
    #: How many times the judge is asked about each claim–URL pair: the verdict is the
    #: majority label of the answers, a tie going to the stricter label (``LABEL_RANK``).
    #: A recording keeps the number with the passages it chose, and a replay asks as often
    #: as the recording did.
    judge_votes: int = 1
    #: The settings the caller chose explicitly (``embedding_model``, ``budget``,
    #: ``top_k``, ``passage_words``, ``judge_votes``): a recorded choice made with other
    #: values is an error on replay, never silently used.
    pinned: frozenset[str] = frozenset()
    #: What the run may spend live, None for no limit (:data:`BUDGETS`): judge calls, judge
    #: tokens and Crawlbase credits (see :mod:`pytest_citations.network.budget`).
    max_judge_calls: int | None = None
    max_judge_tokens: int | None = None
    max_credits: float | None = None

    def __post_init__(self) -> None:
        for limit in LIMITS:
            unusable = limit.unusable(getattr(self, limit.field))
            if unusable is not None:
                raise ConfigurationError(unusable)
        if self.concurrency < 1:
            raise ConfigurationError("the concurrency limit must be at least 1")
        if self.top_k < 1:
            raise ConfigurationError("top_k must be at least 1")
        if self.passage_words < 1:
            raise ConfigurationError("passage_words must be at least 1")
        if self.judge_votes < 1:
            raise ConfigurationError("judge_votes must be at least 1")
        if self.budget != 0 and self.budget < MIN_BUDGET:
            raise ConfigurationError(
                f"budget must be 0 (the top-k passages) or at least {MIN_BUDGET} words"
            )
        if self.retries < 0:
            raise ConfigurationError("retries must be 0 or more")
        for name in ("connect_timeout", "read_timeout", "deadline"):
            if getattr(self, name) <= 0:
                raise ConfigurationError(f"{name} must be more than 0 seconds")
        if self.max_page_chars < 1000:
            raise ConfigurationError("max_page_chars must be at least 1000")
        for limit in BUDGETS:
            value = getattr(self, limit.field)
            if value is not None and value < 0:
                raise ConfigurationError(f"{limit.field} must be 0 or more")

    @property
    def budgets(self) -> dict[str, float]:
        """The budgets that were set, by field (``{"max_judge_calls": 3}``)."""
        return {
            limit.field: getattr(self, limit.field)
            for limit in BUDGETS
            if getattr(self, limit.field) is not None
        }

    def without_budgets(self) -> Settings:
        """These settings with no budget (a check that counts its own spending)."""
        return self.replace(**{limit.field: None for limit in BUDGETS})

    @classmethod
    def from_env(
        cls,
        env: Mapping[str, str] | None = None,
        *,
        backends: Backends | None = None,
        **overrides: Any,
    ) -> Settings:
        """Read the documented environment variables, and every variable the ``backends``
        declare (default: the built-in ones; pass the registry a plugin added to, so that
        its judge's key is read); keyword arguments win over them."""
        env = os.environ if env is None else env
        backends = backends or Backends()
        provider = env.get("JUDGE_PROVIDER", "").strip().lower() or "openai"
        model_variable = backends.judge_variable(provider, "model_variable")
        values: dict[str, Any] = {
            "judge_provider": provider,
            "judge_model": env.get("JUDGE_MODEL", "").strip()
            or (env.get(model_variable, "").strip() if model_variable else "")
            or None,
            "secrets": {
                name: Secret(env[name].strip(), name)
                for name in backends.variables("secret_variables")
                if env.get(name, "").strip()
            },
            "hidden": hidden_secrets(env),
            "endpoints": {
                name: env[name].strip()
                for name in backends.variables("endpoint_variables")
                if env.get(name, "").strip()
            },
            **{
                limit.field: limit.parse(env[limit.env], limit.env)
                for limit in LIMITS
                if env.get(limit.env, "").strip()
            },
            "embedding_model": env.get("CITATIONS_EMBEDDING_MODEL", "").strip()
            or DEFAULT_EMBEDDING_MODEL,
        }
        values.update(overrides)
        return cls(**values)

    def replace(self, **changes: Any) -> Settings:
        """A copy with some fields changed."""
        return dataclasses.replace(self, **changes)

    def secret(self, variable: str) -> Secret | None:
        """The secret held by ``variable``, if it is set."""
        return self.secrets.get(variable)

    def endpoint(self, variable: str, default: str) -> str:
        """The base URL held by ``variable``, or ``default``."""
        return self.endpoints.get(variable) or default

    def redactor(self) -> Redactor:
        """A redactor that knows every configured secret."""
        return Redactor([*self.secrets.values(), *self.hidden])
