"""Ollama's chat API on the wire: ``POST /api/chat`` (not streamed).

Replies are /api/chat responses with made-up durations; Ollama has no refusal signal (a refusal
is plain text) and a cut reply says ``done_reason: length``. It takes no key, and its errors
are ``{"error": "..."}``.
"""

from __future__ import annotations

from typing import Any

from .replies import Reply

CREATED_AT = "2026-01-01T00:00:00Z"


def error_payload(status: int, message: str) -> dict[str, Any]:
    """An Ollama error body (the status is in the HTTP line only)."""
    return {"error": message}


def chat(model: str, reply: Reply, prompt_tokens: int, completion_tokens: int) -> dict[str, Any]:
    """An Ollama /api/chat response (not streamed); durations in nanoseconds, made up."""
    load = 1_000_000
    prompt_eval = prompt_tokens * 100_000
    evaluation = completion_tokens * 10_000_000
    return {
        "model": model,
        "created_at": CREATED_AT,
        "message": {"role": "assistant", "content": reply.generated},
        "done_reason": "length" if reply.stop in ("length", "context_window") else "stop",
        "done": True,
        "total_duration": load + prompt_eval + evaluation,
        "load_duration": load,
        "prompt_eval_count": prompt_tokens,
        "prompt_eval_duration": prompt_eval,
        "eval_count": completion_tokens,
        "eval_duration": evaluation,
    }
