"""What the emulated model generated, before a provider wraps it in its own reply shape.

The three providers signal the same failures (a refusal, a reply cut at the token limit, an
empty reply) in different fields. A :class:`Reply` holds the content and how it stopped once;
each provider module (``openai``, ``anthropic``, ``ollama``) turns it into that provider's
published response object, so that the package's readers meet every provider's way of failing.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

#: A provider by its name in the package's judge registry (``openai``, ``anthropic``, …).
Provider = str
#: How a rule spoils a reply: ``refusal`` (OpenAI ``message.refusal``, Anthropic
#: ``stop_reason: refusal``; Ollama has no refusal signal and answers the refusal as text),
#: ``content_filter`` (OpenAI ``finish_reason: content_filter``; a refusal elsewhere),
#: ``length`` (``finish_reason: length``, ``stop_reason: max_tokens``, ``done_reason:
#: length``; the content is cut in half), ``context_window`` (Anthropic ``stop_reason:
#: model_context_window_exceeded``; ``length`` elsewhere), ``empty`` (an empty Anthropic
#: ``content`` list, an empty content string elsewhere).
Stop = Literal["refusal", "content_filter", "length", "context_window", "empty"]

REFUSAL_TEXT = "I'm sorry, but I can't help with that request."


@dataclass
class Reply:
    """What the model generated, before a provider wraps it: the content (None when there is
    none), the verdict object behind it (for Anthropic's tool input), and how it stopped."""

    content: str | None
    verdict: dict[str, Any] | None
    stop: Stop | None
    refusal: str | None = None

    @classmethod
    def of(
        cls, provider: Provider, content: str, verdict: dict[str, Any] | None, stop: Stop | None
    ) -> Reply:
        """The reply ``content`` becomes once ``stop`` spoiled it the way ``provider`` does."""
        if stop is None:
            return cls(content, verdict, None)
        if stop in ("refusal", "content_filter"):
            if provider == "openai" and stop == "refusal":
                return cls(None, None, stop, REFUSAL_TEXT)
            if provider == "openai":
                return cls(None, None, stop)
            return cls(REFUSAL_TEXT, None, stop)  # Anthropic's refusal text, Ollama's plain text
        if stop in ("length", "context_window"):
            return cls(content[: max(1, len(content) // 2)], None, stop)
        return cls("", None, stop)

    @property
    def generated(self) -> str:
        """The text the model produced (for the token count)."""
        return self.refusal or self.content or ""
