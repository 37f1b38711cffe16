"""The providers side by side: which route is whose, and how each is read and answered.

The emulator serves every provider on one server; :data:`WIRES`, one row per provider of the
package's judge registry (``pytest_citations.judges.JUDGES``, held to it by
``tests/test_registry.py``), is the one place that maps a provider to its route and where its
base URL points, and hands each step (checking the key and the request, wrapping a reply or
an error) to that provider's module.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .._server import Request, Response
from . import anthropic, ollama, openai
from .replies import Provider, Reply


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
    if WIRES[provider].top_level_system:
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


Headers = dict[str, str]
#: A provider's 200 answer: (the request, its serial, the reply, prompt and completion tokens).
Answer = Callable[[ChatRequest, int, Reply, int, int], dict[str, Any]]


@dataclass(frozen=True)
class Wire:
    """How the emulator speaks as one provider."""

    #: The path its judge posts to, and what is appended to the server's URL to make the
    #: base URL its judge is pointed at (OpenAI's ends in ``v1``).
    route: str
    base: str
    error: Callable[[int, str], dict[str, Any]]
    answer: Answer
    #: Whether a request carries the provider's key (None: keyless, like Ollama).
    authorized: Callable[[Headers, str], bool] | None = None
    #: Why the provider would reject a request the shared checks let through.
    problem: Callable[[dict[str, Any], Headers], str | None] | None = None
    #: Whether ``system`` is a top-level field of the body rather than a message.
    top_level_system: bool = False


WIRES: dict[Provider, Wire] = {
    "openai": Wire(
        "/v1/chat/completions",
        "v1",
        openai.error_payload,
        lambda chat, serial, reply, p, c: openai.completion(chat.model, serial, reply, p, c),
        authorized=openai.authorized,
    ),
    "anthropic": Wire(
        "/v1/messages",
        "",
        anthropic.error_payload,
        lambda chat, serial, reply, p, c: anthropic.message(
            chat.body, chat.model, serial, reply, p, c
        ),
        authorized=anthropic.authorized,
        problem=anthropic.request_problem,
        top_level_system=True,
    ),
    "ollama": Wire(
        "/api/chat",
        "",
        ollama.error_payload,
        lambda chat, serial, reply, p, c: ollama.chat(chat.model, reply, p, c),
    ),
}
ROUTES: dict[str, Provider] = {wire.route: provider for provider, wire in WIRES.items()}


def authorized(provider: Provider, request: Request, keys: dict[Provider, str]) -> bool:
    """Whether the request carries the provider's key (a keyless provider takes none)."""
    check = WIRES[provider].authorized
    return check is None or check(request.headers, keys.get(provider, ""))


def request_problem(provider: Provider, chat: ChatRequest, request: Request) -> str | None:
    """Why the provider would reject the request with a 400, if it would."""
    if not isinstance(chat.decoded, dict):
        return "request body must be a JSON object"
    if not chat.model:
        return "model is required"
    if not isinstance(chat.messages, list) or not chat.user_text:
        return "messages must contain a user message"
    problem = WIRES[provider].problem
    return problem(chat.body, request.headers) if problem is not None else None


def error_response(
    provider: Provider, status: int, message: str, headers: list[tuple[str, str]] | None = None
) -> Response:
    """A provider-shaped JSON error."""
    return Response.json(status, WIRES[provider].error(status, message), headers)


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
    body = WIRES[provider].answer(chat, serial, reply, prompt_tokens, completion_tokens)
    if not usage:
        for key in ("usage", "prompt_eval_count", "eval_count"):
            body.pop(key, None)
    return Response.json(200, body)
