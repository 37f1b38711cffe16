"""OpenAI answers whose text carries ``url_citation`` annotations (character offsets).

Responses API: ``output[]`` items of type ``message`` hold ``content[]`` parts of type
``output_text`` with ``text`` and ``annotations[]``; a ``url_citation`` annotation has
``url``, ``title``, ``start_index`` and ``end_index`` into that part's text. A
``web_search_call`` item may list ``action.sources[]`` (``{"type": "url", "url": …}``),
the pages consulted: those are the retrieved sources.

Chat Completions: ``choices[].message.content`` with ``message.annotations[]`` of type
``url_citation`` holding ``url_citation.{url, title, start_index, end_index}``.

The web search models write each citation into the text as a markdown link right after the
sentence it supports (``… $55. ([site](https://…))``) and point the annotation at that link;
:func:`pytest_citations.importing.spans.place_markers` turns such a link into a marker.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..spans import is_link
from .base import (
    AnswerFormat,
    AnswerFormatError,
    RawAnswer,
    RecordContext,
    Source,
    Span,
    always,
    as_mapping,
    content_text,
    dicts,
    http_url,
    without_thinking,
)

#: Separator between two text parts (or two messages) of one answer.
PART_BREAK = "\n\n"


#: How far (in characters) an annotation may miss the inline link of its own URL and still be
#: moved onto it: offsets counted in UTF-16 units drift by one per emoji before them.
SNAP = 16


def _snapped(text: str, start: int, end: int, url: str) -> tuple[int, int]:
    """The bounds of the markdown link to ``url`` nearest the annotation, when the annotated
    text is not already that link and one stands within :data:`SNAP` characters."""
    target = f"]({url})"
    if is_link(text, start, end) or target not in text:
        return start, end
    best: tuple[int, int] | None = None
    found = text.find(target)
    while found >= 0:
        opening = text.rfind("[", 0, found)
        if opening >= 0 and "\n" not in text[opening:found]:
            closing = found + len(target)
            if abs(opening - start) <= SNAP and (
                best is None or abs(opening - start) < abs(best[0] - start)
            ):
                best = (opening, closing)
        found = text.find(target, found + 1)
    return best or (start, end)


def _span(annotation: Mapping[str, Any], text: str, offset: int) -> Span | None:
    """A span from a ``url_citation`` (flat in Responses, nested in Chat Completions)."""
    if annotation.get("type") != "url_citation":
        return None
    fields = as_mapping(annotation.get("url_citation")) or annotation
    url = http_url(fields.get("url"))
    start, end = fields.get("start_index"), fields.get("end_index")
    if url is None or not isinstance(start, int) or not isinstance(end, int):
        return None
    start, end = max(0, min(start, len(text))), max(0, min(end, len(text)))
    if start > end:
        return None
    start, end = _snapped(text, start, end, str(fields.get("url")))
    title = fields.get("title") if isinstance(fields.get("title"), str) else None
    return Span(offset + start, offset + end, Source(url, title))


def _annotated(
    text: str, annotations: Any, offset: int, spans: list[Span], warnings: list[str]
) -> None:
    for annotation in dicts(annotations):
        span = _span(annotation, text, offset)
        if span is not None:
            spans.append(span)
        elif annotation.get("type") in ("file_citation", "container_file_citation"):
            name = annotation.get("filename") or annotation.get("file_id") or "a file"
            warnings.append(f"a citation of {name} has no URL and was left out")
        elif annotation.get("type") == "url_citation":
            warnings.append("a url_citation without an http(s) URL or offsets was left out")


def matches_responses(payload: Mapping[str, Any]) -> bool:
    """A Responses API object: ``output`` holds a ``message`` item."""
    return payload.get("object") == "response" or any(
        item.get("type") == "message" for item in dicts(payload.get("output"))
    )


def read_responses(payload: Mapping[str, Any], context: RecordContext) -> RawAnswer:
    """Join the ``output_text`` parts of the message items, keeping their annotations."""
    texts: list[str] = []
    spans: list[Span] = []
    retrieved: list[Source] = []
    warnings: list[str] = []
    refusals: list[str] = []
    offset = 0
    for item in dicts(payload.get("output")):
        if item.get("type") == "web_search_call":
            action = as_mapping(item.get("action")) or {}
            for source in dicts(action.get("sources")):
                url = http_url(source.get("url"))
                if url:
                    retrieved.append(Source(url))
            continue
        if item.get("type") != "message":
            continue
        for part in dicts(item.get("content")):
            if part.get("type") == "refusal" and isinstance(part.get("refusal"), str):
                refusals.append(part["refusal"])
            if part.get("type") != "output_text" or not isinstance(part.get("text"), str):
                continue
            if texts:
                offset += len(PART_BREAK)
            text: str = part["text"]
            _annotated(text, part.get("annotations"), offset, spans, warnings)
            texts.append(text)
            offset += len(text)
    if not texts:
        if refusals:
            raise AnswerFormatError(f"the model refused: {refusals[0]}")
        raise AnswerFormatError("no output_text in the response's message items")
    return RawAnswer(
        PART_BREAK.join(texts),
        spans=tuple(spans),
        retrieved=tuple(retrieved),
        warnings=tuple(warnings),
    )


def matches_chat(payload: Mapping[str, Any]) -> bool:
    """A chat completion: ``choices[].message``."""
    return any(as_mapping(choice.get("message")) for choice in dicts(payload.get("choices")))


def read_chat(payload: Mapping[str, Any], context: RecordContext) -> RawAnswer:
    """Read the first choice's message and its ``url_citation`` annotations."""
    choices = dicts(payload.get("choices"))
    message = as_mapping(choices[0].get("message")) if choices else None
    if message is None:
        raise AnswerFormatError("no choices[0].message in the chat completion")
    warnings: list[str] = []
    if len(choices) > 1:
        warnings.append(f"the completion has {len(choices)} choices; the first was imported")
    text = content_text(message.get("content"))
    if not text or not text.strip():
        refusal = message.get("refusal")
        if isinstance(refusal, str) and refusal.strip():
            raise AnswerFormatError(f"the model refused: {refusal}")
        raise AnswerFormatError("choices[0].message has no text content")
    spans: list[Span] = []
    annotations = message.get("annotations")
    if not annotations:
        # Reasoning models put their chain of thought first; without offsets to keep, drop it.
        text = without_thinking(text)
    _annotated(text, annotations, 0, spans, warnings)
    return RawAnswer(
        text,
        spans=tuple(spans),
        warnings=tuple(warnings),
    )


OPENAI_RESPONSES = AnswerFormat(
    name="openai-responses",
    documented_at=(
        "https://platform.openai.com/docs/guides/tools-web-search (output_text annotations)",
        "openai-python src/openai/types/responses/response_output_text.py (AnnotationURLCitation)",
        "openai-python src/openai/types/responses/response_function_web_search.py (action.sources)",
    ),
    matches=matches_responses,
    read=read_responses,
    is_response=always,
)

OPENAI_CHAT = AnswerFormat(
    name="openai-chat",
    documented_at=(
        "https://platform.openai.com/docs/guides/tools-web-search?api-mode=chat",
        "openai-python src/openai/types/chat/chat_completion_message.py (Annotation.url_citation)",
    ),
    matches=matches_chat,
    read=read_chat,
    is_response=always,
)
