"""Gemini's Interactions API: ``steps[]`` (the earlier ``outputs[]``) of typed items.

A ``model_output`` step holds ``content[]`` blocks; a ``text`` block carries ``annotations[]``
of type ``url_citation`` with ``url``, ``title`` and ``start_index``/``end_index`` counted in
UTF-8 bytes of that block's text. The earlier shape put ``text`` items straight into
``outputs[]``, their annotations naming the page as ``source``. A ``url_context_result`` step
lists the pages the model read (``result[].url``): retrieved, not cited.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .base import (
    AnswerFormat,
    AnswerFormatError,
    RawAnswer,
    RecordContext,
    Source,
    Span,
    always,
    dicts,
    http_url,
)
from .gemini import segment_bounds

#: Separator between two text blocks of one answer.
BLOCK_BREAK = "\n\n"
_STEP_KINDS = frozenset(
    {
        "model_output",
        "thought",
        "user_input",
        "google_search_call",
        "google_search_result",
        "url_context_call",
        "url_context_result",
        "function_call",
        "function_result",
        "code_execution_call",
        "code_execution_result",
        "text",
    }
)


def _steps(payload: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    steps = dicts(payload.get("steps"))
    return steps if steps else dicts(payload.get("outputs"))


def matches(payload: Mapping[str, Any]) -> bool:
    """``steps`` (or ``outputs``) of Interactions step types, one of them with text."""
    steps = _steps(payload)
    kinds = {step.get("type") for step in steps}
    return bool(steps) and kinds <= _STEP_KINDS and bool(kinds & {"model_output", "text"})


def _blocks(payload: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The answer's text blocks: those of the model_output steps, or the text items of the
    earlier ``outputs`` shape."""
    blocks: list[Mapping[str, Any]] = []
    for step in _steps(payload):
        if step.get("type") == "model_output":
            blocks.extend(b for b in dicts(step.get("content")) if b.get("type") == "text")
        elif step.get("type") == "text":
            blocks.append(step)
    return [block for block in blocks if isinstance(block.get("text"), str)]


def _annotation_spans(
    block: Mapping[str, Any], offset: int, number: int
) -> tuple[list[Span], list[str]]:
    text: str = block["text"]
    spans: list[Span] = []
    warnings: list[str] = []
    for annotation in dicts(block.get("annotations")):
        kind = annotation.get("type", "url_citation")
        if kind != "url_citation":
            continue
        raw = annotation.get("url") or annotation.get("source") or annotation.get("uri")
        url = http_url(raw)
        if url is None:
            warnings.append(f"a url_citation without an http(s) URL ({raw!r}) was left out")
            continue
        title = annotation.get("title") if isinstance(annotation.get("title"), str) else None
        bounds, problem = segment_bounds(
            text, annotation.get("start_index"), annotation.get("end_index"), None
        )
        if problem:
            warnings.append(f"text block {number}, citation of {url}: {problem}")
            continue
        if bounds is not None:
            spans.append(Span(offset + bounds[0], offset + bounds[1], Source(url, title)))
    return spans, warnings


def read(payload: Mapping[str, Any], context: RecordContext) -> RawAnswer:
    """Join the model's text blocks, keeping their ``url_citation`` annotations."""
    blocks = _blocks(payload)
    if not blocks:
        raise AnswerFormatError("no text in the interaction's model_output steps")
    texts: list[str] = []
    spans: list[Span] = []
    warnings: list[str] = []
    offset = 0
    for number, block in enumerate(blocks):
        if texts:
            offset += len(BLOCK_BREAK)
        found, problems = _annotation_spans(block, offset, number)
        spans.extend(found)
        warnings.extend(problems)
        texts.append(block["text"])
        offset += len(block["text"])
    retrieved = [
        Source(url)
        for step in _steps(payload)
        if step.get("type") == "url_context_result"
        for result in dicts(step.get("result"))
        if (url := http_url(result.get("url")))
    ]
    cited = {span.source for span in spans}
    return RawAnswer(
        BLOCK_BREAK.join(texts),
        spans=tuple(spans),
        retrieved=tuple(source for source in retrieved if source not in cited),
        warnings=tuple(warnings),
    )


GEMINI_INTERACTIONS = AnswerFormat(
    name="gemini-interactions",
    documented_at=(
        "https://ai.google.dev/gemini-api/docs/interactions/google-search (steps, "
        "url_citation annotations)",
        "python-genai google/genai/_gaos/types/interactions/urlcitation.py (start_index in bytes)",
    ),
    matches=matches,
    read=read,
    is_response=always,
)
