"""The settings of a run: the stages' own configs composed, read from the environment and
overridable in code.

Each stage reads its own variables where its code is: the network's timeouts, retries,
deadline and requests in flight, and the run's budget (:mod:`pytest_citations.network.config`),
the fetcher's config (its ``configure``, :class:`~pytest_citations.fetchers.CrawlbaseConfig`
for Crawlbase), the judge's provider, model and base URL
(:class:`~pytest_citations.judges.config.JudgeConfig`). Settings put them together with what
retrieval is asked for, and keep every backend's secrets by variable name (masked in every
``repr``) for the network transport, the only place a secret enters a request. A new
backend adds no field here (see :mod:`pytest_citations.pipeline.backends`).
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from ..errors import ConfigurationError
from ..fetchers import PAGE_LIMIT
from ..fetchers.crawlbase import CrawlbaseConfig
from ..fetchers.rules import DEFAULT_MAX_PAGE_CHARS
from ..judges import JudgeConfig
from ..judges.config import MODEL_VARIABLE, PROVIDER_VARIABLE
from ..network.client import HttpClient
from ..network.config import (
    BUDGETS,
    NETWORK_LIMITS,
    Limit,
    NetworkConfig,
    SpendingLimits,
    read_limits,
)
from ..network.transport import network_transport
from ..network.usage import Usage
from ..retrieval.embedders import DEFAULT_EMBEDDING_MODEL
from ..retrieval.lines import EVIDENCE_WORDS, MIN_EVIDENCE_WORDS
from ..retrieval.passages import DEFAULT_MAX_WORDS
from ..sanitize import Redactor, Secret
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


_NETWORK = {row.name: row for row in NETWORK_LIMITS}
#: Every limit a run takes, in the order the header and the help list them: the network's,
#: the fetch rules' size cap, and the budgets. The plugin (``--citations-<name>``, ini
#: ``citations_<name>``) and the command (``--<name>``) offer the same limits from it.
LIMITS: tuple[Limit, ...] = (
    *(_NETWORK[name] for name in ("timeout", "connect-timeout", "deadline", "retries")),
    PAGE_LIMIT,
    _NETWORK["concurrency"],
    *BUDGETS,
)
#: The variable of the embedding setting (``--citations-embedder``).
EMBEDDER_VARIABLE = "CITATIONS_EMBEDDING_MODEL"


def environment_variables(backends: Backends | None = None) -> tuple[str, ...]:
    """Every environment variable a run reads: the judge's choice, every limit's, the
    embedder's, the signing key, and every variable the ``backends`` declare (tokens, keys,
    base URLs, models). What a test run clears from a developer's shell."""
    backends = backends or Backends()
    kinds = ("secret_variables", "endpoint_variables", "model_variable")
    declared = [name for kind in kinds for name in backends.variables(kind)]
    own = [PROVIDER_VARIABLE, MODEL_VARIABLE, EMBEDDER_VARIABLE, SIGNING_KEY_VARIABLE]
    own += [row.env for row in LIMITS]
    return tuple(dict.fromkeys([*own, *declared]))


_NETWORK_FIELDS = frozenset(f.name for f in dataclasses.fields(NetworkConfig))
_SPENDING_FIELDS = frozenset(f.name for f in dataclasses.fields(SpendingLimits))


def _default_judge() -> JudgeConfig:
    return Backends().judge_config({})


@dataclass(frozen=True)
class Settings:
    """Everything a run needs to know, secrets included (masked in every ``repr``)."""

    #: The fetcher by name (``crawlbase``), and its own config as its ``configure`` read it.
    fetcher: str = "crawlbase"
    fetcher_config: object = field(default_factory=CrawlbaseConfig)
    #: The judge: its provider, the model it asks and where (resolved once, see
    #: :class:`~pytest_citations.judges.config.JudgeConfig`).
    judge: JudgeConfig = field(default_factory=_default_judge)
    #: Tokens and keys by environment variable: ``{"CRAWLBASE_TOKEN": Secret(...)}``.
    secrets: Mapping[str, Secret] = field(default_factory=dict)
    #: Secrets hidden from output that no request carries (:func:`hidden_secrets`).
    hidden: tuple[Secret, ...] = ()
    #: How the network sends (timeouts, retries, deadline, requests in flight).
    network: NetworkConfig = field(default_factory=NetworkConfig)
    #: What the run may spend live (:data:`BUDGETS`; see :mod:`pytest_citations.network.budget`).
    spending: SpendingLimits = field(default_factory=SpendingLimits)
    #: Characters of a fetched page kept for retrieval (``CITATIONS_MAX_PAGE_CHARS``); the
    #: rest is cut and the verdict says so in its ``warnings``.
    max_page_chars: int = DEFAULT_MAX_PAGE_CHARS
    embedding_model: str = DEFAULT_EMBEDDING_MODEL
    embedding_cache_dir: Path | None = None
    #: Words of the page the judge sees per citation, chosen line by line (0: the top
    #: ``top_k`` passages, which are also what a claim in another language than its page
    #: gets), and the words a passage holds at most (R1).
    evidence_words: int = EVIDENCE_WORDS
    top_k: int = 3
    passage_words: int = DEFAULT_MAX_WORDS
    #: How many times the judge is asked about each claim–URL pair: the verdict is the
    #: majority label of the answers, a tie going to the stricter label (``LABEL_RANK``).
    #: A recording keeps the number with the passages it chose, and a replay asks as often
    #: as the recording did.
    judge_votes: int = 1
    #: The settings the caller chose explicitly (``embedding_model``, ``evidence_words``,
    #: ``top_k``, ``passage_words``, ``judge_votes``): a recorded choice made with other
    #: values is an error on replay, never silently used.
    pinned: frozenset[str] = frozenset()

    def __post_init__(self) -> None:
        unusable = PAGE_LIMIT.unusable(self.max_page_chars)
        if unusable is not None:
            raise ConfigurationError(unusable)
        if self.top_k < 1:
            raise ConfigurationError("top_k must be at least 1")
        if self.passage_words < 1:
            raise ConfigurationError("passage_words must be at least 1")
        if self.judge_votes < 1:
            raise ConfigurationError("judge_votes must be at least 1")
        if self.evidence_words != 0 and self.evidence_words < MIN_EVIDENCE_WORDS:
            raise ConfigurationError(
                "evidence_words must be 0 (the top-k passages) or at least "
                f"{MIN_EVIDENCE_WORDS} words"
            )
        if self.max_page_chars < PAGE_LIMIT.minimum:
            raise ConfigurationError(f"max_page_chars must be at least {PAGE_LIMIT.minimum:g}")

    def limit(self, field: str) -> Any:
        """The value of a limit by its field (``read_timeout``, ``max_credits``), from the
        config that holds it."""
        for holder in (self.network, self.spending, self):
            if field in {f.name for f in dataclasses.fields(holder)}:
                return getattr(holder, field)
        raise KeyError(field)

    def without_budgets(self) -> Settings:
        """These settings with no budget (a check that counts its own spending)."""
        return self.replace(spending=SpendingLimits())

    def without_backoff(self) -> Settings:
        """These settings with no waiting between attempts (nor on a ``Retry-After``)."""
        return self.replace(network=self.network.without_backoff())

    @classmethod
    def from_env(
        cls,
        env: Mapping[str, str] | None = None,
        *,
        backends: Backends | None = None,
        judge_provider: str | None = None,
        judge_model: str | None = None,
        **overrides: Any,
    ) -> Settings:
        """Compose each stage's config from the documented environment variables and
        every variable the ``backends`` declare (default: the built-in ones; pass the
        registry a plugin added to, so that its judge's key is read). The judge is the one
        ``judge_provider`` and ``judge_model`` ask for (else ``JUDGE_PROVIDER`` and
        ``JUDGE_MODEL``), unless ``judge`` gives it resolved. Keyword arguments win over
        the variables: a field of the settings, or of the network's config or the budget
        by its own name (``read_timeout``, ``max_credits``)."""
        env = os.environ if env is None else env
        backends = backends or Backends()
        network = {name: overrides.pop(name) for name in _NETWORK_FIELDS & set(overrides)}
        spending = {name: overrides.pop(name) for name in _SPENDING_FIELDS & set(overrides)}
        fetcher = overrides.pop("fetcher", None) or "crawlbase"
        judge = overrides.pop("judge", None) or backends.judge_config(
            env, provider=judge_provider, model=judge_model
        )
        values: dict[str, Any] = {
            "fetcher": fetcher,
            "fetcher_config": backends.fetcher_config(fetcher, env),
            "judge": judge,
            "secrets": backends.secrets(env),
            "hidden": hidden_secrets(env),
            "network": NetworkConfig.from_env(env, **network),
            "spending": SpendingLimits.from_env(env, **spending),
            **read_limits((PAGE_LIMIT,), env),
            "embedding_model": env.get(EMBEDDER_VARIABLE, "").strip() or DEFAULT_EMBEDDING_MODEL,
        }
        values.update(overrides)
        return cls(**values)

    def replace(self, **changes: Any) -> Settings:
        """A copy with some fields changed."""
        return dataclasses.replace(self, **changes)

    def secret(self, variable: str) -> Secret | None:
        """The secret held by ``variable``, if it is set."""
        return self.secrets.get(variable)

    def redactor(self) -> Redactor:
        """A redactor that knows every configured secret."""
        return Redactor([*self.secrets.values(), *self.hidden])

    def required(self, backends: Backends) -> list[str]:
        """The variables the chosen fetcher and judge cannot send requests without."""
        return backends.required(self.fetcher, self.judge.provider)

    def missing(self, backends: Backends) -> list[str]:
        """Of :meth:`required`, the variables that are not set, every one of them."""
        return [name for name in self.required(backends) if self.secret(name) is None]

    def transport(self, ledger: Usage | None = None) -> httpx.AsyncBaseTransport:
        """The real network with these secrets, behind the budget when one is set: each
        call builds its own, which reads what was spent from ``ledger`` (the run's usage,
        which the answers are counted into)."""
        secrets, concurrency = self.secrets.values(), self.network.concurrency
        return network_transport(secrets, concurrency, self.spending, ledger)

    def http_client(self, transport: httpx.AsyncBaseTransport | None = None) -> HttpClient:
        """One client for the run, over ``transport`` (default: :meth:`transport`)."""
        return HttpClient(self.network, transport or self.transport())


__all__ = [
    "BUDGETS",
    "LIMITS",
    "SIGNING_KEY_VARIABLE",
    "Limit",
    "Settings",
    "environment_variables",
    "hidden_secrets",
]
