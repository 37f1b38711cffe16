"""What every judge provider shares: the result type, the answer parser, the HTTP shell."""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, Protocol

import httpx

from ..errors import AuthenticationError
from ..labels import Label, Reason
from ..redact import Secret
from ..settings import Settings
from ..transport import Requester, TransientError, is_replayed
from .prompt import JUDGE_LABELS, SYSTEM_PROMPT, user_message


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

    @classmethod
    def failed(cls, reason: str, prompt_tokens: int = 0, completion_tokens: int = 0) -> Judgement:
        """A judge that gave nothing usable: not_found with a reason, confidence 0."""
        return cls(Label.NOT_FOUND, None, 0.0, prompt_tokens, completion_tokens, reason)


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


def canonical_json(payload: Any) -> bytes:
    """Key-sorted compact JSON: identical requests have identical bodies (cassette matching)."""
    return json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


class HttpJudge:
    """A judge reached over HTTP. Subclasses say where, with which headers and body, and
    how to read the verdict and token usage out of the answer."""

    name = ""
    key_variable: str | None = None

    def __init__(self, settings: Settings, requester: Requester) -> None:
        self.settings = settings
        self.requester = requester
        self.model = settings.model
        self.key: Secret | None = settings.require_judge_key() if self.key_variable else None

    # Provider specifics -------------------------------------------------------------
    def endpoint(self) -> str:
        """The URL of the chat endpoint."""
        raise NotImplementedError

    def headers(self) -> dict[str, str]:
        """Request headers, credentials included."""
        return {"content-type": "application/json"}

    def payload(self, system: str, user: str) -> dict[str, Any]:
        """The provider's request body."""
        raise NotImplementedError

    def read(self, data: Any) -> tuple[Any, int, int]:
        """(verdict content, prompt tokens, completion tokens) from the answer's JSON."""
        raise NotImplementedError

    # Shared flow --------------------------------------------------------------------
    async def judge(self, claim: str, passages: Sequence[str]) -> Judgement:
        """Ask once (with the transport's retries); every failure becomes a labelled result."""
        body = canonical_json(self.payload(SYSTEM_PROMPT, user_message(claim, passages)))
        url = self.endpoint()

        def build() -> httpx.Request:
            return self.requester.http.build_request(
                "POST", url, content=body, headers=self.headers()
            )

        try:
            response = await self.requester.send(f"{self.name} judge", build)
        except TransientError:
            return Judgement.failed(Reason.JUDGE_ERROR)
        if response.status_code in (401, 403) and self.key is not None:
            raise AuthenticationError(
                self.key.variable, f"The {self.name} judge", response.status_code
            )
        replayed = is_replayed(response)
        if response.status_code != 200:
            return replace(Judgement.failed(Reason.JUDGE_ERROR), replayed=replayed)
        try:
            content, prompt_tokens, completion_tokens = self.read(response.json())
        except (ValueError, KeyError, IndexError, TypeError):
            return replace(Judgement.failed(Reason.JUDGE_INVALID_RESPONSE), replayed=replayed)
        parsed = parse_verdict(content)
        if parsed is None:
            failed = Judgement.failed(
                Reason.JUDGE_INVALID_RESPONSE, prompt_tokens, completion_tokens
            )
            return replace(failed, replayed=replayed)
        label, quote, confidence = parsed
        return Judgement(
            label, quote, confidence, prompt_tokens, completion_tokens, replayed=replayed
        )


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0
