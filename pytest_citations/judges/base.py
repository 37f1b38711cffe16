"""What every judge provider shares: the result type, the answer parser, the HTTP shell, and
the registry row that declares a provider before its class is imported."""

from __future__ import annotations

import importlib
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

import httpx

from ..errors import AuthenticationError
from ..labels import Label, Reason
from ..network import is_replayed, recorded_copies
from ..network.budget import Price, Spend, account, priced
from ..network.requester import Requester, TransientError
from ..network.transport import placeholder
from ..network.usage import Charge
from .config import JudgeConfig
from .prompt import (
    JOINT_SCHEMA,
    JOINT_SYSTEM_PROMPT,
    JUDGE_LABELS,
    SYSTEM_PROMPT,
    VERDICT_SCHEMA,
    joint_user_message,
    user_message,
)


@dataclass(frozen=True)
class Judgement:
    """A judge's answer before the guard; ``reason`` is set when the answer was unusable."""

    label: Label
    evidence_quote: str | None
    confidence: float
    prompt_tokens: int = 0
    completion_tokens: int = 0
    reason: str | None = None
    #: Answered by a recording rather than the provider: nothing was spent.
    replayed: bool = False
    #: How many recordings of this very request the recording holds (0 when answered live):
    #: the judge's votes on one citation are as many identical requests.
    recorded: int = 0
    #: For a joint judgement: (source number, quote) pairs, sources counted from 1.
    quotes: tuple[tuple[int, str], ...] = ()

    @classmethod
    def failed(cls, reason: str, prompt_tokens: int = 0, completion_tokens: int = 0) -> Judgement:
        """A judge that gave nothing usable: not_found with a reason, confidence 0."""
        return cls(Label.NOT_FOUND, None, 0.0, prompt_tokens, completion_tokens, reason)


#: The tokens a reply is allowed: the cap the Anthropic request sets (``max_tokens``); a
#: verdict is a label, a quote and a number, far shorter.
REPLY_TOKENS = 512


def most_spent(body: bytes) -> Spend:
    """The most one judge call of request ``body`` costs, held before it is sent, and
    counted when its answer does not say what it took: one call, and as many prompt tokens
    as the request has bytes (a token is at least one byte of the text it stands for) with
    a reply's allowance."""
    return Spend(judge_calls=1, judge_tokens=len(body) + REPLY_TOKENS)


class Judge(Protocol):
    """A judge provider: the same prompt and schema, its own transport (J2)."""

    name: str
    model: str

    async def judge(self, claim: str, passages: Sequence[str]) -> Judgement:
        """Label the claim against the passages; never raises for a bad answer."""
        ...


def parse_verdict(content: Any) -> tuple[Label, str | None, float] | None:
    """Validate a verdict (a JSON string or an object): known label, quote string or null,
    confidence a number in [0, 1]. None when anything is off."""
    if isinstance(content, str):
        try:
            content = json.loads(content)
        except ValueError:
            return None
    if not isinstance(content, dict):
        return None
    label = content.get("label")
    quote = content.get("evidence_quote")
    confidence = content.get("confidence")
    if label not in JUDGE_LABELS:
        return None
    if quote is not None and not isinstance(quote, str):
        return None
    if isinstance(confidence, bool) or not isinstance(confidence, int | float):
        return None
    if not math.isfinite(confidence) or not 0 <= confidence <= 1:
        return None
    return Label(label), quote, float(confidence)


def parse_joint_verdict(
    content: Any,
) -> tuple[Label, tuple[tuple[int, str], ...], float] | None:
    """Validate a joint verdict: known label, a list of {source, quote}, confidence in [0, 1]."""
    if isinstance(content, str):
        try:
            content = json.loads(content)
        except ValueError:
            return None
    if not isinstance(content, dict) or not isinstance(content.get("quotes"), list):
        return None
    single = parse_verdict({**content, "evidence_quote": None})
    if single is None:
        return None
    quotes: list[tuple[int, str]] = []
    for item in content["quotes"]:
        if not isinstance(item, dict):
            return None
        source, quote = item.get("source"), item.get("quote")
        if isinstance(source, bool) or not isinstance(source, int) or not isinstance(quote, str):
            return None
        quotes.append((source, quote))
    return single[0], tuple(quotes), single[2]


def canonical_json(payload: Any) -> bytes:
    """Key-sorted compact JSON: identical requests have identical bodies (cassette matching)."""
    return json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


class HttpJudge:
    """A judge reached over HTTP. Subclasses declare their environment variables and
    defaults (a built-in provider in its row of :data:`pytest_citations.judges.JUDGES`,
    a plugin's judge in class attributes), and say where, with which headers and body, and
    how to read the verdict and token usage out of the answer. A new provider is one such
    module plus one row in :data:`~pytest_citations.judges.JUDGES`."""

    name = ""
    #: The variable holding the API key (None: keyless, like a local Ollama).
    key_variable: str | None = None
    #: The variable that overrides the model for this provider (``JUDGE_MODEL`` wins).
    model_variable: str | None = None
    #: The variable holding the base URL, and its default.
    base_url_variable: str | None = None
    default_base_url = ""
    default_model = ""
    # Derived from the above (see JudgeProvider).
    secret_variables: tuple[str, ...] = ()
    required_variables: tuple[str, ...] = ()
    endpoint_variables: tuple[str, ...] = ()

    def __init_subclass__(cls, provider: JudgeProvider | None = None, **kwargs: Any) -> None:
        """A built-in provider's class takes what its registry row declares (``provider``);
        any other subclass declares it in class attributes."""
        super().__init_subclass__(**kwargs)
        declared = provider or JudgeProvider.of(cls)
        for attribute in _DECLARED:
            setattr(cls, attribute, getattr(declared, attribute))

    def __init__(self, config: JudgeConfig, requester: Requester) -> None:
        self.config = config
        self.requester = requester
        self.model = config.model
        self.base_url = config.base_url.rstrip("/")

    def key_header(self) -> str:
        """The API key as requests carry it: a placeholder that only the network transport
        replaces with the value: no secret in any frame above it."""
        assert self.key_variable is not None
        return placeholder(self.key_variable)

    # Provider specifics -------------------------------------------------------------
    def endpoint(self) -> str:
        """The URL of the chat endpoint."""
        raise NotImplementedError

    def headers(self) -> dict[str, str]:
        """Request headers, credentials included."""
        return {"content-type": "application/json"}

    def payload(self, system: str, user: str, schema: dict[str, Any], name: str) -> dict[str, Any]:
        """The provider's request body, asking for JSON that fits ``schema``."""
        raise NotImplementedError

    def usage(self, data: Any) -> tuple[int, int] | None:
        """(prompt tokens, completion tokens) billed for the answer, None when the answer
        does not say (a count missing, or not a whole number of at least 0: see
        :func:`token_counts`); never raises."""
        raise NotImplementedError

    def read(self, data: Any) -> tuple[Any, str | None]:
        """(verdict content, None), or (None, reason) when the provider says the reply cannot
        be used: refused, cut at the token limit, or empty. Raises (KeyError, IndexError,
        TypeError, ValueError) when the answer does not have the provider's shape."""
        raise NotImplementedError

    # Shared flow --------------------------------------------------------------------
    def _charge(self, response: httpx.Response, body: bytes) -> Charge:
        """What an answer to request ``body`` cost: a call and its tokens, when it answered
        (an error answer is not billed), priced once for the run's budget and its usage
        report."""
        data = _json(response) if response.status_code == 200 else None
        return self._charged(response.status_code, data, body)

    def _charged(self, status: int, data: Any, body: bytes) -> Charge:
        """:meth:`_charge` of an answer whose body was already read (``data``). One that
        does not say what it took counts what the budget held for it (:func:`most_spent`:
        the request's bytes, the reply's allowance)."""
        if status != 200:
            return Charge(provider=self.name)
        prompt_tokens, completion_tokens = self.usage(data) or (len(body), REPLY_TOKENS)
        return Charge(1, prompt_tokens, completion_tokens, provider=self.name)

    async def _exchange(
        self, system: str, user: str, schema: dict[str, Any], name: str
    ) -> tuple[Any, Judgement]:
        """Send one request; return the verdict content (None on failure) and a Judgement
        carrying the usage, the replay flag and, on failure, the reason."""
        body = canonical_json(self.payload(system, user, schema, name))
        url = self.endpoint()

        price = Price(most_spent(body), lambda response: self._charge(response, body))

        def build() -> httpx.Request:
            request = self.requester.http.build_request(
                "POST", url, content=body, headers=self.headers()
            )
            return priced(request, price)

        try:
            response = await self.requester.send(f"{self.name} judge", build)
        except TransientError:
            return None, Judgement.failed(Reason.JUDGE_ERROR)
        if response.status_code in (401, 403) and self.key_variable is not None:
            raise AuthenticationError(
                self.key_variable, f"The {self.name} judge", response.status_code
            )
        replayed, recorded = is_replayed(response), recorded_copies(response)
        status = response.status_code
        data = _json(response) if status == 200 else None
        # Counted first, into the run's ledger: a reply that cannot be used was still paid.
        # Priced from the body read here, unless the budget's transport priced it already.
        charged = price.priced(response) or self._charged(status, data, body)
        account(self.requester.ledger, response, charged)
        if status != 200:
            failed = Judgement.failed(Reason.JUDGE_ERROR)
            return None, replace(failed, replayed=replayed, recorded=recorded)
        prompt_tokens, completion_tokens = charged.prompt_tokens, charged.completion_tokens
        try:
            content, problem = self.read(data)
        except (ValueError, KeyError, IndexError, TypeError, AttributeError):
            content, problem = None, Reason.JUDGE_INVALID_RESPONSE
        outcome = Judgement.failed(
            problem or Reason.JUDGE_INVALID_RESPONSE, prompt_tokens, completion_tokens
        )
        return (None if problem else content), replace(
            outcome, replayed=replayed, recorded=recorded
        )

    async def judge(self, claim: str, passages: Sequence[str]) -> Judgement:
        """Ask once (with the transport's retries); every failure becomes a labelled result."""
        content, outcome = await self._exchange(
            SYSTEM_PROMPT, user_message(claim, passages), VERDICT_SCHEMA, "citation_verdict"
        )
        parsed = parse_verdict(content) if content is not None else None
        if parsed is None:
            return outcome
        label, quote, confidence = parsed
        return replace(
            outcome, label=label, evidence_quote=quote, confidence=confidence, reason=None
        )

    async def judge_joint(self, claim: str, sources: Sequence[Sequence[str]]) -> Judgement:
        """Judge a claim against several sources together (004, C2); quotes name sources."""
        content, outcome = await self._exchange(
            JOINT_SYSTEM_PROMPT, joint_user_message(claim, sources), JOINT_SCHEMA, "joint_verdict"
        )
        parsed = parse_joint_verdict(content) if content is not None else None
        if parsed is None:
            return outcome
        label, quotes, confidence = parsed
        return replace(outcome, label=label, quotes=quotes, confidence=confidence, reason=None)


@dataclass(frozen=True)
class JudgeProvider:
    """A judge provider as the registry declares it, before its class is imported: its
    name, the environment variables its judge reads (as :class:`HttpJudge` lists them, with
    those derived from them) and its defaults, and its class as ``module:Class`` under
    :mod:`pytest_citations.judges`. Called like the class (a judge factory), it imports the
    class: a run loads only the provider it names."""

    name: str
    implementation: str
    key_variable: str | None = None
    model_variable: str | None = None
    base_url_variable: str | None = None
    default_base_url: str = ""
    default_model: str = ""
    #: The tokens and keys it sends (masked everywhere, never recorded), those of them it
    #: cannot send a request without, and the base URLs it can be pointed at (emulators).
    secret_variables: tuple[str, ...] = field(init=False, default=())
    required_variables: tuple[str, ...] = field(init=False, default=())
    endpoint_variables: tuple[str, ...] = field(init=False, default=())

    @classmethod
    def of(cls, judge: type[HttpJudge]) -> JudgeProvider:
        """What a judge class declares in its class attributes."""
        return cls(
            judge.name,
            f"{judge.__module__}:{judge.__qualname__}",
            judge.key_variable,
            judge.model_variable,
            judge.base_url_variable,
            judge.default_base_url,
            judge.default_model,
        )

    def __post_init__(self) -> None:
        # What the settings and the recording checks read (pipeline/backends.py), derived
        # once: the key is a secret it cannot send without, the base URL an endpoint.
        secret = (self.key_variable,) if self.key_variable else ()
        endpoint = (self.base_url_variable,) if self.base_url_variable else ()
        object.__setattr__(self, "secret_variables", secret)
        object.__setattr__(self, "required_variables", secret)
        object.__setattr__(self, "endpoint_variables", endpoint)

    def __call__(self, config: JudgeConfig, requester: Requester) -> Judge:
        """The provider's judge; its module is imported here, the one place a built-in
        judge class is loaded."""
        module, _, name = self.implementation.partition(":")
        judge: Judge = getattr(importlib.import_module(module, __package__), name)(
            config, requester
        )
        return judge


#: What a judge class takes from its declaration.
_DECLARED = (
    "name",
    "key_variable",
    "model_variable",
    "base_url_variable",
    "default_base_url",
    "default_model",
    "secret_variables",
    "required_variables",
    "endpoint_variables",
)


def _json(response: httpx.Response) -> Any:
    """The answer's body as JSON; None when it is not JSON."""
    try:
        return response.json()
    except ValueError:
        return None


def token_counts(prompt: Any, completion: Any) -> tuple[int, int] | None:
    """(prompt, completion) tokens as an answer reports them, or None unless both are whole
    numbers of at least 0: a count that is missing, negative or of another type says
    nothing the budget may count (a negative one would give back tokens others spent)."""
    counts = (prompt, completion)
    if all(isinstance(n, int) and not isinstance(n, bool) and n >= 0 for n in counts):
        return prompt, completion
    return None


def _field(data: Any, *path: str) -> Any:
    """``data[path[0]][path[1]]…``, or None where a level is missing or not an object."""
    for key in path:
        if not isinstance(data, dict):
            return None
        data = data.get(key)
    return data


def _blank(content: Any) -> bool:
    """True for a reply with nothing in it: no content, or only whitespace."""
    return content is None or (isinstance(content, str) and not content.strip())
