"""A case file's keys written in another case or spelling (``Question:``, ``Min-Precision:``):
named with the spelling that works, never read past in silence.

YAML keys are case-sensitive, so a case file written with ``Question:`` and ``Claims:`` has
none of a case file's keys. Such a file is told from another tool's YAML by a text scan of its
first lines (a parse could refuse another tool's tags), and conservatively: it needs a
``claims`` key and one of ``question``, ``answer`` or ``citations``, at the top level or in
the items of a ``cases`` list, once spelt the usual way.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from .loader import Mapping

#: How much of a file the scan reads: the top-level keys of a case file are in its first
#: lines, and a large YAML file of another tool is not read to its end.
SCAN_CHARS = 64 * 1024
#: A longer text before a colon is not a key of a case file.
_LONGEST_KEY = 40
_WITH_CLAIMS = frozenset({"question", "answer", "citations"})


def canonical(key: object) -> str | None:
    """How a key is spelt in a case file: lower case, words joined by ``_``
    (``Min-Precision`` → ``min_precision``); None for a key that is not text."""
    if not isinstance(key, str):
        return None
    return "_".join(key.strip().casefold().replace("-", " ").split())


def respellings(raw: dict[Any, Any], keys: Collection[str]) -> dict[Any, str]:
    """``{written: meant}`` for each key of ``raw`` that is one of ``keys`` in another case or
    spelling; not when ``meant`` is written too (that is a key the file has twice)."""
    found: dict[Any, str] = {}
    for key in raw:
        meant = canonical(key)
        if meant is not None and key not in keys and meant in keys and meant not in raw:
            found[key] = meant
    return found


def respelt(raw: dict[Any, Any], meant: dict[Any, str]) -> dict[Any, Any]:
    """``raw`` with each key of ``meant`` under the spelling it meant, keeping every line."""
    if not meant:
        return raw
    mapping = Mapping()
    mapping.line = getattr(raw, "line", 0)
    lines = getattr(raw, "key_lines", {})
    mapping.key_lines = {}
    for key, value in raw.items():
        name = meant.get(key, key)
        mapping[name] = value
        if key in lines:
            mapping.key_lines[name] = lines[key]
    return mapping


def looks_like_misspelt_case_file(text: str) -> bool:
    """A case file whose keys are in another case or spelling (see the module): a text scan
    of the first :data:`SCAN_CHARS` characters, for a file with no top-level case-file key
    spelt the usual way."""
    head = text[:SCAN_CHARS]
    if "claims" not in head.casefold():  # every such file has it: the lines need not be read
        return False
    top: set[str] = set()
    nested: set[str] = set()
    for line in head.splitlines():
        body = line.lstrip()
        listed = body.startswith("- ")
        item = body[1:].lstrip() if listed else body
        key, colon, _ = item.partition(":")
        if not colon or not key or len(key) > _LONGEST_KEY or key.startswith("#"):
            continue
        name = canonical(key.strip("'\" \t"))
        if name:
            (nested if listed or len(body) < len(line) else top).add(name)
    if "claims" in top and top & _WITH_CLAIMS:
        return True
    return "cases" in top and "claims" in nested and bool(nested & _WITH_CLAIMS)
