"""Gemini answers: ``generateContent`` with grounding, and the Interactions API.

``generateContent`` (``gemini``): ``candidates[0].content.parts[].text`` is the answer;
``candidates[0].groundingMetadata`` holds ``groundingChunks[]`` (``web.uri``/``title``, or
``retrievedContext.uri``/``title``: the sources) and ``groundingSupports[]``, each a
``segment`` (``startIndex``/``endIndex`` in UTF-8 bytes of the part ``partIndex``, and the
segment's ``text``) attributed to the chunks of ``groundingChunkIndices``. A chunk no support
names was retrieved, not cited, and so is every page ``urlContextMetadata.urlMetadata[]``
says the model read (``retrievedUrl``). The Python SDK's ``model_dump()`` writes the same
fields in snake case; both are read.

Interactions API (``gemini-interactions``): ``steps[]`` (the earlier ``outputs[]``); the
``model_output`` steps hold ``content[]`` blocks of type ``text`` whose ``annotations[]`` of
type ``url_citation`` carry ``url``, ``title`` and ``start_index``/``end_index``, in UTF-8
bytes of that block's text. A ``url_context_result`` step lists the pages read.

Google Search grounding names its pages by ``vertexaisearch.cloud.google.com/grounding-api-
redirect/…`` links. The import keeps each as the citation the answer made; the fetcher
follows it when the page is recorded, and the reports show the page it led to (its final
URL) beside it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .base import (
    AnswerFormat,
    AnswerFormatError,
    RawAnswer,
    RecordContext,
    Source,
    Span,
    always,
    as_list,
    as_mapping,
    char_offset,
    dicts,
    http_url,
)


def field(container: Mapping[str, Any], camel: str, snake: str) -> Any:
    """A field under its REST (camel case) or SDK (snake case) name."""
    value = container.get(camel)
    return container.get(snake) if value is None else value


def matches(payload: Mapping[str, Any]) -> bool:
    """``candidates`` with a ``content`` of ``parts``."""
    return any(
        as_mapping(candidate.get("content")) is not None
        for candidate in dicts(payload.get("candidates"))
    )


def _chunk_source(chunk: Mapping[str, Any]) -> tuple[Source | None, str]:
    """The source of a grounding chunk, and what it is called when it has no usable URL."""
    for kind in ("web", "retrievedContext", "retrieved_context", "maps"):
        inner = as_mapping(chunk.get(kind))
        if inner is None:
            continue
        title = inner.get("title") if isinstance(inner.get("title"), str) else None
        url = http_url(inner.get("uri"))
        if url:
            return Source(url, title), ""
        return None, str(title or inner.get("uri") or kind)
    return None, "a chunk of an unknown kind"


def _parts(candidate: Mapping[str, Any]) -> list[tuple[int, str]]:
    """``(part index, text)`` of the answer's text parts (thoughts left out)."""
    content = as_mapping(candidate.get("content")) or {}
    return [
        (index, part["text"])
        for index, part in enumerate(dicts(content.get("parts")))
        if isinstance(part.get("text"), str) and not part.get("thought")
    ]


def segment_bounds(
    text: str, start: Any, end: Any, quoted: Any
) -> tuple[tuple[int, int] | None, str | None]:
    """Character bounds of a segment given in UTF-8 bytes of ``text``, and a warning when
    the bytes are out of range or do not hold the segment's own ``text``: then the segment's
    text, found in ``text``, gives the bounds (the provider's own words win over its
    arithmetic)."""
    size = len(text.encode("utf-8"))
    start = start if isinstance(start, int) else 0
    if isinstance(end, int) and 0 <= start <= end <= size:
        bounds = char_offset(text, start), char_offset(text, end)
        if not isinstance(quoted, str) or text[bounds[0] : bounds[1]].strip() == quoted.strip():
            return bounds, None
        problem = "do not hold the segment's text"
    else:
        problem = f"are out of range (the text has {size} bytes)"
    where = f"offsets {start}-{end}"
    if isinstance(quoted, str) and quoted.strip() and quoted in text:
        found = text.index(quoted)
        return (found, found + len(quoted)), f"{where} {problem}; its text was found instead"
    return None, f"{where} {problem}; the citation was not attributed"


def _supports(
    metadata: Mapping[str, Any],
    parts: Sequence[tuple[int, str]],
    sources: Sequence[Source | None],
) -> tuple[list[Span], set[int], list[str]]:
    """Spans of the grounding supports, the chunks they name, and warnings."""
    starts: dict[int, tuple[int, str]] = {}
    offset = 0
    for index, text in parts:
        starts[index] = (offset, text)
        offset += len(text)
    spans: list[Span] = []
    named: set[int] = set()
    warnings: list[str] = []
    first = parts[0][0] if parts else 0
    supports = dicts(field(metadata, "groundingSupports", "grounding_supports"))
    for number, support in enumerate(supports):
        segment = as_mapping(support.get("segment")) or {}
        part = field(segment, "partIndex", "part_index")
        base, text = starts.get(part if isinstance(part, int) else first, (0, ""))
        bounds, problem = segment_bounds(
            text,
            field(segment, "startIndex", "start_index"),
            field(segment, "endIndex", "end_index"),
            segment.get("text"),
        )
        if problem:
            warnings.append(f"grounding support {number}: {problem}")
        indices = field(support, "groundingChunkIndices", "grounding_chunk_indices")
        for index in as_list(indices):
            if not isinstance(index, int) or not 0 <= index < len(sources):
                warnings.append(f"grounding support {number} names chunk {index!r}, not listed")
                continue
            source = sources[index]
            if source is None:
                continue
            named.add(index)
            if bounds is not None:
                spans.append(Span(base + bounds[0], base + bounds[1], source))
    return spans, named, warnings


def read(payload: Mapping[str, Any], context: RecordContext) -> RawAnswer:
    """Read the first candidate's text and its grounding."""
    candidates = dicts(payload.get("candidates"))
    if not candidates:
        raise AnswerFormatError("no candidates in the response")
    candidate = candidates[0]
    parts = _parts(candidate)
    text = "".join(part for _, part in parts)
    if not text.strip():
        reason = field(candidate, "finishReason", "finish_reason")
        raise AnswerFormatError(f"the candidate has no text (finish reason {reason})")
    metadata = as_mapping(field(candidate, "groundingMetadata", "grounding_metadata")) or {}
    warnings: list[str] = []
    sources: list[Source | None] = []
    for number, chunk in enumerate(dicts(field(metadata, "groundingChunks", "grounding_chunks"))):
        source, name = _chunk_source(chunk)
        sources.append(source)
        if source is None:
            warnings.append(f"grounding chunk {number} has no http(s) URL ({name!r})")
    spans, named, more = _supports(metadata, parts, sources)
    warnings.extend(more)
    retrieved = [s for i, s in enumerate(sources) if s is not None and i not in named]
    retrieved.extend(_url_context(candidate))
    if len(candidates) > 1:
        warnings.append(f"the response has {len(candidates)} candidates; the first was imported")
    return RawAnswer(text, spans=tuple(spans), retrieved=tuple(retrieved), warnings=tuple(warnings))


def _url_context(candidate: Mapping[str, Any]) -> list[Source]:
    """The pages the URL context tool read."""
    context = as_mapping(field(candidate, "urlContextMetadata", "url_context_metadata")) or {}
    found = []
    for entry in dicts(field(context, "urlMetadata", "url_metadata")):
        url = http_url(field(entry, "retrievedUrl", "retrieved_url"))
        if url:
            found.append(Source(url))
    return found


GEMINI = AnswerFormat(
    name="gemini",
    documented_at=(
        "https://ai.google.dev/gemini-api/docs/google-search (groundingMetadata)",
        "https://ai.google.dev/api/generate-content#GroundingMetadata (groundingChunks, "
        "groundingSupports, segment startIndex/endIndex in bytes)",
        "https://ai.google.dev/gemini-api/docs/url-context (urlContextMetadata)",
    ),
    matches=matches,
    read=read,
    is_response=always,
)
