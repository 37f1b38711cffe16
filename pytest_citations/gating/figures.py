"""Numbers and dates in claims, and whether each is traceable to the evidence (C7).

A deterministic check: a judge that calls "85%" supported by a page saying "87%" does not
pass. Figures are compared by value: ``1,200``, ``1 200`` and ``1200`` are one number,
``85%`` and ``85 percent`` one percentage, ``2024-03-01``, ``2024.03.01``, ``1 March 2024``,
``March 1, 2024`` and ``15 Jul 19`` (a two-digit year) one date.

Real pages write figures loosely, so the evidence is read generously where that
cannot let a wrong figure through:

* ranges: a claim's number or date inside a range the evidence states (``12-18 April 2015``,
  ``March 6–7``, ``2018–19``) is traceable, and so is a claim's range equal to the evidence's;
* dates assembled from parts: a claim's ``June 28, 2019`` is traceable to "Friday June 28"
  when 2019 stands elsewhere in the evidence (a page's date line, say); a day and month must
  still match exactly (31 March is not 30 March);
* words glued by the crawl (``SoccerMay 1 2019``, ``30 JUN 2018Updated``), decades
  (``2000s``, ``2000's``: any year of the decade), and numbers written as words in the
  evidence (``three players`` for a claim's ``3``).

Each missing figure carries the evidence's figures of the same kind nearest to it, so that a
reason can say what was found instead (:meth:`Figure.describe`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
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
#: Number words that the evidence may use for a claim's digits ("three players").
NUMBER_WORDS = {
    word: value
    for value, words in enumerate(
        (
            "",  # "zero", "one", "first" and "second" (a unit of time) stand in too many
            "",  # sentences to count as evidence of a claim's 0 or 1
            "two",
            "three third",
            "four fourth",
            "five fifth",
            "six sixth",
            "seven seventh",
            "eight eighth",
            "nine ninth",
            "ten tenth",
            "eleven eleventh",
            "twelve twelfth dozen",
            "thirteen thirteenth",
            "fourteen fourteenth",
            "fifteen fifteenth",
            "sixteen sixteenth",
            "seventeen seventeenth",
            "eighteen eighteenth",
            "nineteen nineteenth",
            "twenty twentieth",
        )
    )
    for word in words.split()
    if words
} | {"thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80}
NUMBER_WORDS |= {"ninety": 90, "hundred": 100, "thousand": 1000}

# A month name starts a word, or is glued by a crawl to the end of a lower-case word
# ("SoccerMay"); it never continues into letters ("Mayor", "Marching").
_MONTH = (
    r"(?:(?<![^\W\d_])|(?<=[a-z])(?-i:(?=[A-Z])))"
    r"(?P<month>" + "|".join(sorted(MONTHS, key=len, reverse=True)) + r")\.?(?![^\W\d_])"
)
_MONTH2 = _MONTH.replace("(?P<month>", "(?P<month2>")
_DAY = r"(?<!\d)(?P<day>[0-3]?\d)(?:st|nd|rd|th)?(?![^\W_])"
_DAY2 = _DAY.replace("(?P<day>", "(?P<day2>")
# A year: four digits, or two after an apostrophe or after a month with a day ("15 Jul 19").
_YEAR = r"(?<!\d)(?P<year>\d{4}|['’]\d{2})(?!\d)"
_SHORT_YEAR = r"(?<!\d)(?P<year>\d{4}|['’]?\d{2})(?![\d:])"
_DASH = r"\s*(?:[-–—]|to|until|through|and)\s*"

_DATE_PATTERNS = [
    # 2024-03-01, 2024/03/01, 2003.06.11
    re.compile(r"(?<![\d.])(?P<year>\d{4})([-/.])(?P<m>\d{1,2})\2(?P<d>\d{1,2})(?![\d])"),
    # 01.03.2024, 01/03/2024
    re.compile(r"(?<![\d.])(?P<d>\d{1,2})[./](?P<m>\d{1,2})[./](?P<year>\d{4})(?!\d)"),
    # 12-18 April 2015, 12 to 18 April (a range of days)
    re.compile(rf"{_DAY}{_DASH}{_DAY2}\s+(?:of\s+)?{_MONTH}(?:,?\s+{_YEAR})?", re.I),
    # March 6–7, 2015, March 6 to 7 (a range of days)
    re.compile(rf"{_MONTH}\s*{_DAY}{_DASH}{_DAY2}(?:,?\s+{_YEAR})?", re.I),
    # 1 March 2024, 15 Jul 19, 1st of March
    re.compile(rf"{_DAY}\s+(?:of\s+)?{_MONTH},?(?:\s+{_SHORT_YEAR})?", re.I),
    # March 1, 2024, May 1 2019, Mar. 1
    re.compile(rf"{_MONTH}\s*{_DAY},?(?:\s*{_YEAR})?", re.I),
    # March 2024
    re.compile(rf"{_MONTH},?\s*{_YEAR}", re.I),
]
_RANGE_DAYS = {_DATE_PATTERNS[2], _DATE_PATTERNS[3]}
_CURRENCY = r"(?:[$€£¥]|US\$|USD|EUR|GBP|CHF|JPY)"
_VALUE = r"\d{1,3}(?:[, \u00a0\u202f]\d{3})+(?:\.\d+)?|\d+(?:[.,]\d+)?"
_NUMBER = re.compile(
    rf"(?P<currency>{_CURRENCY})?\s?"
    rf"(?<![\w.])(?P<value>{_VALUE})"
    r"(?P<percent>\s?(?:%|percent\b|per\s?cent\b))?",
    re.I,
)
#: 2018–19, 2018-2019, 1995 to 2000 (years); 12-18, 10–20% (numbers, low before high).
_RANGE = re.compile(
    r"(?<![\w.])(?P<low>\d+(?:\.\d+)?)(?P<pl>\s?%)?\s*(?:[-–—]|to)\s*(?P<high>\d+(?:\.\d+)?)"
    r"(?P<percent>\s?(?:%|percent\b|per\s?cent\b))?(?![\d.]\d)",
    re.I,
)
#: 08:00, 13:14:05, 7:30 pm: a time of day.
_TIME = re.compile(
    r"(?<![\d:])(?P<hour>[0-2]?\d):(?P<minute>[0-5]\d)(?::[0-5]\d)?(?![\d:])"
    r"(?:\s?(?P<half>[ap])\.?m\b\.?)?",
    re.I,
)
#: 2000s, 2000's, 1990’s: a decade.
_DECADE = re.compile(r"(?<![\w.])(?P<decade>\d{3}0)['’]?s\b")
WORD = re.compile(r"[^\W\d_]+")


@dataclass(frozen=True, order=True)
class Figure:
    """A number or date as written (``text``) and by value (``kind`` and ``value``).

    Kinds: ``number``, ``percent``, ``time`` (``13:05``), ``date`` (``2024-03-01``,
    ``2024-03``, or ``--03-01`` for a day without a year), ``range`` (``low/high`` of
    numbers, percentages or dates) and ``decade`` (``2000s``). ``found`` holds, for a
    missing figure, what the evidence gave instead (not part of the figure's identity).
    """

    kind: str
    value: str
    text: str
    found: tuple[str, ...] = field(default=(), compare=False)

    @property
    def key(self) -> tuple[str, str]:
        """What two figures must share to be the same figure."""
        return (self.kind, self.value)

    def describe(self) -> str:
        """The figure as written, and what the evidence had instead: ``'85%' (the evidence
        has '87%')``, or ``'85%' (no percentage in the evidence)``."""
        if self.found:
            return f"{self.text!r} (the evidence has " + ", ".join(map(repr, self.found)) + ")"
        return f"{self.text!r} (no {_KIND_NAMES.get(self.kind, self.kind)} in the evidence)"


_KIND_NAMES = {
    "number": "number",
    "percent": "percentage",
    "date": "date",
    "time": "time",
    "range": "range",
    "decade": "year of that decade",
}


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


def _year(raw: str | None) -> int | None:
    """A four-digit year, or a two-digit one read as 19xx from 50 on and 20xx below."""
    if not raw:
        return None
    digits = raw.lstrip("'’")
    year = int(digits)
    if len(digits) == 2:
        year += 1900 if year >= 50 else 2000
    return year


def date_value(year: int | None, month: int, day: int | None) -> str:
    stem = f"{year:04d}-{month:02d}" if year is not None else f"--{month:02d}"
    return stem + (f"-{day:02d}" if day is not None else "")


def _blank(chars: list[str], start: int, end: int) -> None:
    for index in range(start, end):
        chars[index] = " "


def _dates(text: str) -> tuple[list[Figure], str]:
    """Dates and date ranges found, and the text with them blanked so their digits are not
    numbers too."""
    figures: list[Figure] = []
    chars = list(text)
    for pattern in _DATE_PATTERNS:
        for match in pattern.finditer("".join(chars)):
            groups = match.groupdict()
            month = int(groups["m"]) if groups.get("m") else _month(groups.get("month"))
            day_text = groups.get("d") or groups.get("day")
            day = int(day_text) if day_text else None
            year = _year(groups.get("year"))
            numeric = pattern is _DATE_PATTERNS[1] and month is not None and day is not None
            if numeric and month is not None and day is not None and month > 12 >= day:
                month, day = day, month  # 12/31/2024: month first, unambiguously
            if month is None or not 1 <= month <= 12 or (year is None and day is None):
                continue
            if day is not None and not 1 <= day <= 31:
                continue
            written = match.group(0).strip().rstrip(",")
            if written.endswith(".") and not re.search(r"\b[A-Za-z]{3,4}\.$", written):
                written = written[:-1]  # "20 July." keeps its sentence's full stop out
            if pattern in _RANGE_DAYS:
                last = int(groups["day2"])
                if day is None or not day < last <= 31:
                    continue
                low, high = date_value(year, month, day), date_value(year, month, last)
                figures.append(Figure("range", f"{low}/{high}", written))
            else:
                figures.append(Figure("date", date_value(year, month, day), written))
            _blank(chars, match.start(), match.end())
    return figures, "".join(chars)


def words_outside_dates(text: str) -> list[str]:
    """The lower-case words of ``text`` that are not part of a date it writes: a month named
    on its own ("planned for June") is one of them, the month of "June 28, 2019" is not."""
    return WORD.findall(_dates(text)[1].lower())


def _ranges(text: str) -> tuple[list[Figure], str]:
    figures: list[Figure] = []
    chars = list(text)
    for match in _RANGE.finditer(text):
        low_text, high_text = match.group("low"), match.group("high")
        if "." not in high_text and len(low_text) == 4 and len(high_text) == 2:
            high_text = low_text[:2] + high_text  # 2018–19
        low, high = _canonical_number(low_text), _canonical_number(high_text)
        if low is None or high is None or not Decimal(low) < Decimal(high):
            continue  # "2-1" is a score, not a range
        kind = "percent" if match.group("percent") or match.group("pl") else "number"
        figures.append(Figure("range", f"{kind}:{low}/{high}", match.group(0).strip()))
        _blank(chars, match.start(), match.end())
    return figures, "".join(chars)


def extract_figures(text: str) -> list[Figure]:
    """Every date, range, decade, percentage, currency amount and number in ``text``."""
    figures, rest = _dates(text)
    chars = list(rest)
    for match in _TIME.finditer(rest):
        hour, minute = int(match.group("hour")), int(match.group("minute"))
        half = (match.group("half") or "").lower()
        if half and 1 <= hour <= 12:
            hour = hour % 12 + (12 if half == "p" else 0)
        if hour < 24:
            figures.append(Figure("time", f"{hour:02d}:{minute:02d}", match.group(0).strip()))
            _blank(chars, match.start(), match.end())
    rest = "".join(chars)
    decades = list(_DECADE.finditer(rest))
    for match in decades:
        figures.append(Figure("decade", match.group("decade") + "s", match.group(0)))
    chars = list(rest)
    for match in decades:
        _blank(chars, match.start(), match.end())
    ranges, rest = _ranges("".join(chars))
    figures.extend(ranges)
    for match in _NUMBER.finditer(rest):
        value = _canonical_number(match.group("value"))
        if value is None:
            continue
        kind = "percent" if match.group("percent") else "number"
        figures.append(Figure(kind, value, match.group(0).strip()))
    return figures


def parse_date(value: str) -> tuple[int | None, int, int | None]:
    """(year or None, month, day or None) of a date value: ``2024-03-01``, ``2024-03``,
    ``--03-01``."""
    year = None if value.startswith("--") else int(value[:4])
    parts = value[2:].split("-") if year is None else value[5:].split("-")
    return year, int(parts[0]), int(parts[1]) if len(parts) > 1 else None


def date_distance(a: str, b: str) -> int:
    def ordinal(value: str) -> int:
        year, month, day = parse_date(value)
        return (year or 0) * 400 + month * 32 + (day or 0)

    return abs(ordinal(a) - ordinal(b))
