"""The generic shape: answer text with ``[n]`` markers and the list of sources they number.

``{"id": …, "question": …, "answer": "… [1].", "citations": ["https://…", …]}``. The
sources may be a list (numbered from 1, as in case files), a mapping marker -> URL, or
objects with a ``url``; they may be named ``citations``, ``sources``, ``urls`` or
``references``.
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
    as_list,
    describe,
    marker_of,
    numbered_sources,
    source_of,
    text_field,
)

SOURCE_KEYS = ("citations", "sources", "urls", "references")
TEXT_KEYS = ("answer", "text")


def matches(payload: Mapping[str, Any]) -> bool:
    """An answer string under ``answer`` or ``text``."""
    return text_field(payload, *TEXT_KEYS) is not None


def read(payload: Mapping[str, Any], context: RecordContext) -> RawAnswer:
    """Read the answer text and its numbered sources."""
    text = text_field(payload, *TEXT_KEYS)
    if text is None:
        raise AnswerFormatError("no answer text: expected a string under 'answer' or 'text'")
    key = next((key for key in SOURCE_KEYS if payload.get(key) is not None), None)
    raw = payload.get(key) if key else []
    warnings: list[str] = []
    if isinstance(raw, Mapping):
        numbered: dict[str, Source | None] = {}
        for marker, item in raw.items():
            source = source_of(item)
            key_marker = marker_of(marker)
            numbered[key_marker] = source
            if source is None:
                warnings.append(f"source [{key_marker}] has no http(s) URL ({describe(item)})")
    elif isinstance(raw, list):
        numbered, warnings = numbered_sources(raw)
    else:
        raise AnswerFormatError(
            f"'{key}' must be a list of URLs or a mapping of marker to URL, "
            f"got {type(raw).__name__}"
        )
    retrieved = tuple(
        source for source in map(source_of, as_list(payload.get("retrieved"))) if source is not None
    )
    return RawAnswer(text, numbered=numbered, retrieved=retrieved, warnings=tuple(warnings))


GENERIC = AnswerFormat(
    name="generic",
    documented_at=("docs/case-files.md (citations: a list numbered from 1, or marker -> URL)",),
    matches=matches,
    read=read,
)
