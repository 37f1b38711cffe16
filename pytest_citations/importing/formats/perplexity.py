"""Perplexity answers: ``[n]`` markers in the text, numbering a list of sources.

The Agent API (``perplexity-agent``, ``POST /v1/agent``, also served as ``/v1/responses``)
answers in the Responses shape: ``output[]`` holds a ``search_results`` item whose
``results[]`` each carry an ``id``, ``url`` and ``title``, and ``message`` items whose
``output_text`` cites them as ``[n]``, n being a result's ``id``; the message's
``annotations`` are often empty. ``fetch_url_results`` items list pages the model read.
Perplexity retires Sonar's top-level ``citations`` (see its migration notes), so this is the
shape Perplexity answers come in now.

Sonar (``perplexity``):
The Sonar API answers in the Chat Completions shape (``choices[].message.content``) and adds,
at the top level, ``search_results[]`` (``title``, ``url``, ``date``) and the older
``citations[]`` (the same URLs as strings). Marker ``[n]`` is the n-th of them. A flat record
with the text under ``answer``/``content``/``text`` beside ``search_results`` reads the same.
Reasoning models (``sonar-reasoning…``) put a ``<think>…</think>`` block before the answer;
it is left out.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from .base import (
    AnswerFormat,
    AnswerFormatError,
    RawAnswer,
    RecordContext,
    Source,
    always,
    as_list,
    as_mapping,
    content_text,
    describe,
    dicts,
    numbered_sources,
    source_of,
    text_field,
    without_thinking,
)
from .openai import read_responses


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


# The Agent API ------------------------------------------------------------------------------

_MARKER = re.compile(r"\[\s*\d+(?:\s*[,;–-]\s*\d+)*\s*\]")


def matches_agent(payload: Mapping[str, Any]) -> bool:
    """A Responses-shaped ``output`` that holds a ``search_results`` (or
    ``fetch_url_results``) item: Perplexity's Agent API, not OpenAI's."""
    return any(
        item.get("type") in ("search_results", "fetch_url_results")
        for item in dicts(payload.get("output"))
    )


def _results(output: list[Mapping[str, Any]]) -> tuple[dict[str, Source | None], list[str]]:
    """Marker -> source: each search result by its ``id`` (the number the text cites), else
    by its place among the results."""
    numbered: dict[str, Source | None] = {}
    warnings: list[str] = []
    place = 0
    for item in output:
        if item.get("type") != "search_results":
            continue
        for result in dicts(item.get("results")):
            place += 1
            number = result.get("id")
            marker = str(number) if isinstance(number, int) else str(place)
            source = source_of(result)
            if marker in numbered and numbered[marker] != source:
                warnings.append(f"search result {marker} is listed twice; the first was kept")
                continue
            numbered[marker] = source
            if source is None:
                warnings.append(f"search result [{marker}] has no http(s) URL ({describe(result)})")
    return numbered, warnings


def read_agent(payload: Mapping[str, Any], context: RecordContext) -> RawAnswer:
    """The message text with its ``[n]`` markers resolved against the search results' ids;
    pages fetched (``fetch_url_results``) are retrieved. Without markers, the message's
    ``url_citation`` annotations (when it has any) attribute the sources."""
    output = dicts(payload.get("output"))
    texts = [
        part["text"]
        for item in output
        if item.get("type") == "message"
        for part in dicts(item.get("content"))
        if part.get("type") in ("output_text", "text") and isinstance(part.get("text"), str)
    ]
    text = "".join(texts)
    if not text.strip():
        raise AnswerFormatError("no output_text in the response's message items")
    numbered, warnings = _results(output)
    fetched = tuple(
        source
        for item in output
        if item.get("type") == "fetch_url_results"
        for source in map(source_of, dicts(item.get("contents")))
        if source is not None
    )
    if not _MARKER.search(text):
        annotated = read_responses(payload, context)
        if annotated.spans:
            listed = tuple(s for s in numbered.values() if s is not None)
            return replace(annotated, retrieved=(*listed, *fetched, *annotated.retrieved))
    return RawAnswer(
        without_thinking(text), numbered=numbered, retrieved=fetched, warnings=tuple(warnings)
    )


PERPLEXITY_AGENT = AnswerFormat(
    name="perplexity-agent",
    documented_at=(
        "https://docs.perplexity.ai/docs/agent-api (POST /v1/agent, /v1/responses)",
        "perplexity-py src/perplexity/types/output_item.py (SearchResultsOutputItem, "
        "FetchURLResultsOutputItem), shared/search_result.py (id, url, title)",
        "perplexityai/api-platform-developers skills/migrate-sonar-to-agent-api/references/"
        "response-and-streaming.md (citations come from the search_results item)",
    ),
    matches=matches_agent,
    read=read_agent,
    is_response=always,
)
