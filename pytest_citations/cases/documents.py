"""Cited documents without a URL in a case file's ``citations:``.

An answer's record may cite a document it gives no URL for (an Anthropic document citation
of a plain-text or PDF document). The import writes it as ``{document: NAME, pages: "3-4",
text: "…"}`` in place of a URL: the claims that cite it name it, and since nothing can fetch
it, the plugin reports it as not checked.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from . import fields
from .loader import line_of

if TYPE_CHECKING:
    from .parser import Parser


def described(name: str, pages: Any) -> str:
    """How a claim names a document: ``Title``, ``Title, page 3`` or ``Title, pages 3-4``."""
    if pages is None:
        return name
    return f"{name}, {'pages' if '-' in str(pages) else 'page'} {pages}"


def document_citation(parser: Parser, raw: dict[Any, Any], line: int, marker: str) -> str:
    """One cited document without a URL (an entry of ``citations:``, read by
    :meth:`~.parser.Parser.citations`), checked; how a claim names it."""
    owner = f"citation [{marker}]"
    parser.known_keys(raw, fields.DOCUMENT, line, f" in {owner}")
    name = parser.text(raw, "document", required=True, owner=owner, line=line)
    pages = raw.get("pages")
    if pages is not None and (isinstance(pages, bool) or not isinstance(pages, str | int)):
        raise parser.fail(line_of(raw, "pages", line), f"'pages' of {owner} must be text")
    parser.text(raw, "text", owner=owner, line=line)
    return described(str(name), pages)
