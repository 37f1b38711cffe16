"""A local Ollama server; its ``format`` field takes the verdict's JSON schema."""

from __future__ import annotations

from typing import Any

from ..labels import Reason
from . import JUDGES
from .base import HttpJudge, _blank, _field, token_counts


class OllamaJudge(HttpJudge, provider=JUDGES["ollama"]):
    """``POST {OLLAMA_HOST}/api/chat``, not streamed, temperature 0, keyless."""

    def endpoint(self) -> str:
        # OLLAMA_HOST is often given as host:port, as the ollama command accepts it.
        host = self.base_url if "://" in self.base_url else f"http://{self.base_url}"
        return host + "/api/chat"

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

    def usage(self, data: Any) -> tuple[int, int] | None:
        return token_counts(_field(data, "prompt_eval_count"), _field(data, "eval_count"))

    def read(self, data: Any) -> tuple[Any, str | None]:
        # Ollama has no refusal signal: a refusal is text, which fails the verdict's parse.
        if data.get("done_reason") == "length":
            return None, Reason.JUDGE_TRUNCATED
        content = data["message"]["content"]
        if _blank(content):
            return None, Reason.JUDGE_EMPTY_RESPONSE
        return content, None
