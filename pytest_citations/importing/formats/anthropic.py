"""Anthropic Messages whose ``content`` text blocks carry ``citations``.

A message's ``content`` is a list of blocks. With the web search tool it interleaves ``text``
blocks, ``server_tool_use`` blocks and ``web_search_tool_result`` blocks (whose ``content``
lists ``web_search_result`` items with ``url`` and ``title``: the retrieved pages). A cited
text block carries ``citations[]``, each a location:

- ``web_search_result_location``: ``url``, ``title``, ``cited_text``, ``encrypted_index``;
- ``search_result_location``: ``source`` (a URL or an identifier), ``title``, ``cited_text``;
- ``char_location``, ``page_location``, ``content_block_location``: a ``document_index`` into
  the documents of the request, with ``document_title``; no URL in the response. The URL is
  taken from the record's ``documents`` (URLs, or document blocks with a ``url`` source), from
  the request's document blocks, or from a ``document_title`` that is itself a URL. A
  document the record gives no URL for is cited as a :class:`~.base.Document`: by its title
  as the provider names it (else by its index), with its pages (``start_page_number`` to the
  exclusive ``end_page_number``) and the ``cited_text``.

The answer is the concatenation of the text blocks (they carry their own spacing). A run of
text blocks that cites nothing and is followed by a tool call ("I'll search for …") narrates
the search rather than answering, and is left out.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ...sanitize import strip_controls
from .base import (
    AnswerFormat,
    AnswerFormatError,
    Document,
    RawAnswer,
    RecordContext,
    Source,
    Span,
    always,
    as_mapping,
    dicts,
    http_url,
)

#: Blocks that neither answer nor interrupt the answer.
_SILENT_BLOCKS = frozenset({"thinking", "redacted_thinking"})
_SEGMENT_BREAK = "\n\n"


def matches(payload: Mapping[str, Any]) -> bool:
    """A message whose ``content`` is a list of typed blocks."""
    blocks = dicts(payload.get("content"))
    if not blocks or not all("type" in block for block in blocks):
        return False
    return payload.get("type") == "message" or any(block["type"] == "text" for block in blocks)


def document_urls(documents: Sequence[Any]) -> list[str | None]:
    """The URL of each document (by ``document_index``), None where none is known."""
    urls: list[str | None] = []
    for document in documents:
        block = as_mapping(document)
        if block is None:
            urls.append(http_url(document))
            continue
        source = as_mapping(block.get("source")) or {}
        urls.append(
            http_url(block.get("url"))
            or (http_url(source.get("url")) if source.get("type") == "url" else None)
            or http_url(block.get("title"))
        )
    return urls


_DOCUMENT_KINDS = ("char_location", "page_location", "content_block_location")


def _pages(citation: Mapping[str, Any]) -> str | None:
    """``"3"`` or ``"3-4"`` from a page location (its end page is exclusive)."""
    start, end = citation.get("start_page_number"), citation.get("end_page_number")
    if not isinstance(start, int):
        return None
    last = end - 1 if isinstance(end, int) and end > start else start
    return str(start) if last == start else f"{start}-{last}"


def _document(citation: Mapping[str, Any]) -> Document:
    title = citation.get("document_title")
    index = citation.get("document_index")
    name = title.strip() if isinstance(title, str) and title.strip() else f"document {index}"
    cited = citation.get("cited_text")
    # PDF text arrives with hard line breaks and control characters (U+0002 for a hyphen).
    text = " ".join(strip_controls(cited).split()) if isinstance(cited, str) else ""
    return Document(name, _pages(citation), text or None)


def _source(
    citation: Mapping[str, Any], documents: Sequence[str | None]
) -> Source | Document | None:
    kind = citation.get("type")
    title = citation.get("title") if isinstance(citation.get("title"), str) else None
    if kind == "web_search_result_location":
        url = http_url(citation.get("url"))
        return Source(url, title) if url else None
    if kind == "search_result_location":
        url = http_url(citation.get("source"))
        return Source(url, title) if url else None
    if kind in _DOCUMENT_KINDS:
        index = citation.get("document_index")
        document_title = citation.get("document_title")
        url = documents[index] if isinstance(index, int) and 0 <= index < len(documents) else None
        url = url or http_url(document_title)
        if url:
            return Source(url, document_title if isinstance(document_title, str) else None)
        return _document(citation)
    return None


def _unresolved(citation: Mapping[str, Any]) -> str:
    return f"a {citation.get('type', '?')} citation without an http(s) URL was left out"


def read(payload: Mapping[str, Any], context: RecordContext) -> RawAnswer:
    """Read the message's answer text, resolving document citations against the record's
    documents."""
    urls = document_urls(context.documents)
    segments: list[list[Mapping[str, Any]]] = [[]]
    kept: list[bool] = []
    retrieved: list[Source] = []
    for block in dicts(payload.get("content")):
        kind = block.get("type")
        if kind == "text":
            segments[-1].append(block)
            continue
        if kind in _SILENT_BLOCKS:
            continue
        if kind == "web_search_tool_result":
            for result in dicts(block.get("content")):
                url = http_url(result.get("url"))
                if url:
                    title = result.get("title")
                    retrieved.append(Source(url, title if isinstance(title, str) else None))
        # A tool block ends the run of text before it; that run stays only if it cites.
        if segments[-1]:
            kept.append(any(text_block.get("citations") for text_block in segments[-1]))
            segments.append([])
    kept.append(True)  # the text after the last tool call is the answer
    text = ""
    spans: list[Span] = []
    warnings: list[str] = []
    for segment, keep in zip(segments, kept, strict=True):
        if not keep or not segment:
            continue
        if text:
            text += _SEGMENT_BREAK
        for block in segment:
            piece = block.get("text")
            if not isinstance(piece, str):
                continue
            for citation in dicts(block.get("citations")):
                source = _source(citation, urls)
                if source is None:
                    warnings.append(_unresolved(citation))
                else:
                    spans.append(Span(len(text), len(text) + len(piece), source))
            text += piece
    if not text.strip():
        raise AnswerFormatError("the message has no text block")
    return RawAnswer(
        text,
        spans=tuple(spans),
        retrieved=tuple(retrieved),
        warnings=tuple(warnings),
    )


ANTHROPIC = AnswerFormat(
    name="anthropic",
    documented_at=(
        "https://platform.claude.com/docs/en/agents-and-tools/tool-use/web-search-tool",
        "https://docs.anthropic.com/en/docs/build-with-claude/citations",
        "https://docs.anthropic.com/en/docs/build-with-claude/search-results",
        "anthropic-sdk-python src/anthropic/types/text_block.py, text_citation.py, "
        "citations_web_search_result_location.py, citation_char_location.py, "
        "citations_search_result_location.py, web_search_result_block.py",
    ),
    matches=matches,
    read=read,
    is_response=always,
)
