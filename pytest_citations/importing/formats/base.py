"""What every answer format reads a record into, and the small helpers the readers share.

A reader turns one provider's shape into a :class:`RawAnswer`: the answer text, and either
the sources its own ``[n]`` markers point at (``numbered``) or the character spans a provider
attached sources to (``spans``). Numbering, marker placement and claims are done once, for
all formats, in :mod:`pytest_citations.importing.answers`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from ...errors import CitationsError
from ...fetchers.urls import request_url

#: Metadata keys that hold a document's address, in the order they are trusted. LangChain's
#: web loaders write ``source``; LlamaIndex's readers write ``url``, ``URL`` or ``source``.
URL_KEYS = ("url", "URL", "source_url", "source", "link", "href", "uri")
_THINKING = re.compile(r"^\s*<think>.*?</think>\s*", re.DOTALL)


class AnswerFormatError(CitationsError):
    """A record that cannot be read as an answer of the format asked for (or of any)."""


@dataclass(frozen=True)
class Source:
    """A cited or retrieved page: its URL and, when the record gives one, its title."""

    url: str
    title: str | None = None


@dataclass(frozen=True)
class Document:
    """A cited document the record gives no URL for (an Anthropic document citation): named
    as the provider names it (its title, else its index), with the pages and the text the
    provider says it cited. It cannot be fetched."""

    name: str
    pages: str | None = None
    cited_text: str | None = None

    @property
    def described(self) -> str:
        """How a claim names it: ``Title``, ``Title, page 3`` or ``Title, pages 3-4``."""
        if not self.pages:
            return self.name
        return f"{self.name}, {'pages' if '-' in self.pages else 'page'} {self.pages}"


@dataclass(frozen=True)
class Span:
    """A source attached to ``text[start:end]`` of the answer (provider offsets).

    ``link`` is True for a span that is only the inline link the provider wrote for the
    citation (no text of its own was attributed)."""

    start: int
    end: int
    source: Source | Document
    link: bool = False


@dataclass(frozen=True)
class RawAnswer:
    """One record as its format reads it, before markers are placed and claims split."""

    text: str
    #: Marker -> source for answers that carry their own ``[n]`` markers; None for a numbered
    #: source the record gives without a usable URL (a file path, a document id).
    numbered: Mapping[str, Source | None] | None = None
    #: Offset-based citations (OpenAI annotations, Anthropic citations).
    spans: tuple[Span, ...] = ()
    #: Pages the answer had (search results, retrieved documents) beside those it cites.
    retrieved: tuple[Source, ...] = ()
    warnings: tuple[str, ...] = ()


@dataclass(frozen=True)
class RecordContext:
    """What a record holds beside the answer object that a reader may need."""

    #: The documents of the request, by ``document_index`` (Anthropic document citations).
    documents: tuple[Any, ...] = ()


def never(payload: Mapping[str, Any]) -> bool:
    """False for any answer object (a format whose objects are the application's own)."""
    return False


@dataclass(frozen=True)
class AnswerFormat:
    """One shape of answer record: how to recognise it and how to read it."""

    name: str
    #: The documentation or SDK type pages the reader follows.
    documented_at: tuple[str, ...]
    matches: Callable[[Mapping[str, Any]], bool]
    read: Callable[[Mapping[str, Any], RecordContext], RawAnswer]
    #: True for an answer object that is a provider's response, whose own ``id`` is new on
    #: every call; False for the application's own record, whose ``id`` may name the question.
    is_response: Callable[[Mapping[str, Any]], bool] = never


def always(payload: Mapping[str, Any]) -> bool:
    """True for any answer object (a format whose objects are all provider responses)."""
    return True


def as_mapping(value: Any) -> Mapping[str, Any] | None:
    """The value when it is a JSON object, else None."""
    return value if isinstance(value, Mapping) else None


def as_list(value: Any) -> list[Any]:
    """The value when it is a JSON array, else an empty list."""
    return list(value) if isinstance(value, list | tuple) else []


def dicts(value: Any) -> list[Mapping[str, Any]]:
    """The JSON objects of an array (other items are ignored)."""
    return [item for item in as_list(value) if isinstance(item, Mapping)]


def text_field(container: Mapping[str, Any], *keys: str) -> str | None:
    """The first of ``keys`` whose value is a non-blank string."""
    for key in keys:
        value = container.get(key)
        if isinstance(value, str) and value.strip():
            return value
    return None


def content_text(content: Any) -> str | None:
    """Text of a message ``content``: a string, or the text parts of a list of parts."""
    if isinstance(content, str):
        return content
    parts = [
        part["text"]
        for part in dicts(content)
        if part.get("type") in ("text", "input_text", "output_text")
        and isinstance(part.get("text"), str)
    ]
    return "\n\n".join(parts) if parts else None


def without_thinking(text: str) -> str:
    """The answer without a leading ``<think>…</think>`` block (reasoning models put their
    chain of thought there; it is not part of the answer and cites nothing)."""
    return _THINKING.sub("", text, count=1)


def http_url(value: Any) -> str | None:
    """The value, stripped, when it is an absolute http(s) URL without spaces or control
    characters inside (a case file holds it on one line) and with a real host: a name with
    a dot (``https://.../?utm_source=chatgpt.com`` and ``https://localhost/`` are
    placeholders, not pages an answer can cite) or an IP address; else None."""
    if not isinstance(value, str):
        return None
    url = value.strip()
    if not url.isprintable() or " " in url or request_url(url) is None:
        return None
    host = (urlsplit(url).hostname or "").rstrip(".")
    labels = host.split(".")
    if host.startswith("[") or ":" in host or (len(labels) > 1 and all(labels)):
        return url
    return None


def char_offset(text: str, byte_offset: int) -> int:
    """The character offset of a UTF-8 byte offset into ``text`` (Gemini counts bytes)."""
    return len(text.encode("utf-8")[:byte_offset].decode("utf-8", errors="ignore"))


def source_of(item: Any, *, keys: Sequence[str] = URL_KEYS) -> Source | None:
    """A source from a URL string or from an object with a URL under one of ``keys``."""
    url = http_url(item)
    if url:
        return Source(url)
    mapping = as_mapping(item)
    if mapping is None:
        return None
    for key in keys:
        url = http_url(mapping.get(key))
        if url:
            title = mapping.get("title")
            return Source(url, title.strip() if isinstance(title, str) and title.strip() else None)
    return None


def describe(item: Any) -> str:
    """A short, safe description of an unusable source for a warning."""
    mapping = as_mapping(item)
    if mapping is not None:
        for key in (*URL_KEYS, "file_path", "file_name", "title", "id"):
            value = mapping.get(key)
            if isinstance(value, str) and value.strip():
                return _short(value)
        return "a source without an address"
    return _short(str(item))


def _short(text: str, limit: int = 60) -> str:
    text = " ".join(text.split())
    return repr(text if len(text) <= limit else text[: limit - 1] + "…")


def marker_of(raw: Any) -> str:
    """A citation marker as the answer splitter reads it: ``1``, ``"1"``, ``"[1]"`` and
    ``"01"`` are one."""
    marker = str(raw).strip().strip("[]").strip()
    return str(int(marker)) if marker.isdigit() else marker


def numbered_sources(items: Sequence[Any]) -> tuple[dict[str, Source | None], list[str]]:
    """Markers 1..n for a list of sources, and a warning per source without a usable URL."""
    numbered: dict[str, Source | None] = {}
    warnings: list[str] = []
    for number, item in enumerate(items, start=1):
        source = source_of(item)
        numbered[str(number)] = source
        if source is None:
            warnings.append(f"source [{number}] has no http(s) URL ({describe(item)})")
    return numbered, warnings
