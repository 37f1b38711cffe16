"""Numbers and dates in claims, and whether each is traceable to the evidence (C7).

A deterministic check: a judge that calls "85%" supported by a page saying "87%" does not
pass. Figures are compared by value: ``1,200``, ``1 200`` and ``1200`` are one number,
``85%`` and ``85 percent`` one percentage, ``2024-03-01``, ``1 March 2024`` and
``March 1, 2024`` one date.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

MONTHS = {
    name: number
    for number, names in enumerate(
        (
            ("january", "jan"),
            ("february", "feb"),
            ("march", "mar"),
            ("april", "apr"),
            ("may",),
            ("june", "jun"),
            ("july", "jul"),
            ("august", "aug"),
            ("september", "sep", "sept"),
            ("october", "oct"),
            ("november", "nov"),
            ("december", "dec"),
        ),
        start=1,
    )
    for name in names
}
_MONTH = r"(?P<month>" + "|".join(sorted(MONTHS, key=len, reverse=True)) + r")\.?"
_DAY = r"(?P<day>[0-3]?\d)(?:st|nd|rd|th)?"
_YEAR = r"(?P<year>\d{4})"

_DATE_PATTERNS = [
    re.compile(r"\b(?P<year>\d{4})([-/])(?P<m>\d{1,2})\2(?P<d>\d{1,2})\b"),  # 2024-03-01
    re.compile(
        r"\b(?P<d>\d{1,2})[./](?P<m>\d{1,2})[./](?P<year>\d{4})\b"
    ),  # 01.03.2024 / 01/03/2024
    re.compile(rf"\b{_DAY}\s+(?:of\s+)?{_MONTH},?\s+{_YEAR}\b", re.I),  # 1 March 2024
    re.compile(rf"\b{_MONTH}\s+{_DAY},?\s+{_YEAR}\b", re.I),  # March 1, 2024
    re.compile(rf"\b{_MONTH},?\s+{_YEAR}\b", re.I),  # March 2024
]
_CURRENCY = r"(?:[$€£¥]|US\$|USD|EUR|GBP|CHF|JPY)"
_NUMBER = re.compile(
    rf"(?P<currency>{_CURRENCY})?\s?"
    r"(?<![\w.])(?P<value>\d{1,3}(?:[, \u00a0\u202f]\d{3})+(?:\.\d+)?|\d+(?:[.,]\d+)?)"
    r"(?P<percent>\s?(?:%|percent\b|per\s?cent\b))?",
    re.I,
)


@dataclass(frozen=True, order=True)
class Figure:
    """A number or date as written (``text``) and by value (``kind`` and ``value``)."""

    kind: str  # "number", "percent" or "date"
    value: str
    text: str

    @property
    def key(self) -> tuple[str, str]:
        """What two figures must share to be the same figure."""
        return (self.kind, self.value)


def _canonical_number(raw: str) -> str | None:
    text = raw.replace("\u00a0", " ").replace("\u202f", " ")
    if re.fullmatch(r"\d{1,3}(?:[, ]\d{3})+(?:\.\d+)?", text):
        text = text.replace(",", "").replace(" ", "")
    elif re.fullmatch(r"\d+,\d{1,2}", text):
        text = text.replace(",", ".")  # a decimal comma: "3,5"
    else:
        text = text.replace(",", "")
    try:
        value = Decimal(text)
    except InvalidOperation:
        return None
    normal = value.normalize()
    return format(normal, "f") if normal == normal.to_integral() else str(normal)


def _month(raw: str | None) -> int | None:
    return MONTHS.get(raw.lower().rstrip(".")) if raw else None


def _dates(text: str) -> tuple[list[Figure], str]:
    """Dates found, and the text with them blanked so their digits are not numbers too."""
    figures: list[Figure] = []
    chars = list(text)
    for pattern in _DATE_PATTERNS:
        for match in pattern.finditer("".join(chars)):
            groups = match.groupdict()
            month = int(groups["m"]) if groups.get("m") else _month(groups.get("month"))
            day = groups.get("d") or groups.get("day")
            year = int(groups["year"])
            if (
                pattern is _DATE_PATTERNS[1]
                and month is not None
                and month > 12 >= int(groups["d"])
            ):
                month, day = int(groups["d"]), str(month)  # 12/31/2024: month first, unambiguously
            if month is None or not 1 <= month <= 12:
                continue
            if day is not None and not 1 <= int(day) <= 31:
                continue
            value = f"{year:04d}-{month:02d}" + (f"-{int(day):02d}" if day else "")
            figures.append(Figure("date", value, match.group(0)))
            for index in range(match.start(), match.end()):
                chars[index] = " "
    return figures, "".join(chars)


def extract_figures(text: str) -> list[Figure]:
    """Every date, percentage, currency amount and number in ``text``, in order of kind."""
    figures, rest = _dates(text)
    for match in _NUMBER.finditer(rest):
        value = _canonical_number(match.group("value"))
        if value is None:
            continue
        kind = "percent" if match.group("percent") else "number"
        figures.append(Figure(kind, value, match.group(0).strip()))
    return figures


def missing_figures(claim: str, evidence: Iterable[str]) -> list[Figure]:
    """Figures of the claim that appear nowhere in the evidence texts (quote or passages)."""
    available: set[tuple[str, str]] = set()
    for text in evidence:
        for figure in extract_figures(text):
            available.add(figure.key)
            if figure.kind == "date":
                # A page that gives the full date also gives its year and month.
                available.add(("date", figure.value[:7]))
                available.add(("number", str(int(figure.value[:4]))))
    missing: list[Figure] = []
    for figure in extract_figures(claim):
        if figure.key not in available and figure not in missing:
            missing.append(figure)
    return missing


def has_figures(text: str) -> bool:
    """True when the text holds a number or a date."""
    return bool(extract_figures(text))
