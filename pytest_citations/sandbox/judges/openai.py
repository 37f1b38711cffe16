"""OpenAI's chat completions on the wire: ``POST /v1/chat/completions``.

Replies are chat.completion objects (the CreateChatCompletionResponse schema) with a refusal in
``message.refusal``, a cut reply as ``finish_reason: length`` and a filtered one as
``finish_reason: content_filter``; errors are OpenAI's ``{"error": {...}}`` bodies, and the key
travels as ``Authorization: Bearer``. Recordings made against the emulator look like the real
thing, so the package's OpenAI reader is tested on the shapes it meets in production.
"""

from __future__ import annotations

from typing import Any

from .replies import Reply

CREATED_UNIX = 1767225600
SYSTEM_FINGERPRINT = "fp_emulator"


def authorized(headers: dict[str, str], key: str) -> bool:
    """Whether the request carries the emulator's OpenAI key as a bearer token."""
    return headers.get("authorization") == f"Bearer {key}"


def error_payload(status: int, message: str) -> dict[str, Any]:
    """An OpenAI error body."""
    kind = {
        400: "invalid_request_error",
        401: "invalid_request_error",
        429: "rate_limit_exceeded",
    }.get(status, "server_error")
    return {"error": {"message": message, "type": kind, "param": None, "code": None}}


def completion(
    model: str, serial: int, reply: Reply, prompt_tokens: int, completion_tokens: int
) -> dict[str, Any]:
    """An OpenAI chat.completion object (the CreateChatCompletionResponse schema)."""
    finish = {
        "length": "length",
        "context_window": "length",
        "content_filter": "content_filter",
    }.get(reply.stop or "", "stop")
    return {
        "id": f"chatcmpl-fake-{serial}",
        "object": "chat.completion",
        "created": CREATED_UNIX,
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": {
                    "role": "assistant",
                    "content": reply.content,
                    "refusal": reply.refusal,
                    "annotations": [],
                },
                "logprobs": None,
                "finish_reason": finish,
            }
        ],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
            "prompt_tokens_details": {"cached_tokens": 0, "audio_tokens": 0},
            "completion_tokens_details": {
                "reasoning_tokens": 0,
                "audio_tokens": 0,
                "accepted_prediction_tokens": 0,
                "rejected_prediction_tokens": 0,
            },
        },
        "service_tier": "default",
        "system_fingerprint": SYSTEM_FINGERPRINT,
    }
