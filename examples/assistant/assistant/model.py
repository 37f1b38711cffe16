"""The assistant's model: the replies it gave, recorded per system prompt.

A real assistant sends the prompt, the retrieved pages and the question to its LLM here.
This one looks the reply up in ``replies.json`` by the prompt's digest and the question, so
that the example runs offline and the same prompt always gives the same answer. A reply cites
pages by slug (``[returns]``); the app numbers them as the pages it retrieved.
"""

from __future__ import annotations

import hashlib
import json
from functools import cache
from pathlib import Path

REPLIES = Path(__file__).with_name("replies.json")


def prompt_digest(prompt: str) -> str:
    """The key of a prompt's replies: the first 12 hex digits of its SHA-256."""
    return hashlib.sha256(prompt.encode("utf-8")).hexdigest()[:12]


@cache
def _replies() -> dict[str, dict[str, str]]:
    loaded: dict[str, dict[str, str]] = json.loads(REPLIES.read_text(encoding="utf-8"))
    return loaded


def reply(prompt: str, question: str) -> str:
    """The model's reply to ``question`` under ``prompt``."""
    digest = prompt_digest(prompt)
    try:
        return _replies()[digest][question]
    except KeyError:
        raise LookupError(f"no recorded reply for prompt {digest} and {question!r}") from None
