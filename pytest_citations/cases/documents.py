"""Cited documents without a URL in a case file's ``citations:``.

An answer's record may cite a document it gives no URL for (an Anthropic document citation
of a plain-text or PDF document). The import writes it as ``{document: NAME, pages: "3-4",
text: "…"}`` in place of a URL: the claims that cite it name it, and since nothing can fetch
it, the plugin reports it as not checked.
"""

from __future__ import annotations

from typing import Any

from . import fields
from .loader import line_of
from .parser import Parser, _Skip


def described(name: str, pages: Any) -> str:
    """How a claim names a document: ``Title``, ``Title, page 3`` or ``Title, pages 3-4``."""
    if pages is None:
        return name
    return f"{name}, {'pages' if '-' in str(pages) else 'page'} {pages}"


def document_citations(parser: Parser, raw: Any, line: int) -> dict[str, str]:
    """The documents of ``citations:`` (a list numbered from 1, or marker -> entry): marker
    -> how a claim names it. URLs are the parser's (:meth:`Parser.citations`)."""
    entries: list[tuple[str, Any, int]]
    if isinstance(raw, list):
        entries = [(str(n), v, line_of(raw, n - 1, line)) for n, v in enumerate(raw, 1)]
    elif isinstance(raw, dict):
        entries = []
        for key, value in raw.items():
            where = line_of(raw, key, line)
            if isinstance(value, dict):
                try:
                    entries.append((parser.marker(key, where), value, where))
                except _Skip:
                    continue
    else:
        return {}
    found: dict[str, str] = {}
    for marker, value, where in entries:
        if isinstance(value, dict):
            try:
                found[marker] = document_citation(parser, value, where, marker)
            except _Skip:
                continue
    return found


def document_citation(parser: Parser, raw: dict[Any, Any], line: int, marker: str) -> str:
    """One cited document without a URL, checked; how a claim names it."""
    owner = f"citation [{marker}]"
    parser.known_keys(raw, fields.DOCUMENT, line, f" in {owner}")
    name = parser.text(raw, "document", required=True, owner=owner, line=line)
    pages = raw.get("pages")
    if pages is not None and (isinstance(pages, bool) or not isinstance(pages, str | int)):
        raise parser.fail(line_of(raw, "pages", line), f"'pages' of {owner} must be text")
    parser.text(raw, "text", owner=owner, line=line)
    return described(str(name), pages)
