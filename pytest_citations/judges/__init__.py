"""Judge providers (J1, J2), chosen by name."""

from __future__ import annotations

from collections.abc import Callable

from ..network import Requester
from ..settings import Settings
from .anthropic import AnthropicJudge
from .base import HttpJudge, Judge, Judgement, parse_verdict
from .ollama import OllamaJudge
from .openai import OpenAIJudge

JudgeFactory = Callable[[Settings, Requester], Judge]

BUILTIN_JUDGES: dict[str, JudgeFactory] = {
    "openai": OpenAIJudge,
    "anthropic": AnthropicJudge,
    "ollama": OllamaJudge,
}

__all__ = [
    "BUILTIN_JUDGES",
    "AnthropicJudge",
    "HttpJudge",
    "Judge",
    "JudgeFactory",
    "Judgement",
    "OllamaJudge",
    "OpenAIJudge",
    "parse_verdict",
]
