"""Secrets that cannot leak: a value type with a masked ``repr``, a text redactor, log redaction.

Tokens travel in URLs (Crawlbase's ``token`` query parameter, and the ``storage_url`` it
returns), so every place that can print text (exceptions, log records, cassettes, reports)
goes through :class:`Redactor`.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any

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
        clean = self.redactor(message)
        if clean != message:
            record.msg = clean
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
