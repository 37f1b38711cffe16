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


def _link_bounds(text: str, url: str, near: int | None = None) -> tuple[int, int] | None:
    """The bounds of the markdown link to ``url`` in ``text`` (the one nearest ``near``
    when given, else the first), or None when the text holds no such link."""
    target = f"]({url})"
    best: tuple[int, int] | None = None
    found = text.find(target)
    while found >= 0:
        opening = text.rfind("[", 0, found)
        if opening >= 0 and "\n" not in text[opening:found]:
            bounds = (opening, found + len(target))
            if near is None:
                return bounds
            if best is None or abs(opening - near) < abs(best[0] - near):
                best = bounds
        found = text.find(target, found + 1)
    return best


def _snapped(text: str, start: int, end: int, url: str) -> tuple[int, int]:
    """The bounds of the markdown link to ``url`` nearest the annotation, when the annotated
    text is not already that link and one stands within :data:`SNAP` characters."""
    if is_link(text, start, end):
        return start, end
    nearest = _link_bounds(text, url, start)
    if nearest is not None and abs(nearest[0] - start) <= SNAP:
        return nearest
    return start, end


def _span(
    annotation: Mapping[str, Any], text: str, offset: int, warnings: list[str]
) -> Span | Source | None:
    """The span of a ``url_citation`` (flat in Responses, nested in Chat Completions). One
    without usable offsets (the early Responses shape gave none) is attributed to the
    sentence holding its inline link; without such a link its page is only a source the
    answer listed (a :class:`Source`, kept as retrieved). None: no usable URL."""
    fields = as_mapping(annotation.get("url_citation")) or annotation
    raw = str(fields.get("url"))
    url = http_url(fields.get("url"))
    if url is None:
        warnings.append(f"a url_citation without a usable http(s) URL ({raw!r}) was left out")
        return None
    title = fields.get("title") if isinstance(fields.get("title"), str) else None
    source = Source(url, title)
    start, end = fields.get("start_index"), fields.get("end_index")
    if isinstance(start, int) and isinstance(end, int):
        if 0 <= start <= end <= len(text):
            start, end = _snapped(text, start, end, raw)
            return Span(offset + start, offset + end, source, link=is_link(text, start, end))
        warnings.append(
            f"the citation of {url} has offsets {start}-{end} outside the text "
            f"({len(text)} characters); its inline link was used instead"
        )
    link = _link_bounds(text, raw)
    if link is None:
        return source
    return Span(offset + link[0], offset + link[1], source, link=True)


def _annotated(
    text: str, annotations: Any, offset: int, found: list[Span | Source], warnings: list[str]
) -> None:
    for annotation in dicts(annotations):
        if annotation.get("type") == "url_citation":
            span = _span(annotation, text, offset, warnings)
            if span is not None:
                found.append(span)
        elif annotation.get("type") in ("file_citation", "container_file_citation"):
            name = annotation.get("filename") or annotation.get("file_id") or "a file"
            warnings.append(f"a citation of {name} has no URL and was left out")


def _sorted(found: list[Span | Source]) -> tuple[tuple[Span, ...], tuple[Source, ...]]:
    """The spans, and the sources no span attributes (listed, so kept as retrieved)."""
    spans = tuple(item for item in found if isinstance(item, Span))
    cited = {span.source for span in spans}
    listed = tuple(
        dict.fromkeys(item for item in found if isinstance(item, Source) and item not in cited)
    )
    return spans, listed


def matches_responses(payload: Mapping[str, Any]) -> bool:
    """A Responses API object: ``output`` holds a ``message`` item (a bare ``output`` list,
    as ``response.output`` prints, comes here as ``{"output": [...]}``)."""
    return payload.get("object") == "response" or any(
        item.get("type") == "message" for item in dicts(payload.get("output"))
    )


def read_responses(payload: Mapping[str, Any], context: RecordContext) -> RawAnswer:
    """Join the ``output_text`` parts of the message items, keeping their annotations."""
    texts: list[str] = []
    found: list[Span | Source] = []
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
            _annotated(text, part.get("annotations"), offset, found, warnings)
            texts.append(text)
            offset += len(text)
    if not texts:
        if refusals:
            raise AnswerFormatError(f"the model refused: {refusals[0]}")
        raise AnswerFormatError("no output_text in the response's message items")
    spans, listed = _sorted(found)
    return RawAnswer(
        PART_BREAK.join(texts),
        spans=spans,
        retrieved=(*listed, *retrieved),
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
    found: list[Span | Source] = []
    annotations = message.get("annotations")
    if not annotations:
        # Reasoning models put their chain of thought first; without offsets to keep, drop it.
        text = without_thinking(text)
    _annotated(text, annotations, 0, found, warnings)
    spans, listed = _sorted(found)
    return RawAnswer(text, spans=spans, retrieved=listed, warnings=tuple(warnings))


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
