"""The judge emulator: one real HTTP server answering as every provider of the package's judge
registry (OpenAI, Anthropic, Ollama).

Routes (:data:`.wire.WIRES`): ``POST /v1/chat/completions`` (OpenAI), ``POST /v1/messages``
(Anthropic), ``POST /api/chat`` (Ollama). The package's judges are pointed at it through
their base-URL variables (:meth:`JudgeEmulator.environment`), so their requests, retries,
timeouts and readers run as against the real services.
Tests configure what it answers (rules per claim, queued HTTP faults, hangs, latency) and read
back what it was asked (the call log, token totals). What the model answers is decided in
:mod:`.answers`; the provider shapes live in :mod:`.wire` and the provider modules.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from functools import partial
from typing import Any

from ...judges import JUDGES
from .._server import HANG_SECONDS, EmulatorBase, Request, Response
from .answers import AUTO, JudgeRule, _Auto, answer
from .prompt import is_joint, parse_user_message
from .replies import Provider, Reply, Stop
from .wire import (
    ROUTES,
    WIRES,
    ChatRequest,
    authorized,
    error_response,
    read_request,
    reply_response,
    request_problem,
)


@dataclass
class JudgeCall:
    """One judge request as the emulator saw it (API keys are never stored)."""

    provider: Provider
    model: str
    claim: str
    passages: list[str]
    status: int
    label: str | None = None
    prompt_tokens: int = 0
    completion_tokens: int = 0
    body: dict[str, Any] = field(default_factory=dict)


@dataclass
class _Fault:
    status: int
    retry_after: float | None


def _format_seconds(seconds: float) -> str:
    return str(int(seconds)) if float(seconds).is_integer() else f"{seconds:g}"


class JudgeEmulator(EmulatorBase):
    """OpenAI + Anthropic + Ollama chat endpoints on 127.0.0.1 (use as a context manager).

    ``openai_base_url`` = url + "v1", ``anthropic_base_url`` = url, ``ollama_host`` = url
    without the trailing slash.
    """

    def __init__(
        self,
        openai_key: str = "sk-test-openai",
        anthropic_key: str = "sk-ant-test",
        latency: float = 0.0,
        keys: dict[Provider, str] | None = None,
    ) -> None:
        super().__init__()
        self.openai_key = openai_key
        self.anthropic_key = anthropic_key
        #: The key each keyed provider of the registry accepts.
        self.keys: dict[Provider, str] = {
            name: f"sk-test-{name}"
            for name, judge in JUDGES.items()
            if getattr(judge, "key_variable", None)
        }
        self.keys.update({"openai": openai_key, "anthropic": anthropic_key, **(keys or {})})
        self.latency = latency
        #: Obey "SYSTEM:" orders found outside the passage fences (see injected_order).
        self.gullible = True
        self.rules: dict[tuple[str, str | None], JudgeRule] = {}
        self._faults: deque[_Fault] = deque()
        self._hangs = 0
        self._calls: list[JudgeCall] = []
        self._serial = 0
        #: How answers report their token usage: ``counted`` (the prompt's and the reply's
        #: words), ``negative`` (the same, negated) or ``missing`` (no usage field at all),
        #: as a broken provider or proxy would.
        self.usage_reported = "counted"

    # -- URLs ------------------------------------------------------------------------------

    @property
    def openai_base_url(self) -> str:
        """OpenAI base URL (``.../v1``; the client appends ``/chat/completions``)."""
        return self.url + "v1"

    @property
    def anthropic_base_url(self) -> str:
        """Anthropic base URL (no ``/v1``; the client appends ``/v1/messages``)."""
        return self.url

    @property
    def ollama_host(self) -> str:
        """Ollama host URL without the trailing slash."""
        return self.url.rstrip("/")

    def base_url(self, provider: Provider) -> str:
        """Where ``provider``'s judge is pointed to reach this emulator."""
        return (self.url + WIRES[provider].base).rstrip("/")

    def base_urls(self) -> dict[str, str]:
        """Every registered judge's base-URL variable, pointing here."""
        return {
            variable: self.base_url(name)
            for name, judge in JUDGES.items()
            if (variable := getattr(judge, "base_url_variable", None))
        }

    def environment(self) -> dict[str, str]:
        """:meth:`base_urls`, and every registered judge's key variable holding the key
        this emulator accepts for it (a keyless judge has none)."""
        keys = {
            variable: self.keys[name]
            for name, judge in JUDGES.items()
            if (variable := getattr(judge, "key_variable", None)) and name in self.keys
        }
        return {**self.base_urls(), **keys}

    # -- configuration ---------------------------------------------------------------------

    def rule(
        self,
        claim: str,
        label: str = "supported",
        quote: str | _Auto | None = AUTO,
        confidence: float = 0.9,
        raw: str | None = None,
        provider: Provider | None = None,
        quotes: list[tuple[int, str]] | None = None,
        stop: Stop | None = None,
        labels: Sequence[str] = (),
    ) -> JudgeRule:
        """Answer ``claim`` (exact text, stripped) with a fixed verdict or ``raw`` content.

        ``quote`` may be any string (even one absent from the passages) or None; left out, it
        is the oracle's chosen sentence. ``raw`` is sent verbatim as the content string
        (Anthropic: as tool input when it is a JSON object, else as a text block).
        ``provider`` limits the rule to one provider. ``quotes`` (``[(source, quote)]``) makes
        it answer joint requests (several sources) instead; other rules leave those to the
        joint oracle. ``stop`` spoils the replies the rule answers (single requests, and joint
        ones when ``quotes`` is given) as a refusal, a truncation or an empty reply; their
        token usage is still reported. ``labels`` answers the claim's single requests with
        one label per call, in turn, repeating once used up (``["supported",
        "contradicted"]``: supported, contradicted, supported, …), identical requests
        included: a judge that disagrees with itself.
        """
        rule = JudgeRule(label, quote, confidence, raw, quotes, stop, tuple(labels))
        with self._lock:
            self.rules[(claim.strip(), provider)] = rule
        return rule

    def clear_rules(self) -> None:
        """Forget every rule."""
        with self._lock:
            self.rules.clear()

    def fail_next(self, status: int, count: int = 1, retry_after: float | None = None) -> None:
        """Queue ``count`` HTTP errors answered before normal answers, for any provider.

        A 429 always carries ``Retry-After`` (``retry_after`` or 0).
        """
        with self._lock:
            for _ in range(count):
                self._faults.append(_Fault(status, retry_after))

    def hang_next(self, count: int = 1) -> None:
        """Make the next ``count`` requests sleep 30 s before answering."""
        with self._lock:
            self._hangs += count

    # -- accounting ------------------------------------------------------------------------

    @property
    def calls(self) -> list[JudgeCall]:
        """Every judge request so far (a copy)."""
        with self._lock:
            return list(self._calls)

    @property
    def call_count(self) -> int:
        """Number of judge requests (any outcome)."""
        with self._lock:
            return len(self._calls)

    def count(self, provider: Provider) -> int:
        """Number of requests to one provider."""
        with self._lock:
            return sum(1 for call in self._calls if call.provider == provider)

    @property
    def tokens(self) -> dict[str, int]:
        """Token totals over answered calls: ``{"prompt", "completion", "total"}``."""
        with self._lock:
            prompt = sum(call.prompt_tokens for call in self._calls)
            completion = sum(call.completion_tokens for call in self._calls)
        return {"prompt": prompt, "completion": completion, "total": prompt + completion}

    def reset_counters(self) -> None:
        """Forget calls, tokens and max_in_flight (rules and queued faults stay)."""
        with self._lock:
            self._calls.clear()
            self._reset_flight()

    # -- serving ---------------------------------------------------------------------------

    def handle(self, request: Request) -> Response:
        """Route one request."""
        provider = ROUTES.get(request.path.rstrip("/"))
        if provider is None:
            return Response.json(404, {"error": "not found"})
        if request.method != "POST":
            return error_response(provider, 405, "method not allowed")
        self._enter_flight()
        try:
            return self._answer(provider, request)
        finally:
            self._leave_flight()

    def _record(self, call: JudgeCall) -> None:
        with self._lock:
            self._calls.append(call)

    def _answer(self, provider: Provider, request: Request) -> Response:
        chat = read_request(provider, request)
        claim, passages = parse_user_message(chat.user_text)

        call = partial(JudgeCall, provider, chat.model, claim, passages, body=chat.body)

        if not authorized(provider, request, self.keys):
            self._record(call(401))
            return error_response(provider, 401, "invalid api key")
        problem = request_problem(provider, chat, request)
        if problem is not None:
            self._record(call(400))
            return error_response(provider, 400, problem)
        self._wait()
        fault, rule, serial = self._take(claim, provider, chat.user_text)
        if fault is not None:
            self._record(call(fault.status))
            return _fault_response(provider, fault)
        reply, label = self._generate(provider, chat, rule, claim, passages)
        prompt_tokens = sum(len(text.split()) for text in [*chat.system_texts, chat.user_text])
        # Providers bill output tokens even for an empty reply.
        completion_tokens = max(1, len(reply.generated.split()))
        self._record(call(200, label, prompt_tokens, completion_tokens))
        sign = -1 if self.usage_reported == "negative" else 1
        return reply_response(
            provider,
            chat,
            serial,
            reply,
            sign * prompt_tokens,
            sign * completion_tokens,
            usage=self.usage_reported != "missing",
        )

    def _wait(self) -> None:
        """Sleep the latency, or the hang time when a hang is queued."""
        with self._lock:
            hang = self._hangs > 0
            if hang:
                self._hangs -= 1
            latency = self.latency
        self._sleep(HANG_SECONDS if hang else latency)

    def _take(
        self, claim: str, provider: Provider, user_text: str
    ) -> tuple[_Fault | None, JudgeRule | None, int]:
        """The next queued fault, the rule for the claim (with this call's label when it
        answers a sequence), and this answer's serial number."""
        with self._lock:
            fault = self._faults.popleft() if self._faults else None
            rule = self.rules.get((claim, provider)) or self.rules.get((claim, None))
            if fault is None and rule is not None and rule.labels and not is_joint(user_text):
                rule = replace(rule, label=rule.next_label())
            self._serial += 1
            return fault, rule, self._serial

    def _generate(
        self,
        provider: Provider,
        chat: ChatRequest,
        rule: JudgeRule | None,
        claim: str,
        passages: list[str],
    ) -> tuple[Reply, str | None]:
        """The reply, and the label the call log records (None when the reply is spoiled)."""
        given = answer(rule, chat.user_text, claim, passages, self.gullible)
        reply = Reply.of(provider, given.content, given.verdict, given.stop)
        return reply, None if given.stop is not None else given.label


def _fault_response(provider: Provider, fault: _Fault) -> Response:
    """A queued HTTP error; a 429 (or a fault given one) carries ``Retry-After``."""
    headers = []
    if fault.status == 429 or fault.retry_after is not None:
        headers.append(("Retry-After", _format_seconds(fault.retry_after or 0)))
    return error_response(provider, fault.status, "injected failure", headers)
