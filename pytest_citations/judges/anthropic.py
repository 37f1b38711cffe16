"""Anthropic's Messages API; a forced tool call carries the verdict as structured input."""

from __future__ import annotations

from typing import Any

from .base import HttpJudge, _int

ANTHROPIC_VERSION = "2023-06-01"
TOOL_NAME = "record_verdict"


class AnthropicJudge(HttpJudge):
    """``POST {ANTHROPIC_BASE_URL}/v1/messages`` with ``tool_choice`` forcing one tool."""

    name = "anthropic"
    key_variable = "ANTHROPIC_API_KEY"

    def endpoint(self) -> str:
        return self.settings.anthropic_base_url.rstrip("/") + "/v1/messages"

    def headers(self) -> dict[str, str]:
        assert self.key is not None
        return {
            "content-type": "application/json",
            "x-api-key": self.key.reveal(),
            "anthropic-version": ANTHROPIC_VERSION,
        }

    def payload(self, system: str, user: str, schema: dict[str, Any], name: str) -> dict[str, Any]:
        return {
            "model": self.model,
            "max_tokens": 512,
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

    def read(self, data: Any) -> tuple[Any, int, int]:
        usage = data.get("usage") or {}
        blocks = [block for block in data["content"] if block.get("type") == "tool_use"]
        content = blocks[0]["input"] if blocks else data["content"][0].get("text")
        return content, _int(usage.get("input_tokens")), _int(usage.get("output_tokens"))
