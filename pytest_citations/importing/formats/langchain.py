"""LangChain retrieval chain results: the answer and the documents it was given.

``create_retrieval_chain`` returns ``{"input", "context": [Document], "answer"}``; the older
``RetrievalQA`` with ``return_source_documents=True`` returns ``{"query", "result",
"source_documents": [Document]}``; ``RetrievalQAWithSourcesChain`` returns ``{"question",
"answer", "sources": "url, url"}``; agents return ``{"input", "output"}``. A ``Document``
serialises as ``{"page_content", "metadata": {"source": …}}`` (``model_dump``) or, through
``langchain_core.load.dumpd``, as ``{"lc": 1, "type": "constructor", "kwargs": {…}}``.

Documents are numbered from 1 in their order: a prompt that lists them numbered lets the
answer cite them as ``[n]``. An answer without markers is handled by the caller's policy
for unmarked answers.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from .base import (
    AnswerFormat,
    AnswerFormatError,
    RawAnswer,
    RecordContext,
    Source,
    as_mapping,
    describe,
    http_url,
    source_of,
    text_field,
)

TEXT_KEYS = ("answer", "result", "output")
DOCUMENT_KEYS = ("source_documents", "context")


def _document(item: Any) -> Mapping[str, Any] | None:
    """The ``page_content``/``metadata`` mapping of a serialised Document."""
    mapping = as_mapping(item)
    if mapping is None:
        return None
    if mapping.get("lc") == 1 and as_mapping(mapping.get("kwargs")) is not None:
        mapping = mapping["kwargs"]
    return mapping if "page_content" in mapping or "metadata" in mapping else None


def _documents(payload: Mapping[str, Any]) -> list[Mapping[str, Any]] | None:
    for key in DOCUMENT_KEYS:
        value = payload.get(key)
        if isinstance(value, list):
            documents = [_document(item) for item in value]
            if all(document is not None for document in documents):
                return [document for document in documents if document is not None]
    return None


def matches(payload: Mapping[str, Any]) -> bool:
    """Source documents, or a chain's ``result``/``output`` string, or ``sources`` text."""
    if _documents(payload):
        return True
    if text_field(payload, "result", "output") is not None:
        return True
    return text_field(payload, "answer") is not None and isinstance(payload.get("sources"), str)


def read(payload: Mapping[str, Any], context: RecordContext) -> RawAnswer:
    """Read the answer and number the documents' URLs (``metadata.source``/``url``) from 1."""
    text = text_field(payload, *TEXT_KEYS)
    if text is None:
        raise AnswerFormatError("no answer text: expected 'answer', 'result' or 'output'")
    documents = _documents(payload) or []
    warnings: list[str] = []
    numbered: dict[str, Source | None] = {}
    for number, document in enumerate(documents, start=1):
        metadata = as_mapping(document.get("metadata")) or {}
        source = source_of(metadata)
        numbered[str(number)] = source
        if source is None:
            warnings.append(f"document [{number}] has no http(s) URL ({describe(metadata)})")
    cited = payload.get("sources")
    if isinstance(cited, str) and cited.strip():
        # RetrievalQAWithSourcesChain names the sources it used: those are the citations,
        # and the other documents were only retrieved.
        urls = [url for url in map(http_url, re.split(r"[\s,]+", cited)) if url]
        if urls:
            retrieved = tuple(
                source for source in numbered.values() if source and source.url not in urls
            )
            numbered = {str(n): Source(url) for n, url in enumerate(urls, start=1)}
            return RawAnswer(text, numbered=numbered, retrieved=retrieved, warnings=tuple(warnings))
    return RawAnswer(text, numbered=numbered, warnings=tuple(warnings))


LANGCHAIN = AnswerFormat(
    name="langchain",
    documented_at=(
        "https://python.langchain.com/api_reference/langchain/chains/"
        "langchain.chains.retrieval.create_retrieval_chain.html (input, context, answer)",
        "https://python.langchain.com/api_reference/langchain/chains/"
        "langchain.chains.retrieval_qa.base.RetrievalQA.html (query, result, source_documents)",
        "https://python.langchain.com/api_reference/core/documents/"
        "langchain_core.documents.base.Document.html (page_content, metadata)",
    ),
    matches=matches,
    read=read,
)
