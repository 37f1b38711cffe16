"""The three providers side by side: which route is whose, and how each is read and answered.

The emulator serves all three providers on one server; this module is the one place that maps
a route to its provider and hands each step (reading the messages, checking the key and the
request, wrapping a reply or an error) to that provider's module.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .._server import Request, Response
from . import anthropic, ollama, openai
from .replies import Provider, Reply

ROUTES: dict[str, Provider] = {
    "/v1/chat/completions": "openai",
    "/v1/messages": "anthropic",
    "/api/chat": "ollama",
}


@dataclass(frozen=True)
class ChatRequest:
    """A judge request as read off the wire, whatever its provider."""

    #: The body decoded as JSON (None when it is not JSON).
    decoded: Any
    #: The body when it is a JSON object, else empty.
    body: dict[str, Any]
    model: str
    messages: Any
    #: System (and OpenAI developer) texts, Anthropic's top-level ``system`` first.
    system_texts: list[str]
    #: The text of the last user message.
    user_text: str


def read_request(provider: Provider, request: Request) -> ChatRequest:
    """The model, the system texts and the user text of a request (empty when missing)."""
    try:
        decoded = request.json()
    except ValueError:
        decoded = None
    body: dict[str, Any] = decoded if isinstance(decoded, dict) else {}
    messages = body.get("messages")
    system_texts: list[str] = []
    user_text = ""
    if isinstance(messages, list):
        for message in messages:
            if not isinstance(message, dict):
                continue
            text = text_of(message.get("content"))
            if message.get("role") in ("system", "developer"):
                system_texts.append(text)
            elif message.get("role") == "user":
                user_text = text
    if provider == "anthropic":
        system_texts.insert(0, text_of(body.get("system")))
    return ChatRequest(decoded, body, str(body.get("model", "")), messages, system_texts, user_text)


def text_of(content: Any) -> str:
    """Message content as text: a string, or a list of {"type": "text", "text": ...} blocks."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            str(block.get("text", ""))
            for block in content
            if isinstance(block, dict) and block.get("type", "text") == "text"
        )
    return ""


def authorized(provider: Provider, request: Request, openai_key: str, anthropic_key: str) -> bool:
    """Whether the request carries the provider's key (Ollama takes none)."""
    if provider == "openai":
        return openai.authorized(request.headers, openai_key)
    if provider == "anthropic":
        return anthropic.authorized(request.headers, anthropic_key)
    return True


def request_problem(provider: Provider, chat: ChatRequest, request: Request) -> str | None:
    """Why the provider would reject the request with a 400, if it would."""
    if not isinstance(chat.decoded, dict):
        return "request body must be a JSON object"
    if not chat.model:
        return "model is required"
    if not isinstance(chat.messages, list) or not chat.user_text:
        return "messages must contain a user message"
    if provider == "anthropic":
        return anthropic.request_problem(chat.body, request.headers)
    return None


def error_response(
    provider: Provider, status: int, message: str, headers: list[tuple[str, str]] | None = None
) -> Response:
    """A provider-shaped JSON error."""
    payload: dict[str, Any]
    if provider == "anthropic":
        payload = anthropic.error_payload(status, message)
    elif provider == "openai":
        payload = openai.error_payload(status, message)
    else:
        payload = ollama.error_payload(status, message)
    return Response.json(status, payload, headers)


def reply_response(
    provider: Provider,
    chat: ChatRequest,
    serial: int,
    reply: Reply,
    prompt_tokens: int,
    completion_tokens: int,
    usage: bool = True,
) -> Response:
    """The provider's 200 answer carrying ``reply`` and the token usage (none at all when
    ``usage`` is False: the usage fields left out)."""
    body: dict[str, Any]
    if provider == "openai":
        body = openai.completion(chat.model, serial, reply, prompt_tokens, completion_tokens)
    elif provider == "anthropic":
        body = anthropic.message(
            chat.body, chat.model, serial, reply, prompt_tokens, completion_tokens
        )
    else:
        body = ollama.chat(chat.model, reply, prompt_tokens, completion_tokens)
    if not usage:
        for key in ("usage", "prompt_eval_count", "eval_count"):
            body.pop(key, None)
    return Response.json(200, body)
