"""Numbers and dates (004, C7 ``numbers_traceable``; issue 4): figures are extracted from a
claim and compared by value with the evidence, so ``85%`` is not ``87%`` while ``$1,200``,
``1 200`` and ``1200 USD`` are one amount and ``2024-03-01``, ``1 March 2024``,
``March 1, 2024`` and ``01/03/2024`` one date."""

from __future__ import annotations

import datetime
from collections.abc import Callable

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from pytest_citations.gating.figures import Figure, extract_figures
from pytest_citations.gating.numbers import has_figures, missing_figures


def keys(text: str) -> list[tuple[str, str]]:
    return [figure.key for figure in extract_figures(text)]


# -- extraction ----------------------------------------------------------------------------------

EXTRACTED = {
    "percent sign": ("Revenue rose 85% last year.", [("percent", "85")]),
    "percent word": ("Revenue rose 85 percent.", [("percent", "85")]),
    "per cent": ("Revenue rose 85 per cent.", [("percent", "85")]),
    "decimal percent": ("Inflation was 3.5 % in May.", [("percent", "3.5")]),
    "dollar with comma": ("It costs $1,200.", [("number", "1200")]),
    "space thousands": ("It costs 1 200 euros.", [("number", "1200")]),
    "nbsp thousands": ("It costs 1\u00a0200 euros.", [("number", "1200")]),
    "currency code after": ("It costs 1200 USD.", [("number", "1200")]),
    "currency code before": ("It costs EUR 1,200.50.", [("number", "1200.5")]),
    "millions": ("The fund holds 12,345,678 shares.", [("number", "12345678")]),
    "decimal comma": ("The rate is 3,5 here.", [("number", "3.5")]),
    "trailing zeros": ("It costs 3.50 now.", [("number", "3.5")]),
    "iso date": ("Signed on 2024-03-01.", [("date", "2024-03-01")]),
    "iso date with slashes": ("Signed on 2024/03/01.", [("date", "2024-03-01")]),
    "day month year": ("Signed on 1 March 2024.", [("date", "2024-03-01")]),
    "ordinal day": ("Signed on the 1st of March, 2024.", [("date", "2024-03-01")]),
    "month day year": ("Signed on March 1, 2024.", [("date", "2024-03-01")]),
    "abbreviated month": ("Signed on Mar. 1, 2024.", [("date", "2024-03-01")]),
    "day first numeric": ("Signed on 01/03/2024.", [("date", "2024-03-01")]),
    "dotted numeric": ("Signed on 01.03.2024.", [("date", "2024-03-01")]),
    "month first when unambiguous": ("Signed on 12/31/2024.", [("date", "2024-12-31")]),
    "month and year": ("Signed in March 2024.", [("date", "2024-03")]),
    "date digits are not numbers too": (
        "Between 1 March 2024 and 30 days later.",
        [("date", "2024-03-01"), ("number", "30")],
    ),
    "several numbers": (
        "Water boils at 100 °C (212 °F) at 101.325 kPa.",
        [("number", "100"), ("number", "212"), ("number", "101.325")],
    ),
    "no figure": ("Refunds go to the original payment method.", []),
    "digits inside words are not figures": ("The A4 sheet and v2 API.", []),
}


@pytest.mark.parametrize(("text", "expected"), EXTRACTED.values(), ids=EXTRACTED.keys())
def test_extract_figures(text: str, expected: list[tuple[str, str]]) -> None:
    assert keys(text) == expected


def test_a_figure_keeps_its_written_form() -> None:
    (money,) = extract_figures("It costs $1,200 in total.")
    assert money == Figure("number", "1200", "$1,200")
    (share,) = extract_figures("Share: 85 percent.")
    assert share.text == "85 percent"


def test_has_figures() -> None:
    assert has_figures("Returns within 30 days.")
    assert has_figures("Since March 2024.")
    assert not has_figures("Refunds go to the original payment method.")


# -- traceability --------------------------------------------------------------------------------


def test_85_percent_is_not_traceable_to_87_percent() -> None:
    missing = missing_figures("Revenue grew 85% in 2023.", ["Revenue grew 87% in 2023."])
    assert [figure.text for figure in missing] == ["85%"]


TRACEABLE = {
    "percent sign and word": ("Revenue grew 85%.", "Revenue grew 85 percent."),
    "dollar, space thousands": ("It costs $1,200.", "It costs 1 200 dollars."),
    "currency code, no separator": ("It costs $1,200.", "It costs 1200 USD."),
    "iso and day month year": ("Signed on 2024-03-01.", "Signed on 1 March 2024."),
    "month day year and numeric": ("Signed on March 1, 2024.", "Signed on 01/03/2024."),
    "year within a full date": ("Signed in 2024.", "Signed on 1 March 2024."),
    "month within a full date": ("Signed in March 2024.", "Signed on 2024-03-01."),
    "us and iso": ("Due on 12/31/2024.", "Due on 2024-12-31."),
    "decimal zeros": ("It weighs 3.50 kg.", "It weighs 3.5 kg."),
}


@pytest.mark.parametrize(("claim", "evidence"), TRACEABLE.values(), ids=TRACEABLE.keys())
def test_same_figure_in_another_form_is_traceable(claim: str, evidence: str) -> None:
    assert missing_figures(claim, [evidence]) == []
    assert missing_figures(claim, ["Unrelated text.", evidence]) == []


UNTRACEABLE = {
    "other percentage": ("Revenue grew 85%.", "Revenue grew 87%.", "85%"),
    "percent is not a plain number": ("Revenue grew 85%.", "Revenue grew by 85.", "85%"),
    "plain number is not a percent": ("Revenue grew by 85.", "Revenue grew 85%.", "85"),
    "other amount": ("It costs $1,200.", "It costs $1,300.", "$1,200"),
    "other day": ("Signed on 1 March 2024.", "Signed on 2 March 2024.", "1 March 2024"),
    "full date from month only": (
        "Signed on 1 March 2024.",
        "Signed in March 2024.",
        "1 March 2024",
    ),
    "other year": ("Founded in 1998.", "Founded in 1989.", "1998"),
    "no evidence at all": ("Returns within 30 days.", "", "30"),
}


@pytest.mark.parametrize(
    ("claim", "evidence", "missing"), UNTRACEABLE.values(), ids=UNTRACEABLE.keys()
)
def test_another_figure_is_not_traceable(claim: str, evidence: str, missing: str) -> None:
    assert [figure.text for figure in missing_figures(claim, [evidence])] == [missing]


def test_each_missing_figure_is_named_once_and_found_ones_are_not() -> None:
    claim = "Consumers get 30 days, businesses 14 days and 30 days for software since 2023."
    missing = missing_figures(claim, ["Consumers get 30 days.", "Businesses get 21 days."])
    assert [figure.text for figure in missing] == ["14", "2023"]


def test_a_claim_without_figures_has_nothing_missing() -> None:
    assert missing_figures("Refunds go to the original payment method.", []) == []


# -- properties ---------------------------------------------------------------------------------

SEPARATORS = [",", " ", "\u00a0", "\u202f"]


def grouped(number: int, separator: str) -> str:
    return f"{number:,}".replace(",", separator)


_WRITING = st.sampled_from(["", *SEPARATORS])


def written(number: int, separator: str) -> str:
    return grouped(number, separator) if separator else str(number)


@given(st.integers(0, 10**15), _WRITING, _WRITING)
def test_any_integer_is_traceable_to_itself_with_or_without_separators(
    number: int, claim_separator: str, evidence_separator: str
) -> None:
    claim = f"The fund holds {written(number, claim_separator)} shares."
    evidence = f"The fund holds {written(number, evidence_separator)} shares in total."

    assert keys(claim) == [("number", str(number))]
    assert missing_figures(claim, [evidence]) == []


@given(st.integers(0, 10**12), st.integers(0, 10**12), _WRITING, _WRITING)
def test_a_different_integer_is_never_traceable(
    number: int, other: int, claim_separator: str, evidence_separator: str
) -> None:
    assume(number != other)
    claim = f"The fund holds {written(number, claim_separator)} shares."
    evidence = f"The fund holds {written(other, evidence_separator)} shares."

    assert [f.key for f in missing_figures(claim, [evidence])] == [("number", str(number))]


@given(st.integers(1, 10**9), _WRITING)
def test_currency_amounts_are_traceable_across_notations(number: int, separator: str) -> None:
    claim = f"It costs ${written(number, separator)}."
    evidence = f"The price is {number} USD."

    assert missing_figures(claim, [evidence]) == []


_DATE_FORMATS: list[Callable[[datetime.date], str]] = [
    lambda d: d.isoformat(),
    lambda d: f"{d.day} {d:%B} {d.year}",
    lambda d: f"{d:%B} {d.day}, {d.year}",
    lambda d: f"{d.day:02d}/{d.month:02d}/{d.year}",
]


@given(
    st.dates(datetime.date(1900, 1, 1), datetime.date(2099, 12, 31)),
    st.sampled_from(_DATE_FORMATS),
    st.sampled_from(_DATE_FORMATS),
)
def test_any_date_is_traceable_across_common_formats(
    date: datetime.date,
    claim_format: Callable[[datetime.date], str],
    evidence_format: Callable[[datetime.date], str],
) -> None:
    claim = f"The policy changed on {claim_format(date)}."
    evidence = f"We changed the policy on {evidence_format(date)} for everyone."

    assert keys(claim) == [("date", date.isoformat())]
    assert missing_figures(claim, [evidence]) == []


# -- real text (issue 10): formats, ranges, parts, glue, decades ----------------------------

REAL_TEXT = {
    "dotted iso date": ("Founded on 2003-06-11.", "Founded 2003.06.11 in Bonn."),
    "two-digit year": ("Released on 15 July 2019.", "Released 15 Jul 19."),
    "day inside a day range": ("It opened on 15 April 2015.", "The fair ran 12-18 April 2015."),
    "day inside a range without year": ("It ended on March 7.", "It ran March 6–7."),
    "range equal to the source's": ("The 2018–19 season was long.", "In the 2018-2019 season."),
    "number inside a range": ("About 15% left.", "Between 10 and 20% left, 10–20% in all."),
    "month glued to a word": ("Signed on May 1, 2019.", "SoccerMay 1 2019 signed"),
    "year glued to a word": ("It aired in June 2018.", "Live08:00, 30 JUN 2018Updated13:14"),
    "date assembled from parts": (
        "The vote was on June 28, 2019.",
        "Published 2019-07-01. On Friday June 28 the vote was held.",
    ),
    "month and year apart": ("It aired in May 2018.", "Published 2018-03-23. It aired in May."),
    "day without year": ("On August 10, Smith was hired.", "Published Aug. 10, 2014."),
    "decade from a year": ("It grew in the 2000s.", "It grew in 2003."),
    "decade from a decade": ("It grew in the 2000s.", "It grew in the 2000's."),
    "number word": ("Only 3 players may enter.", "Only three players may enter."),
    "ordinal word": ("Their 3rd album came out.", "Their third album came out."),
    "time of day": ("Kick-off was at 19:30.", "Kick-off at 7:30 p.m. ET."),
    "weekday beside a dated line": (
        "On March 1, 2017 Powell was named.",
        "By T. Zimpfer on March 2, 2017. The list narrowed to three Wednesday evening.",
    ),
    "month after a dated line": (
        "The debates begin in June 2019.",
        "December 20, 2018 10:04AM PT. The first debate is planned for June.",
    ),
}


@pytest.mark.parametrize(("claim", "evidence"), REAL_TEXT.values(), ids=REAL_TEXT.keys())
def test_figures_written_loosely_on_real_pages_are_traceable(claim: str, evidence: str) -> None:
    assert missing_figures(claim, [evidence]) == []


STILL_STRICT = {
    "other percentage": ("Revenue grew 85%.", "Revenue grew 87%.", "85%"),
    "other day of the month": ("It opened on 31 March 2024.", "It opened 30 March 2024.", "31"),
    "day outside the range": ("It opened on 20 April 2015.", "It ran 12-18 April 2015.", "20"),
    "parts without the year": ("The vote was on June 28, 2019.", "On Friday June 28.", "28"),
    "parts with another day": ("The vote was on June 27, 2019.", "June 28. 2019", "27"),
    "month without the year": ("It aired in May 2018.", "It aired in May 2017.", "May"),
    "range not equal": ("The 2018–19 season.", "The 2017-2018 season.", "2018"),
    "decade without its years": ("It grew in the 1990s.", "It grew in 2003.", "1990s"),
    "one is not any one": ("It has 1 owner.", "One of the owners left.", "1"),
    "score is not a range": ("It won 3 times.", "It won 4-2.", "3"),
    "another weekday": ("Named on March 1, 2017.", "March 2, 2017. Named on Tuesday.", "March 1"),
    "weekday far from the dated line": (
        "Named on March 1, 2017.",
        "April 20, 2017. Named on a Wednesday.",
        "March 1",
    ),
    "month two years after the dated line": (
        "The debates begin in June 2020.",
        "December 20, 2018. The first debate is planned for June.",
        "June 2020",
    ),
    "month beside a month in passing": (
        "It followed in October 2018.",
        "In December 2017 it began. A second followed in October.",
        "October 2018",
    ),
}


@pytest.mark.parametrize(
    ("claim", "evidence", "needle"), STILL_STRICT.values(), ids=STILL_STRICT.keys()
)
def test_a_real_mismatch_still_fails(claim: str, evidence: str, needle: str) -> None:
    missing = missing_figures(claim, [evidence])
    assert len(missing) == 1
    assert needle in missing[0].text


EXTRACTED_REAL = {
    "dotted iso": ("2003.06.11", [("date", "2003-06-11")]),
    "two-digit year": ("15 Jul 19", [("date", "2019-07-15")]),
    "old two-digit year": ("3 May '98", [("date", "1998-05-03")]),
    "day range": ("12-18 April 2015", [("range", "2015-04-12/2015-04-18")]),
    "day range, month first": ("March 6–7", [("range", "--03-06/--03-07")]),
    "glued month": ("SoccerMay 1 2019", [("date", "2019-05-01")]),
    "month is not a word's start": ("Mayor Marchetti said 5.", [("number", "5")]),
    "day and month": ("Friday June 28", [("date", "--06-28")]),
    "decade": ("the 2000's and 1990s", [("decade", "2000s"), ("decade", "1990s")]),
    "season": ("the 2018–19 season", [("range", "number:2018/2019")]),
    "times are not numbers": ("at 08:00 and 7:30 pm", [("time", "08:00"), ("time", "19:30")]),
}


@pytest.mark.parametrize(("text", "expected"), EXTRACTED_REAL.values(), ids=EXTRACTED_REAL.keys())
def test_extract_figures_from_real_text(text: str, expected: list[tuple[str, str]]) -> None:
    assert keys(text) == expected


def test_a_missing_figure_says_what_the_evidence_has_instead() -> None:
    (missing,) = missing_figures(
        "Revenue grew 85% in 2023.", ["Revenue grew 87% in 2023, 60% in 2022."]
    )
    assert missing.found == ("87%", "60%")
    assert missing.describe() == "'85%' (the evidence has '87%', '60%')"
    (date,) = missing_figures("Opened on 31 March 2024.", ["Opened on 30 March 2024."])
    assert date.describe() == "'31 March 2024' (the evidence has '30 March 2024')"
    (alone,) = missing_figures("It has 30 rooms.", ["It has many rooms."])
    assert alone.describe() == "'30' (no number in the evidence)"
    # What was found is not part of a figure's identity.
    assert missing == Figure("percent", "85", "85%")
