"""What the service reads and answers, as pydantic models with examples: they validate the
``/verify`` body and describe every body in the OpenAPI document (``/openapi.json``).

The request is validated with the service's :class:`Limits` as validation context, so that
a service started with other limits checks and documents those.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    JsonValue,
    StringConstraints,
    ValidationInfo,
    field_validator,
)
from pydantic_core import PydanticCustomError

from ..errors import ConfigurationError
from ..fetchers.urls import MAX_URL_CHARS
from ..labels import Label
from ..pipeline.settings import Limit

#: Request limits: cited URLs per claim, characters of the claim, bytes of the body, and
#: seconds the body may take to arrive after the request's headers.
MAX_URLS = 10
MAX_CLAIM_CHARS = 2000
MAX_BODY_BYTES = 64 * 1024
BODY_TIMEOUT = 10.0
BODY_TIMEOUT_LIMIT = Limit(
    "body-timeout",
    "body_timeout",
    "CITATIONS_SERVICE_BODY_TIMEOUT",
    False,
    0,
    True,
    "seconds a /verify body may take to arrive after its headers; then 408 (default 10)",
)

EXAMPLE_CLAIM = "Water boils at 100 °C at sea level."
EXAMPLE_URL = "https://example.org/physics/boiling"
EXAMPLE_DEAD_URL = "https://example.org/old-report"


@dataclass(frozen=True)
class Limits:
    """What one ``/verify`` request may ask for."""

    max_urls: int = MAX_URLS
    max_claim_chars: int = MAX_CLAIM_CHARS
    max_body_bytes: int = MAX_BODY_BYTES
    body_timeout: float = BODY_TIMEOUT

    def __post_init__(self) -> None:
        if self.body_timeout <= 0:
            raise ConfigurationError("body_timeout must be more than 0 seconds")

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Limits:
        """The default limits, with ``CITATIONS_SERVICE_BODY_TIMEOUT`` when it is set."""
        env = os.environ if env is None else env
        raw = env.get(BODY_TIMEOUT_LIMIT.env, "").strip()
        if not raw:
            return cls()
        return cls(body_timeout=BODY_TIMEOUT_LIMIT.parse(raw, BODY_TIMEOUT_LIMIT.env))


def _limits(info: ValidationInfo) -> Limits:
    return info.context if isinstance(info.context, Limits) else Limits()


_Text = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1)]
_Url = Annotated[
    str, StringConstraints(strip_whitespace=True, min_length=1, max_length=MAX_URL_CHARS)
]


class VerifyRequest(BaseModel):
    """A claim and the pages it cites."""

    model_config = ConfigDict(
        extra="forbid",
        strict=True,
        json_schema_extra={
            "examples": [{"claim": EXAMPLE_CLAIM, "urls": [EXAMPLE_URL, EXAMPLE_DEAD_URL]}]
        },
    )

    claim: _Text = Field(description="The claim to check, as one sentence.")
    urls: list[_Url] = Field(min_length=1, description="The pages the claim cites, http or https.")

    @field_validator("claim")
    @classmethod
    def _claim_within_limit(cls, claim: str, info: ValidationInfo) -> str:
        limit = _limits(info).max_claim_chars
        if len(claim) > limit:
            raise PydanticCustomError(
                "claim_too_long", "claim over {limit} characters", {"limit": limit}
            )
        return claim

    @field_validator("urls")
    @classmethod
    def _urls_within_limit(cls, urls: list[str], info: ValidationInfo) -> list[str]:
        limit = _limits(info).max_urls
        if len(urls) > limit:
            raise PydanticCustomError("too_many_urls", "at most {limit} urls", {"limit": limit})
        return urls


def request_schema(limits: Limits) -> dict[str, Any]:
    """The JSON Schema of a ``/verify`` body under ``limits``, for the OpenAPI document."""
    schema = VerifyRequest.model_json_schema()
    schema["properties"]["claim"]["maxLength"] = limits.max_claim_chars
    schema["properties"]["urls"]["maxItems"] = limits.max_urls
    return schema


class UrlVerdict(BaseModel):
    """The verdict on one cited page. Every field is always sent; those that may be null
    say so (the OpenAPI document leaves nulls out of its examples)."""

    url: str = Field(description="The URL as cited.")
    label: Label = Field(description="What the page says about the claim.")
    evidence_quote: str | None = Field(
        None, description="The passage of the page the label rests on, verbatim; null without one."
    )
    confidence: float = Field(ge=0, le=1, description="The judge's confidence, 0 to 1.")
    final_url: str | None = Field(None, description="The URL after redirects; null if not fetched.")
    original_status: int | None = Field(None, description="The page's HTTP status, if fetched.")
    rid: str | None = Field(
        None, description="The rid of the stored page ('pytest-citations stored-page RID')."
    )
    reason: str | None = Field(
        None,
        description="Why the engine decided the label without the judge (http_404, "
        "soft_404, pdf_unsupported, …), or why the page could not be checked; null otherwise.",
    )
    warnings: list[str] = Field(
        description="What the reader should know that did not decide the label."
    )


_SUPPORTED: dict[str, JsonValue] = {
    "url": EXAMPLE_URL,
    "label": "supported",
    "evidence_quote": "At sea level, pure water boils at 100 °C (212 °F).",
    "confidence": 0.9,
    "final_url": EXAMPLE_URL,
    "original_status": 200,
    "rid": "4f1c2a9e0b7d3e65",
    "reason": None,
    "warnings": [],
}
_DEAD: dict[str, JsonValue] = {
    **_SUPPORTED,
    "url": EXAMPLE_DEAD_URL,
    "label": "unreachable",
    "evidence_quote": None,
    "confidence": 1.0,
    "final_url": EXAMPLE_DEAD_URL,
    "original_status": 404,
    "rid": "9a8b7c6d5e4f3a2b",
    "reason": "http_404",
}


class VerifyResponse(BaseModel):
    """The claim's label and the verdict of each cited page, in citation order. Lists that
    would be empty are left out."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {"claim": EXAMPLE_CLAIM, "overall": "supported", "citations": [_SUPPORTED, _DEAD]}
            ]
        }
    )

    claim: str = Field(description="The claim as checked.")
    overall: Label = Field(description="The claim's label, from the labels of its pages.")
    citations: list[UrlVerdict]
    problems: list[str] = Field(
        default_factory=list, description="Why some citations could not be checked at all."
    )
    joint_support: list[str] = Field(
        default_factory=list,
        description="Cited URLs whose passages only together supported the claim.",
    )
    misattributed_to: list[str] = Field(
        default_factory=list, description="Uncited sources that support the claim."
    )
    invalid_urls: list[str] = Field(
        default_factory=list, description="Cited URLs that are not http(s) URLs."
    )


class Health(BaseModel):
    """Whether the service can verify, and with which judge."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {"status": "ok", "judge": "openai", "model": "gpt-4o-mini", "missing": []},
                {
                    "status": "degraded",
                    "judge": "openai",
                    "model": "gpt-4o-mini",
                    "missing": ["CRAWLBASE_TOKEN", "OPENAI_API_KEY"],
                },
            ]
        }
    )

    status: Literal["ok", "degraded"] = Field(
        description="degraded while a variable is missing: /verify answers 503."
    )
    judge: str = Field(description="The judge provider.")
    model: str = Field(description="The judge model.")
    missing: list[str] = Field(description="Every variable the service needs and lacks.")


class Problem(BaseModel):
    """One thing wrong with a request."""

    loc: list[str | int] = Field(description="Where: 'body', then the field and position.")
    msg: str = Field(description="What is wrong.")


class ValidationErrors(BaseModel):
    """A malformed request: every problem found, at once."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "detail": [
                        {"loc": ["body", "urls"], "msg": "at most 10 urls"},
                        {"loc": ["body", "k"], "msg": "Extra inputs are not permitted"},
                    ]
                }
            ]
        }
    )

    detail: list[Problem]


class Message(BaseModel):
    """An error that is not about the body's fields."""

    model_config = ConfigDict(
        json_schema_extra={"examples": [{"detail": "CRAWLBASE_TOKEN is not set"}]}
    )

    detail: str
