"""Numbers and dates traceable to the evidence (004, C7): a claim's figure passes only when
the quote or the passages the judge saw state it, by value. Reading figures out of text is
:mod:`pytest_citations.gating.figures`; this module decides what the evidence states."""

from __future__ import annotations

import datetime
import re
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from decimal import Decimal

from .figures import (
    MONTHS,
    NUMBER_WORDS,
    WORD,
    Figure,
    date_distance,
    date_value,
    extract_figures,
    parse_date,
    words_outside_dates,
)

#: Days of the week, as news pages name the day of an event ("on Wednesday evening").
WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
#: How far from a stated date a named weekday is read as that week's day.
WEEKDAY_REACH = 6


@dataclass
class _Evidence:
    """Everything the evidence states, by value."""

    keys: set[tuple[str, str]] = field(default_factory=set)
    years: set[int] = field(default_factory=set)
    months: set[int] = field(default_factory=set)
    #: (kind, low, high) of numeric ranges; (low, high) of date ranges as ISO-like strings.
    spans: list[tuple[str, Decimal, Decimal]] = field(default_factory=list)
    date_spans: list[tuple[str, str]] = field(default_factory=list)
    written: list[Figure] = field(default_factory=list)
    #: Dates stated with their year, as (year, month, day or None).
    anchors: list[tuple[int, int, int | None]] = field(default_factory=list)
    #: Months named outside any date ("the first planned for June"), days of the week named.
    bare_months: set[int] = field(default_factory=set)
    weekdays: set[int] = field(default_factory=set)

    def add(self, text: str) -> None:
        for figure in extract_figures(text):
            self.written.append(figure)
            self.keys.add(figure.key)
            if figure.kind == "date":
                self._add_date(figure.value)
            elif figure.kind == "range":
                low, high = figure.value.split("/")
                if ":" in low:
                    kind, low = low.split(":")
                    self.spans.append((kind, Decimal(low), Decimal(high)))
                    self.keys.add((kind, low))
                    self.keys.add((kind, high))
                    if kind == "number":
                        self._add_year_span(Decimal(low), Decimal(high))
                else:
                    self.date_spans.append((low, high))
                    self._add_date(low)
                    self._add_date(high)
            elif figure.kind == "number" and re.fullmatch(r"1\d{3}|20\d{2}", figure.value):
                self.years.add(int(figure.value))
            elif figure.kind == "decade":
                start = int(figure.value[:4])
                self.keys.add(("number", str(start)))
        for word in WORD.findall(text.lower()):
            if word in NUMBER_WORDS:
                self.keys.add(("number", str(NUMBER_WORDS[word])))
            elif word in MONTHS and (len(word) > 3 or word == "may"):
                self.months.add(MONTHS[word])
            elif word in WEEKDAYS:
                self.weekdays.add(WEEKDAYS.index(word))
        self.bare_months.update(
            MONTHS[word]
            for word in words_outside_dates(text)
            if word in MONTHS and (len(word) > 3 or word == "may")
        )

    def _add_year_span(self, low: Decimal, high: Decimal) -> None:
        if low >= 1000 and high <= 2100 and low == low.to_integral():
            self.years.update(range(int(low), int(high) + 1))

    def _add_date(self, value: str) -> None:
        # A page that gives a date also gives its year, its month, and its day of the month.
        year, month, day = parse_date(value)
        self.months.add(month)
        if year is not None:
            self.anchors.append((year, month, day))
            self.years.add(year)
            self.keys.add(("number", str(year)))
            self.keys.add(("date", date_value(year, month, None)))
        if day is not None:
            self.keys.add(("date", date_value(None, month, day)))

    def holds(self, figure: Figure) -> bool:
        """Whether the evidence states ``figure`` (see the module docstring)."""
        if figure.key in self.keys:
            return True
        if figure.kind == "date":
            return self._holds_date(figure.value)
        if figure.kind in ("number", "percent"):
            value = Decimal(figure.value)
            return any(
                kind == figure.kind and low <= value <= high for kind, low, high in self.spans
            )
        if figure.kind == "decade":
            start = int(figure.value[:4])
            return any(start <= year < start + 10 for year in self.years)
        if figure.kind == "range":
            low, high = figure.value.split("/")
            if ":" in low:
                kind, low = low.split(":")
                return (kind, low) in self.keys and (kind, high) in self.keys
            return self._holds_date(low) and self._holds_date(high)
        return False

    def _holds_date(self, value: str) -> bool:
        if ("date", value) in self.keys:
            return True
        year, month, day = parse_date(value)
        if day is None:  # a month and year, stated apart ("in May", "2018" in the date line)
            return year is not None and (
                (month in self.months and year in self.years) or self._next(year, month, None)
            )
        if year is not None and self._on_weekday(year, month, day):
            return True
        if year is not None and year not in self.years and not self._next(year, month, day):
            return False
        if ("date", date_value(None, month, day)) in self.keys:
            return True  # "Friday June 28", and the year elsewhere
        for low, high in self.date_spans:
            low_year, low_month, low_day = parse_date(low)
            high_year, high_month, high_day = parse_date(high)
            if (
                year is not None
                and low_year is not None
                and not low_year <= year <= (high_year or low_year)
            ):
                continue
            if (low_month, low_day or 1) <= (month, day) <= (high_month, high_day or 31):
                return True
        return False

    def _next(self, year: int, month: int, day: int | None) -> bool:
        """Whether the month (and day) is named without a year and ``year`` is the year of
        its next occurrence after a full date the evidence states (a dated line): "the first
        planned for June" under "December 20, 2018" means June 2019."""
        if month not in self.bare_months and ("date", date_value(None, month, day)) not in (
            self.keys if day is not None else set()
        ):
            return False
        return any(
            anchor_year == year - 1 and (month, day or 0) < (anchor_month, anchor_day)
            for anchor_year, anchor_month, anchor_day in self.anchors
            if anchor_day is not None  # a dated line, not a month mentioned in passing
        )

    def _on_weekday(self, year: int, month: int, day: int) -> bool:
        """Whether the evidence names the date's day of the week and states a date at most
        :data:`WEEKDAY_REACH` days from it: "Wednesday evening" on a page dated March 2, 2017
        is March 1, 2017."""
        try:
            date = datetime.date(year, month, day)
        except ValueError:
            return False
        if date.weekday() not in self.weekdays:
            return False
        for anchor_year, anchor_month, anchor_day in self.anchors:
            if anchor_day is None:
                continue
            try:
                anchor = datetime.date(anchor_year, anchor_month, anchor_day)
            except ValueError:
                continue
            if abs((anchor - date).days) <= WEEKDAY_REACH:
                return True
        return False

    def nearest(self, figure: Figure, count: int = 2) -> tuple[str, ...]:
        """What the evidence wrote of the same kind, nearest in value first."""
        same = [f for f in self.written if f.kind == figure.kind]
        if figure.kind in ("number", "percent"):
            target = Decimal(figure.value)
            same.sort(key=lambda f: abs(Decimal(f.value) - target))
        elif figure.kind == "date":
            same.sort(key=lambda f: date_distance(f.value, figure.value))
        return tuple(dict.fromkeys(f.text for f in same))[:count]


def missing_figures(claim: str, evidence: Iterable[str]) -> list[Figure]:
    """Figures of the claim that appear nowhere in the evidence texts (quote or passages),
    each with what the evidence had instead in :attr:`Figure.found`."""
    available = _Evidence()
    for text in evidence:
        available.add(text)
    missing: list[Figure] = []
    for figure in extract_figures(claim):
        if not available.holds(figure) and figure not in missing:
            missing.append(replace(figure, found=available.nearest(figure)))
    return missing


def has_figures(text: str) -> bool:
    """True when the text holds a number or a date."""
    return bool(extract_figures(text))
