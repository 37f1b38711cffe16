"""Anthropic's Messages API; a forced tool call carries the verdict as structured input."""

from __future__ import annotations

from typing import Any

from ..labels import Reason
from . import JUDGES
from .base import REPLY_TOKENS, HttpJudge, _blank, _field, token_counts

ANTHROPIC_VERSION = "2023-06-01"
TOOL_NAME = "record_verdict"
#: stop_reason values of a reply cut short: at max_tokens, or at the model's context window.
TRUNCATED = frozenset({"max_tokens", "model_context_window_exceeded"})


class AnthropicJudge(HttpJudge, provider=JUDGES["anthropic"]):
    """``POST {ANTHROPIC_BASE_URL}/v1/messages`` with ``tool_choice`` forcing one tool."""

    def endpoint(self) -> str:
        return self.base_url + "/v1/messages"

    def headers(self) -> dict[str, str]:
        return {
            "content-type": "application/json",
            "x-api-key": self.key_header(),
            "anthropic-version": ANTHROPIC_VERSION,
        }

    def payload(self, system: str, user: str, schema: dict[str, Any], name: str) -> dict[str, Any]:
        return {
            "model": self.model,
            "max_tokens": REPLY_TOKENS,
            "temperature": 0,
            "system": system,
            "messages": [{"role": "user", "content": user}],
            "tools": [
                {
                    "name": TOOL_NAME,
                    "description": "Record the verdict on the claim.",
                    "input_schema": schema,
                }
            ],
            "tool_choice": {"type": "tool", "name": TOOL_NAME},
        }

    def usage(self, data: Any) -> tuple[int, int] | None:
        usage = _field(data, "usage")
        return token_counts(_field(usage, "input_tokens"), _field(usage, "output_tokens"))

    def read(self, data: Any) -> tuple[Any, str | None]:
        stop_reason = data.get("stop_reason")
        if stop_reason == "refusal":
            return None, Reason.JUDGE_REFUSED
        if stop_reason in TRUNCATED:
            return None, Reason.JUDGE_TRUNCATED
        blocks = data["content"]
        if not isinstance(blocks, list):
            raise TypeError("content is not a list of blocks")
        if not blocks:
            return None, Reason.JUDGE_EMPTY_RESPONSE
        tools = [block for block in blocks if block.get("type") == "tool_use"]
        if tools:
            return tools[0]["input"], None
        text = "".join(block["text"] for block in blocks if block.get("type") == "text")
        if _blank(text):
            return None, Reason.JUDGE_EMPTY_RESPONSE
        return text, None
