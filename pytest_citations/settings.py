"""Settings of the engine, read from environment variables and overridable in code.

Every secret is a :class:`~pytest_citations.redact.Secret`; a ``Settings`` can be printed,
logged or put in an exception without showing a token.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .errors import ConfigurationError, MissingTokenError
from .redact import Redactor, Secret

DEFAULT_CRAWLBASE_API_URL = "https://api.crawlbase.com/"
DEFAULT_OPENAI_BASE_URL = "https://api.openai.com/v1"
DEFAULT_ANTHROPIC_BASE_URL = "https://api.anthropic.com"
DEFAULT_OLLAMA_HOST = "http://localhost:11434"
DEFAULT_MODELS = {
    "openai": "gpt-4o-mini",
    "anthropic": "claude-haiku-4-5",
    "ollama": "llama3.1",
}
#: Environment variable of each provider's model and key (Ollama runs keyless).
MODEL_VARIABLES = {
    "openai": "OPENAI_MODEL",
    "anthropic": "ANTHROPIC_MODEL",
    "ollama": "OLLAMA_MODEL",
}
KEY_VARIABLES = {"openai": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY"}
PROVIDERS = tuple(DEFAULT_MODELS)
#: The model the engine embeds with unless told otherwise (R2).
DEFAULT_EMBEDDING_MODEL = "all-MiniLM-L6-v2"


def _secret(env: Mapping[str, str], name: str) -> Secret | None:
    value = env.get(name, "").strip()
    return Secret(value, name) if value else None


def _number(env: Mapping[str, str], name: str, default: float, *, minimum: float) -> float:
    raw = env.get(name, "").strip()
    if not raw:
        return default
    try:
        value = float(raw)
    except ValueError:
        raise ConfigurationError(f"{name} must be a number, got {raw!r}") from None
    if value < minimum:
        raise ConfigurationError(f"{name} must be at least {minimum:g}, got {raw!r}")
    return value


@dataclass(frozen=True)
class Settings:
    """Everything the engine needs to know, secrets included (masked in every ``repr``)."""

    crawlbase_api_url: str = DEFAULT_CRAWLBASE_API_URL
    crawlbase_token: Secret | None = None
    crawlbase_js_token: Secret | None = None
    fetcher: str = "crawlbase"
    judge_provider: str = "openai"
    judge_model: str | None = None
    openai_api_key: Secret | None = None
    openai_base_url: str = DEFAULT_OPENAI_BASE_URL
    anthropic_api_key: Secret | None = None
    anthropic_base_url: str = DEFAULT_ANTHROPIC_BASE_URL
    ollama_host: str = DEFAULT_OLLAMA_HOST
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
    top_k: int = 3
    audit_db: Path | None = None
    extra: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.concurrency < 1:
            raise ConfigurationError("the concurrency limit must be at least 1")
        if self.top_k < 1:
            raise ConfigurationError("top_k must be at least 1")
        if self.retries < 0:
            raise ConfigurationError("retries must be 0 or more")
        for name in ("connect_timeout", "read_timeout", "deadline"):
            if getattr(self, name) <= 0:
                raise ConfigurationError(f"{name} must be more than 0 seconds")
        if self.max_page_chars < 1000:
            raise ConfigurationError("max_page_chars must be at least 1000")

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None, **overrides: Any) -> Settings:
        """Read the documented environment variables; keyword arguments win over them."""
        env = os.environ if env is None else env
        provider = env.get("JUDGE_PROVIDER", "").strip().lower() or "openai"
        model = env.get("JUDGE_MODEL", "").strip() or None
        values: dict[str, Any] = {
            "crawlbase_api_url": env.get("CRAWLBASE_API_URL", "").strip()
            or DEFAULT_CRAWLBASE_API_URL,
            "crawlbase_token": _secret(env, "CRAWLBASE_TOKEN"),
            "crawlbase_js_token": _secret(env, "CRAWLBASE_JS_TOKEN"),
            "judge_provider": provider,
            "judge_model": model,
            "openai_api_key": _secret(env, "OPENAI_API_KEY"),
            "openai_base_url": env.get("OPENAI_BASE_URL", "").strip() or DEFAULT_OPENAI_BASE_URL,
            "anthropic_api_key": _secret(env, "ANTHROPIC_API_KEY"),
            "anthropic_base_url": env.get("ANTHROPIC_BASE_URL", "").strip()
            or DEFAULT_ANTHROPIC_BASE_URL,
            "ollama_host": env.get("OLLAMA_HOST", "").strip() or DEFAULT_OLLAMA_HOST,
            "concurrency": int(_number(env, "BATCH_CONCURRENCY", 4, minimum=1)),
            "connect_timeout": _number(env, "CITATIONS_CONNECT_TIMEOUT", 10.0, minimum=0.001),
            "read_timeout": _number(env, "CITATIONS_TIMEOUT", 90.0, minimum=0.001),
            "deadline": _number(env, "CITATIONS_DEADLINE", 180.0, minimum=0.001),
            "retries": int(_number(env, "CITATIONS_RETRIES", 3, minimum=0)),
            "max_page_chars": int(_number(env, "CITATIONS_MAX_PAGE_CHARS", 500_000, minimum=1000)),
            "embedding_model": env.get("CITATIONS_EMBEDDING_MODEL", "").strip()
            or DEFAULT_EMBEDDING_MODEL,
        }
        for provider_name, variable in MODEL_VARIABLES.items():
            if provider_name == provider and not model and env.get(variable, "").strip():
                values["judge_model"] = env[variable].strip()
        values.update(overrides)
        return cls(**values)

    def replace(self, **changes: Any) -> Settings:
        """A copy with some fields changed."""
        return dataclasses.replace(self, **changes)

    @property
    def model(self) -> str:
        """The judge model in use: the configured one or the provider's default."""
        return self.judge_model or DEFAULT_MODELS.get(self.judge_provider, "")

    @property
    def judge_key(self) -> Secret | None:
        """The API key of the selected provider (None for Ollama)."""
        if self.judge_provider == "openai":
            return self.openai_api_key
        if self.judge_provider == "anthropic":
            return self.anthropic_api_key
        return None

    def require_crawlbase_token(self) -> Secret:
        """The normal token, or :class:`MissingTokenError` naming ``CRAWLBASE_TOKEN``."""
        if self.crawlbase_token is None:
            raise MissingTokenError(
                "CRAWLBASE_TOKEN", "Fetching cited pages needs a Crawlbase token."
            )
        return self.crawlbase_token

    def require_judge_key(self) -> Secret | None:
        """The judge key, or :class:`MissingTokenError` naming the provider's variable."""
        variable = KEY_VARIABLES.get(self.judge_provider)
        if variable is None:
            return None
        key = self.judge_key
        if key is None:
            raise MissingTokenError(variable, f"The {self.judge_provider} judge needs an API key.")
        return key

    def secrets(self) -> list[Secret]:
        """Every secret that is set."""
        candidates = (
            self.crawlbase_token,
            self.crawlbase_js_token,
            self.openai_api_key,
            self.anthropic_api_key,
        )
        return [secret for secret in candidates if secret is not None]

    def redactor(self) -> Redactor:
        """A redactor that knows every configured secret."""
        return Redactor(self.secrets())
