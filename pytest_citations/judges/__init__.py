"""Judge providers (J1, J2), chosen by name. A new provider is one module (a subclass of
:class:`~pytest_citations.judges.base.HttpJudge`) plus one line in :data:`JUDGES`."""

from __future__ import annotations

from collections.abc import Callable

from ..network.requester import Requester
from .anthropic import AnthropicJudge
from .base import HttpJudge, Judge, Judgement, parse_verdict
from .config import JudgeConfig
from .ollama import OllamaJudge
from .openai import OpenAIJudge

#: Builds a judge from its config (:meth:`JudgeConfig.from_env` reads it for the class) and
#: the shared HTTP sender.
JudgeFactory = Callable[[JudgeConfig, Requester], Judge]

#: Judge providers by name (``JUDGE_PROVIDER``, ``--citations-judge``).
JUDGES: dict[str, JudgeFactory] = {
    "openai": OpenAIJudge,
    "anthropic": AnthropicJudge,
    "ollama": OllamaJudge,
}

__all__ = [
    "JUDGES",
    "AnthropicJudge",
    "HttpJudge",
    "Judge",
    "JudgeConfig",
    "JudgeFactory",
    "Judgement",
    "OllamaJudge",
    "OpenAIJudge",
    "parse_verdict",
]
