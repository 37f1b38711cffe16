"""Make page-derived text safe to show: in a terminal, an HTML page, a CSV sheet, a JUnit file.

A cited page is hostile input. Its quotes, passages, final URL and the reasons built from
them reach CI logs and reports; an ANSI or OSC-8 sequence in them can recolour, hide or
relink what a reviewer reads, and a CSV cell that starts with ``=`` runs as a formula in a
spreadsheet. Every output of the project passes its text through this module. No pytest.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping
from enum import Enum
from typing import Any, TypeVar

T = TypeVar("T")

# ESC-introduced sequences first (so that their parameters go with them), then any single
# C0 control but tab and newline, DEL, and the C1 controls (0x80-0x9F; 0x9B is an 8-bit
# CSI and 0x9D an 8-bit OSC that some terminals obey).
_SEQUENCES = re.compile(
    r"""
    \x1b\[[0-?]*[ -/]*[@-~]                  # CSI: colours, cursor moves, erase line
    | \x1b\][^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?   # OSC: hyperlinks (OSC 8), titles
    | \x1b[PX^_][^\x1b\x9c]*(?:\x1b\\|\x9c)?   # DCS, SOS, PM, APC strings
    | \x9b[0-?]*[ -/]*[@-~]                  # 8-bit CSI
    | \x9d[^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?     # 8-bit OSC
    | \x1b[ -/]*[0-~]?                        # other escapes (charset, keypad, reset)
    | [\x00-\x08\x0b-\x1f\x7f-\x9f]          # every other control but \t and \n
    """,
    re.VERBOSE,
)
#: First characters that make a spreadsheet read a cell as a formula (OWASP's list).
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def strip_controls(text: str) -> str:
    """``text`` without terminal control sequences and control characters; newlines and
    tabs stay. Printable text, non-ASCII letters included, is untouched."""
    return _SEQUENCES.sub("", text)


def clean(value: T) -> T:
    """``value`` with every string inside it (mapping keys and values, list and tuple items,
    the fields of a dataclass) passed through :func:`strip_controls`; anything else (an
    enum member included) unchanged, and of the same type."""
    found: Any = value
    if isinstance(value, Enum):
        return value
    if isinstance(value, str):
        found = strip_controls(value)
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        changes = {f.name: clean(getattr(value, f.name)) for f in dataclasses.fields(value)}
        found = dataclasses.replace(value, **changes)
    elif isinstance(value, Mapping):
        found = {clean(key): clean(item) for key, item in value.items()}
    elif isinstance(value, tuple):
        found = tuple(clean(item) for item in value)
    elif isinstance(value, list):
        found = [clean(item) for item in value]
    result: T = found
    return result


def csv_cell(value: Any) -> Any:
    """A CSV cell that a spreadsheet shows as text: controls stripped, and a leading
    ``=``, ``+``, ``-``, ``@``, tab or carriage return escaped with a ``'`` (formula
    injection). Numbers stay numbers."""
    if not isinstance(value, str):
        return value
    raw = value
    text = strip_controls(value)
    # Checked on the raw value too: a cell that starts with a control character followed
    # by "=" must not become a formula once the control is stripped.
    if text.startswith(_FORMULA_START) or raw.startswith(_FORMULA_START):
        return "'" + text
    return text
