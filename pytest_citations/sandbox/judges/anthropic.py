"""Anthropic's messages API on the wire: ``POST /v1/messages``.

Replies are message objects: the verdict as ``tool_use`` input when the request forces the
verdict tool, else a text block; a refusal as ``stop_reason: refusal``, a cut reply as
``max_tokens`` or ``model_context_window_exceeded``, an empty reply as an empty ``content``
list. The request must carry ``max_tokens`` and the ``anthropic-version`` header, the key
travels as ``x-api-key``, and errors are Anthropic's ``{"type": "error", ...}`` bodies.
"""

from __future__ import annotations

import json
from typing import Any

from .replies import Reply

TOOL_NAME = "record_verdict"


def authorized(headers: dict[str, str], key: str) -> bool:
    """Whether the request carries the emulator's Anthropic key."""
    return headers.get("x-api-key") == key


def request_problem(body: dict[str, Any], headers: dict[str, str]) -> str | None:
    """What Anthropic rejects with a 400 beyond the checks every provider makes, if anything."""
    if "max_tokens" not in body:
        return "max_tokens: Field required"
    if "anthropic-version" not in headers:
        return "anthropic-version: header is required"
    return None


def error_payload(status: int, message: str) -> dict[str, Any]:
    """An Anthropic error body."""
    kind = {
        400: "invalid_request_error",
        401: "authentication_error",
        404: "not_found_error",
        429: "rate_limit_error",
        529: "overloaded_error",
    }.get(status, "api_error")
    return {"type": "error", "error": {"type": kind, "message": message}}


def message(
    body: dict[str, Any],
    model: str,
    serial: int,
    reply: Reply,
    prompt_tokens: int,
    completion_tokens: int,
) -> dict[str, Any]:
    """An Anthropic message object; a forced tool gets the verdict as ``tool_use`` input."""
    blocks, stop_reason = _content(body, serial, reply)
    return {
        "id": f"msg_fake_{serial}",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": blocks,
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "usage": {
            "input_tokens": prompt_tokens,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 0,
            "cache_creation": {"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": 0},
            "output_tokens": completion_tokens,
            "server_tool_use": None,
            "service_tier": "standard",
        },
    }


def _content(body: dict[str, Any], serial: int, reply: Reply) -> tuple[list[dict[str, Any]], str]:
    """The content blocks of the message and its ``stop_reason``."""
    tools = body.get("tools")
    wants_tool = isinstance(tools, list) and any(
        isinstance(tool, dict) and tool.get("name") == TOOL_NAME for tool in tools
    )
    tool_input = reply.verdict
    if tool_input is None and reply.stop is None and reply.content is not None:
        try:
            parsed = json.loads(reply.content)
        except ValueError:
            parsed = None
        tool_input = parsed if isinstance(parsed, dict) else None
    blocks: list[dict[str, Any]]
    if reply.stop == "empty":
        blocks, stop_reason = [], "end_turn"
    elif reply.stop is not None:
        blocks = [{"type": "text", "text": reply.content or ""}]
        stop_reason = {
            "length": "max_tokens",
            "context_window": "model_context_window_exceeded",
        }.get(reply.stop, "refusal")
    elif wants_tool and tool_input is not None:
        blocks = [
            {
                "type": "tool_use",
                "id": f"toolu_fake_{serial}",
                "name": TOOL_NAME,
                "input": tool_input,
            }
        ]
        stop_reason = "tool_use"
    else:
        blocks = [{"type": "text", "text": reply.content or ""}]
        stop_reason = "end_turn"
    return blocks, stop_reason
