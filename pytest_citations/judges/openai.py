"""OpenAI (and any OpenAI-compatible server) with a strict JSON schema (the default judge)."""

from __future__ import annotations

from typing import Any

from ..labels import Reason
from . import JUDGES
from .base import HttpJudge, _blank, _field, token_counts


class OpenAIJudge(HttpJudge, provider=JUDGES["openai"]):
    """``POST {OPENAI_BASE_URL}/chat/completions`` with ``response_format`` json_schema."""

    def endpoint(self) -> str:
        return self.base_url + "/chat/completions"

    def headers(self) -> dict[str, str]:
        return {"content-type": "application/json", "authorization": f"Bearer {self.key_header()}"}

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

    def usage(self, data: Any) -> tuple[int, int] | None:
        usage = _field(data, "usage")
        return token_counts(_field(usage, "prompt_tokens"), _field(usage, "completion_tokens"))

    def read(self, data: Any) -> tuple[Any, str | None]:
        choice = data["choices"][0]
        message = choice["message"]
        finish = choice.get("finish_reason")
        # A refusal comes in its own field with null content; the content filter says so in
        # finish_reason. Either way the judge declined to answer.
        if message.get("refusal") is not None or finish == "content_filter":
            return None, Reason.JUDGE_REFUSED
        # Cut at the token limit: the JSON is incomplete even when it happens to parse.
        if finish == "length":
            return None, Reason.JUDGE_TRUNCATED
        content = message.get("content")
        if _blank(content):
            return None, Reason.JUDGE_EMPTY_RESPONSE
        return content, None
