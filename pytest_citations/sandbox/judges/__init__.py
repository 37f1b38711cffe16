"""A real HTTP emulator of the three judge providers (OpenAI, Anthropic, Ollama) on one server.

One module per job:

- :mod:`.server`: the emulator itself (routes, rules, faults, hangs, the call log);
- :mod:`.wire` with :mod:`.openai`, :mod:`.anthropic` and :mod:`.ollama`: each provider's
  request checks, reply objects and error bodies, built from a provider-neutral
  :mod:`.replies` ``Reply``;
- :mod:`.answers`: what the model answers (a test's rule, an obeyed order, the oracle);
- :mod:`.oracle`: the deterministic heuristic judge;
- :mod:`.prompt`: the reader of the package's user message (claim, passages, sources);
- :mod:`.injection`: the gullible model that obeys a ``SYSTEM:`` order a page smuggled
  outside its fences, so that the package's defence against it can be tested.
"""

from __future__ import annotations

from .answers import AUTO, JudgeRule
from .anthropic import TOOL_NAME
from .injection import InjectedOrder, injected_order
from .ollama import CREATED_AT
from .openai import CREATED_UNIX, SYSTEM_FINGERPRINT
from .oracle import joint_oracle_verdict, oracle_verdict
from .prompt import parse_sources, parse_user_message
from .replies import REFUSAL_TEXT, Provider, Stop
from .server import JudgeCall, JudgeEmulator

__all__ = [
    "AUTO",
    "CREATED_AT",
    "CREATED_UNIX",
    "REFUSAL_TEXT",
    "SYSTEM_FINGERPRINT",
    "TOOL_NAME",
    "InjectedOrder",
    "JudgeCall",
    "JudgeEmulator",
    "JudgeRule",
    "Provider",
    "Stop",
    "injected_order",
    "joint_oracle_verdict",
    "oracle_verdict",
    "parse_sources",
    "parse_user_message",
]
