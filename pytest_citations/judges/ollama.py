"""A local Ollama server; its ``format`` field takes the verdict's JSON schema."""

from __future__ import annotations

from typing import Any

from .base import HttpJudge, _int


class OllamaJudge(HttpJudge):
    """``POST {OLLAMA_HOST}/api/chat``, not streamed, temperature 0, keyless."""

    name = "ollama"
    key_variable = None

    def endpoint(self) -> str:
        host = self.settings.ollama_host
        if "://" not in host:
            host = f"http://{host}"
        return host.rstrip("/") + "/api/chat"

    def payload(self, system: str, user: str, schema: dict[str, Any], name: str) -> dict[str, Any]:
        return {
            "model": self.model,
            "stream": False,
            "format": schema,
            "options": {"temperature": 0},
            "messages": [
                {"role": "system", "content": system},
                {"role": "user", "content": user},
            ],
        }

    def read(self, data: Any) -> tuple[Any, int, int]:
        return (
            data["message"]["content"],
            _int(data.get("prompt_eval_count")),
            _int(data.get("eval_count")),
        )
