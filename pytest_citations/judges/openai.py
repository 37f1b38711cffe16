"""OpenAI (and any OpenAI-compatible server) with a strict JSON schema (the default judge)."""

from __future__ import annotations

from typing import Any

from .base import HttpJudge, _int


class OpenAIJudge(HttpJudge):
    """``POST {OPENAI_BASE_URL}/chat/completions`` with ``response_format`` json_schema."""

    name = "openai"
    key_variable = "OPENAI_API_KEY"

    def endpoint(self) -> str:
        return self.settings.openai_base_url.rstrip("/") + "/chat/completions"

    def headers(self) -> dict[str, str]:
        assert self.key is not None
        return {"content-type": "application/json", "authorization": f"Bearer {self.key.reveal()}"}

    def payload(self, system: str, user: str, schema: dict[str, Any], name: str) -> dict[str, Any]:
        return {
            "model": self.model,
            "temperature": 0,
            "messages": [
                {"role": "system", "content": system},
                {"role": "user", "content": user},
            ],
            "response_format": {
                "type": "json_schema",
                "json_schema": {
                    "name": name,
                    "strict": True,
                    "schema": schema,
                },
            },
        }

    def read(self, data: Any) -> tuple[Any, int, int]:
        usage = data.get("usage") or {}
        content = data["choices"][0]["message"]["content"]
        return content, _int(usage.get("prompt_tokens")), _int(usage.get("completion_tokens"))
