"""What the package's outputs may show: secrets masked, redacted, kept out of logs; and
page-derived text made safe for a terminal, an HTML page, a CSV sheet, a JUnit file.

Secrets: tokens travel in URLs (Crawlbase's ``token`` query parameter, and the
``storage_url`` it returns), so every place that can print text (exceptions, log records,
cassettes, reports) goes through :class:`Redactor`; a :class:`Secret` shows a mask wherever it
is printed.

Page text: a cited page is hostile input. Its quotes, passages, final URL and the reasons
built from them reach CI logs and reports; an ANSI or OSC-8 sequence in them can recolour,
hide or relink what a reviewer reads, and a CSV cell that starts with ``=`` runs as a formula
in a spreadsheet. Every output of the project passes its text through :func:`strip_controls`
(or :func:`clean`, :func:`csv_cell`). No pytest.
"""

from __future__ import annotations

import dataclasses
import logging
import re
from collections.abc import Callable, Iterable, Mapping
from enum import Enum
from typing import Any, TypeVar

_TOKEN_PARAM = re.compile(r"(?i)([?&](?:token|api[_-]?key|key)=)[^&#\s\"'<>]+")
_BEARER = re.compile(r"(?i)(bearer\s+)[A-Za-z0-9._~+/=-]+")


class Secret:
    """A secret string. ``str``/``repr``/f-strings show a mask; :meth:`reveal` gives the value."""

    __slots__ = ("_value", "variable")

    def __init__(self, value: str, variable: str) -> None:
        self._value = value
        self.variable = variable

    def reveal(self) -> str:
        """The real value, for the one place that must send it."""
        return self._value

    def __repr__(self) -> str:
        return f"Secret({self.variable}=********)"

    __str__ = __repr__

    def __format__(self, spec: str) -> str:
        return repr(self)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Secret) and other._value == self._value

    def __hash__(self) -> int:
        return hash(self._value)

    def __reduce__(self) -> tuple[object, ...]:
        raise TypeError("a Secret cannot be pickled")


class Redactor:
    """Replaces known secret values, ``token=`` query values and bearer tokens in text."""

    def __init__(self, secrets: Iterable[Secret] = ()) -> None:
        self._values: dict[str, str] = {}
        for secret in secrets:
            self.add(secret)

    def add(self, secret: Secret) -> None:
        """Also hide this secret's literal value, shown as ``<VARIABLE>``."""
        value = secret.reveal()
        if value:
            self._values[value] = f"<{secret.variable}>"

    @property
    def placeholders(self) -> Mapping[str, str]:
        """Secret value → placeholder; for code that must rewrite structured data."""
        return dict(self._values)

    def __call__(self, text: str) -> str:
        # Longest first, so that a token that contains another is replaced whole.
        for value in sorted(self._values, key=len, reverse=True):
            if value in text:
                text = text.replace(value, self._values[value])
        text = _TOKEN_PARAM.sub(lambda m: m.group(1) + "<redacted>", text)
        return _BEARER.sub(lambda m: m.group(1) + "<redacted>", text)


class LogRedaction:
    """Redacts every log record created while installed, at any level, from any library.

    httpx logs each request URL (token included) at INFO and httpcore logs response headers
    (``storage_url`` included) at DEBUG, from child loggers that a logger filter would not
    reach. Wrapping the record factory catches them all before any handler (pytest's
    ``caplog`` included) sees the record.
    """

    def __init__(self, redactor: Callable[[str], str]) -> None:
        #: What a record's message becomes (a :class:`Redactor`, or any rewriting of text).
        self.redactor = redactor
        self._previous: Callable[..., logging.LogRecord] | None = None

    def _factory(self, *args: Any, **kwargs: Any) -> logging.LogRecord:
        assert self._previous is not None
        record = self._previous(*args, **kwargs)
        try:
            message = record.getMessage()
        except Exception:  # a broken format string must not break logging
            message = str(record.msg)
        redacted = self.redactor(message)
        if redacted != message:
            record.msg = redacted
            record.args = None
        return record

    def install(self) -> LogRedaction:
        """Start redacting; idempotent."""
        if self._previous is None:
            self._previous = logging.getLogRecordFactory()
            logging.setLogRecordFactory(self._factory)
        return self

    def uninstall(self) -> None:
        """Stop redacting, restoring the factory found at install time when it is still ours.

        Another redaction installed later (a second verifier, say) still calls ours: we are
        spliced out of its chain instead. A foreign factory that wraps ours keeps us as a
        link (still redacting) rather than being left to call a broken one.
        """
        previous = self._previous
        if previous is None:
            return
        current = logging.getLogRecordFactory()
        if current == self._factory:
            logging.setLogRecordFactory(previous)
            self._previous = None
            return
        link = getattr(current, "__self__", None)
        while isinstance(link, LogRedaction) and link._previous is not None:
            if link._previous == self._factory:
                link._previous = previous
                self._previous = None
                return
            link = getattr(link._previous, "__self__", None)

    def __enter__(self) -> LogRedaction:
        return self.install()

    def __exit__(self, *exc: object) -> None:
        self.uninstall()


# Page text.

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
