"""Judge providers (J1, J2), chosen by name. A new provider is one module (a subclass of
:class:`~pytest_citations.judges.base.HttpJudge`) plus one row in :data:`JUDGES`: what it
declares and where its class is, which is imported only when a run builds that judge."""

from __future__ import annotations

from collections.abc import Callable

from ..network.requester import Requester
from .base import HttpJudge, Judge, Judgement, JudgeProvider, parse_verdict
from .config import JudgeConfig

#: Builds a judge from its config (:meth:`JudgeConfig.from_env` reads it for the class) and
#: the shared HTTP sender.
JudgeFactory = Callable[[JudgeConfig, Requester], Judge]

#: Judge providers by name (``JUDGE_PROVIDER``, ``--citations-judge``).
JUDGES: dict[str, JudgeProvider] = {
    "openai": JudgeProvider(
        "openai",
        ".openai:OpenAIJudge",
        key_variable="OPENAI_API_KEY",
        model_variable="OPENAI_MODEL",
        base_url_variable="OPENAI_BASE_URL",
        default_base_url="https://api.openai.com/v1",
        default_model="gpt-4o-mini",
    ),
    "anthropic": JudgeProvider(
        "anthropic",
        ".anthropic:AnthropicJudge",
        key_variable="ANTHROPIC_API_KEY",
        model_variable="ANTHROPIC_MODEL",
        base_url_variable="ANTHROPIC_BASE_URL",
        default_base_url="https://api.anthropic.com",
        default_model="claude-haiku-4-5",
    ),
    "ollama": JudgeProvider(
        "ollama",
        ".ollama:OllamaJudge",
        model_variable="OLLAMA_MODEL",
        base_url_variable="OLLAMA_HOST",
        default_base_url="http://localhost:11434",
        default_model="llama3.1",
    ),
}

__all__ = [
    "JUDGES",
    "HttpJudge",
    "Judge",
    "JudgeConfig",
    "JudgeFactory",
    "JudgeProvider",
    "Judgement",
    "parse_verdict",
]
