"""Perplexity (Sonar) answers: ``[n]`` markers in the text, numbering a list of sources.

The Sonar API answers in the Chat Completions shape (``choices[].message.content``) and adds,
at the top level, ``search_results[]`` (``title``, ``url``, ``date``) and the older
``citations[]`` (the same URLs as strings). Marker ``[n]`` is the n-th of them. A flat record
with the text under ``answer``/``content``/``text`` beside ``search_results`` reads the same.
Reasoning models (``sonar-reasoning…``) put a ``<think>…</think>`` block before the answer;
it is left out.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .base import (
    AnswerFormat,
    AnswerFormatError,
    RawAnswer,
    RecordContext,
    as_list,
    as_mapping,
    content_text,
    dicts,
    numbered_sources,
    text_field,
    without_thinking,
)


def matches(payload: Mapping[str, Any]) -> bool:
    """``search_results``, or ``citations`` beside chat ``choices``."""
    if isinstance(payload.get("search_results"), list):
        return True
    return isinstance(payload.get("citations"), list) and bool(dicts(payload.get("choices")))


def is_response(payload: Mapping[str, Any]) -> bool:
    """The Sonar API's response (``choices``), not a flat record the application wrote."""
    return bool(dicts(payload.get("choices")))


def read(payload: Mapping[str, Any], context: RecordContext) -> RawAnswer:
    """Read the text and number ``search_results`` (else ``citations``) from 1."""
    choices = dicts(payload.get("choices"))
    message = as_mapping(choices[0].get("message")) if choices else None
    text = (
        content_text(message.get("content"))
        if message
        else text_field(payload, "answer", "content", "text")
    )
    if not text or not text.strip():
        raise AnswerFormatError("no answer text: expected choices[0].message.content or 'answer'")
    results = as_list(payload.get("search_results"))
    urls = as_list(payload.get("citations"))
    # search_results carries titles; citations is its older, URL-only twin (same order).
    numbered, warnings = numbered_sources(results if results else urls)
    if len(choices) > 1:
        warnings.append(f"the completion has {len(choices)} choices; the first was imported")
    return RawAnswer(
        without_thinking(text),
        numbered=numbered,
        warnings=tuple(warnings),
    )


PERPLEXITY = AnswerFormat(
    name="perplexity",
    documented_at=(
        "https://docs.perplexity.ai/api-reference/chat-completions-post (search_results, "
        "citations)",
        "https://docs.perplexity.ai/docs/sonar/openai-compatibility",
    ),
    matches=matches,
    read=read,
    is_response=is_response,
)
