"""LlamaIndex query engine responses: ``response`` text and the ``source_nodes`` behind it.

``Response`` is a dataclass ``(response, source_nodes, metadata)``; each source node is a
``NodeWithScore`` that serialises (``model_dump``) as ``{"node": {"id_", "metadata", "text",
…}, "score"}``. Web readers put the page address in ``node.metadata`` (``url``, ``URL`` or
``source``). ``CitationQueryEngine`` numbers its sources ``Source 1``, ``Source 2`` … in
``source_nodes`` order and cites them in the text as ``[1]``, ``[2]``.
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
    as_mapping,
    describe,
    source_of,
    text_field,
)


def matches(payload: Mapping[str, Any]) -> bool:
    """A ``source_nodes`` list."""
    return isinstance(payload.get("source_nodes"), list)


def _metadata(item: Any) -> Mapping[str, Any]:
    node_with_score = as_mapping(item) or {}
    node = as_mapping(node_with_score.get("node")) or node_with_score
    return as_mapping(node.get("metadata")) or as_mapping(node.get("extra_info")) or {}


def read(payload: Mapping[str, Any], context: RecordContext) -> RawAnswer:
    """Read the response text and number the nodes' URLs from 1."""
    text = text_field(payload, "response")
    if text is None:
        raise AnswerFormatError("no answer text: expected a string under 'response'")
    numbered: dict[str, Source | None] = {}
    warnings: list[str] = []
    for number, item in enumerate(as_list(payload.get("source_nodes")), start=1):
        metadata = _metadata(item)
        source = source_of(metadata)
        numbered[str(number)] = source
        if source is None:
            warnings.append(f"source node [{number}] has no http(s) URL ({describe(metadata)})")
    return RawAnswer(text, numbered=numbered, warnings=tuple(warnings))


LLAMAINDEX = AnswerFormat(
    name="llamaindex",
    documented_at=(
        "llama_index llama-index-core/llama_index/core/base/response/schema.py (Response)",
        "https://docs.llamaindex.ai/en/stable/api_reference/schema/ (NodeWithScore, TextNode)",
        "https://docs.llamaindex.ai/en/stable/examples/query_engine/citation_query_engine/",
    ),
    matches=matches,
    read=read,
)
