"""Claims from answers (004, C1/C2; issue 4): an answer is split at sentence boundaries, each
sentence keeps its ``[n]`` markers as citations and loses them from its text; abbreviations,
initials, decimals and numbers with units never split a sentence; a sentence without a marker
is an ``uncited`` claim that every report shows."""

from __future__ import annotations

from xml.etree import ElementTree

import pytest
from hypothesis import given
from hypothesis import strategies as st
from plugin_helpers import (
    BOILING_URL,
    OLD_REPORT_URL,
    Citations,
    claims_by_nodeid,
    load_report,
)

from pytest_citations.cases import claims as answers
from pytest_citations.cases.claims import ExtractedClaim, extract_claims, split_sentences

# -- unit tests: tricky inputs -----------------------------------------------------------------

CASES = {
    "e.g. mid-sentence": (
        "Use strong flour, e.g. bread flour [1]. Then knead it [2].",
        [("Use strong flour, e.g. bread flour.", ("1",)), ("Then knead it.", ("2",))],
    ),
    "i.e. before a capital": (
        "Only one court decides, i.e. The Supreme Court [1]. Appeals end there [2].",
        [
            ("Only one court decides, i.e. The Supreme Court.", ("1",)),
            ("Appeals end there.", ("2",)),
        ],
    ),
    "title before a name": (
        "Dr. Smith led the trial [1]. Mrs. Jones funded it [2].",
        [("Dr. Smith led the trial.", ("1",)), ("Mrs. Jones funded it.", ("2",))],
    ),
    "U.S. before a capital": (
        "The U.S. Senate passed the bill [3]. It became law in May [4].",
        [("The U.S. Senate passed the bill.", ("3",)), ("It became law in May.", ("4",))],
    ),
    "initials": (
        "J. R. R. Tolkien wrote the book [1]. It sold well [2].",
        [("J. R. R. Tolkien wrote the book.", ("1",)), ("It sold well.", ("2",))],
    ),
    "decimal": (
        "The rate is 3.5 percent [1]. It was 2.75 before [2].",
        [("The rate is 3.5 percent.", ("1",)), ("It was 2.75 before.", ("2",))],
    ),
    "number with a unit": (
        "Add 5 kg. of flour to the dough [1]. Bake it for 40 min. at most [2].",
        [("Add 5 kg. of flour to the dough.", ("1",)), ("Bake it for 40 min. at most.", ("2",))],
    ),
    "figure and page numbers": (
        "See Fig. 3 on p. 12 for the curve [1]. The No. 5 line is faster [2].",
        [
            ("See Fig. 3 on p. 12 for the curve.", ("1",)),
            ("The No. 5 line is faster.", ("2",)),
        ],
    ),
    "adjacent markers": (
        "Water boils at 100 °C [1][3]. It freezes at 0 °C [2].",
        [("Water boils at 100 °C.", ("1", "3")), ("It freezes at 0 °C.", ("2",))],
    ),
    "comma markers": (
        "Water boils at 100 °C [1, 3]. It freezes at 0 °C [2,4].",
        [("Water boils at 100 °C.", ("1", "3")), ("It freezes at 0 °C.", ("2", "4"))],
    ),
    "markers after the period": (
        "Water boils at 100 °C.[1][3] It freezes at 0 °C. [2] Ice floats.",
        [
            ("Water boils at 100 °C.", ("1", "3")),
            ("It freezes at 0 °C.", ("2",)),
            ("Ice floats.", ()),
        ],
    ),
    "marker inside the sentence": (
        "Water boils at 100 °C [1] at sea level [2].",
        [("Water boils at 100 °C at sea level.", ("1", "2"))],
    ),
    "repeated marker kept once": (
        "Water boils [2] at 100 °C [2][1].",
        [("Water boils at 100 °C.", ("2", "1"))],
    ),
    "question and exclamation": (
        "Can it be returned? Yes, within 30 days [1]! Refunds are quick [2].",
        [
            ("Can it be returned?", ()),
            ("Yes, within 30 days!", ("1",)),
            ("Refunds are quick.", ("2",)),
        ],
    ),
    "list items": (
        "- Consumers get 30 days [1]\n- Businesses get 14 days [1][2]\n1. Keys count as opened [3]",
        [
            ("Consumers get 30 days", ("1",)),
            ("Businesses get 14 days", ("1", "2")),
            ("Keys count as opened", ("3",)),
        ],
    ),
    "paragraphs": (
        "Refunds go to the card [2].\n\nExchanges are free [1]",
        [("Refunds go to the card.", ("2",)), ("Exchanges are free", ("1",))],
    ),
    "currency with decimals": (
        "It costs $1,200.50 in total [1]. Shipping is free [2].",
        [("It costs $1,200.50 in total.", ("1",)), ("Shipping is free.", ("2",))],
    ),
    "sentence ending in a number": (
        "The warranty lasts for 2. That is short [1].",
        [("The warranty lasts for 2.", ()), ("That is short.", ("1",))],
    ),
}


@pytest.mark.parametrize(("answer", "expected"), CASES.values(), ids=CASES.keys())
def test_extract_claims(answer: str, expected: list[tuple[str, tuple[str, ...]]]) -> None:
    assert extract_claims(answer) == [ExtractedClaim(text, markers) for text, markers in expected]


# Words that are also abbreviations ("no", "in", "min", "kg") end a sentence when a capital
# follows: otherwise an uncited sentence merges into the next one and inherits its citations
# (C2 records an uncited claim as unsupported; it must not hide behind its neighbour's [n]).
ORDINARY_ENDINGS = {
    "no": "The answer is no. Refunds take 5 days [1].",
    "in": "Only bring what you can carry in. Lockers are free [1].",
    "sat": "The committee sat. It voted twice [1].",
    "kg": "The parcel weighs 2 kg. Shipping is free [1].",
    "min": "Delivery takes 30 min. Refunds take 5 days [1].",
    "art": "The museum shows modern art. Tickets cost 12 euros [1].",
    "max": "Two bags per person at max. Sizes vary [1].",
}


@pytest.mark.parametrize("answer", ORDINARY_ENDINGS.values(), ids=ORDINARY_ENDINGS.keys())
def test_a_word_that_doubles_as_an_abbreviation_still_ends_a_sentence(answer: str) -> None:
    first, second = extract_claims(answer)

    assert first.markers == ()
    assert second.markers == ("1",)
    assert "[" not in first.text + second.text


def test_ranges_expand_and_unknown_shapes_are_left_alone() -> None:
    (claim,) = extract_claims("Three sources agree [2-4].")
    assert claim.markers == ("2", "3", "4")
    (claim,) = extract_claims("Open 9-5 on weekdays [1].")
    assert claim.text == "Open 9-5 on weekdays."
    assert claim.markers == ("1",)


def test_marker_only_sentences_and_blank_answers_give_no_claim() -> None:
    assert extract_claims("[1][2]") == []
    assert extract_claims("   \n\n  ") == []
    assert split_sentences("One. Two.") == ["One.", "Two."]


def test_split_sentences_keeps_markers_with_their_sentence() -> None:
    assert split_sentences("Water boils at 100 °C [1]. Ice floats.[2][3] Snow is white.") == [
        "Water boils at 100 °C [1].",
        "Ice floats.[2][3]",
        "Snow is white.",
    ]


# -- property tests ----------------------------------------------------------------------------

# Abbreviations that, by design, never end a sentence even before a capital ("Dr. Smith",
# "e.g. Apples", "Jh. Aa"): a generated sentence must not end in one of them. Taken from the
# splitter's own lists, so that a new abbreviation cannot make the property fail by chance.
_NEVER_ENDING = frozenset(
    word.replace(".", "")
    for word in answers.ABBREVIATIONS - answers._BEFORE_NUMBERS - answers._WORD_LIKE
)
_WORD = st.from_regex(r"[a-z]{2,9}", fullmatch=True)
_INSIDE = st.one_of(
    _WORD,
    _WORD,
    _WORD,
    st.sampled_from(["3.5", "0.25", "1,200", "$4.99", "12.5%", "2024"]),
    st.sampled_from(["e.g. bread", "i.e. twice", "Dr. Smith", "the U.S. market"]),
    st.sampled_from(["5 kg. of", "30 min. at", "No. 5", "Fig. 3"]),
)
_LAST = st.one_of(
    _WORD.filter(lambda word: word not in _NEVER_ENDING),
    st.sampled_from(["3.5", "90 °C", "5 kg", "no", "in", "sat", "min", "max", "art", "co"]),
)
_MARKER_GROUP = st.lists(st.integers(1, 9), min_size=1, max_size=3)


@st.composite
def _sentence(draw: st.DrawFn) -> tuple[str, str, tuple[str, ...]]:
    """(written sentence, expected claim text, expected markers)."""
    first = draw(_WORD).capitalize()
    words = [first, *draw(st.lists(_INSIDE, max_size=5)), draw(_LAST)]
    body = " ".join(words)
    end = draw(st.sampled_from([".", ".", "!", "?"]))
    groups = draw(st.lists(_MARKER_GROUP, max_size=3))
    style = draw(st.sampled_from(["adjacent", "comma", "spaced"]))
    if style == "adjacent":
        written = "".join(f"[{n}]" for group in groups for n in group)
    elif style == "comma":
        written = "".join("[" + ", ".join(map(str, group)) + "]" for group in groups)
    else:
        written = " ".join("[" + ",".join(map(str, group)) + "]" for group in groups)
    before = draw(st.booleans())
    if not written:
        sentence = body + end
    elif before:
        sentence = f"{body} {written}{end}"
    else:
        sentence = f"{body}{end}{written}"
    markers = tuple(dict.fromkeys(str(n) for group in groups for n in group))
    return sentence, body + end, markers


@given(st.lists(_sentence(), min_size=1, max_size=6))
def test_sentences_and_markers_round_trip(
    sentences: list[tuple[str, str, tuple[str, ...]]],
) -> None:
    answer = " ".join(written for written, _, _ in sentences)

    claims = extract_claims(answer)

    assert [(c.text, c.markers) for c in claims] == [(text, m) for _, text, m in sentences]
    for claim in claims:
        assert "[" not in claim.text
        assert "]" not in claim.text


@given(
    st.integers(0, 10_000),
    st.integers(0, 999).map(lambda n: f"{n:0{len(str(n))}d}"),
    st.lists(_WORD, min_size=1, max_size=4),
)
def test_decimals_never_split(whole: int, fraction: str, words: list[str]) -> None:
    number = f"{whole}.{fraction}"
    answer = f"It measured {number} {' '.join(words)} [1]. Next one [2]."

    claims = extract_claims(answer)

    assert len(claims) == 2
    assert number in claims[0].text
    assert claims[0].markers == ("1",)


# -- answer-only case files, end to end ----------------------------------------------------------

ANSWER_ONLY = f"""\
id: boiling-answer
question: At what temperature does water boil?
answer: >-
  Water boils at 100 °C at sea level [1]. On high mountains, e.g. at 3,000 m. of
  altitude, water boils at about 90 °C [1, 2]. Salt changes the boiling point only slightly.
citations:
  1: {BOILING_URL}
  2: {OLD_REPORT_URL}
"""
CLAIM_1 = "Water boils at 100 °C at sea level."
CLAIM_2 = "On high mountains, e.g. at 3,000 m. of altitude, water boils at about 90 °C."
CLAIM_3 = "Salt changes the boiling point only slightly."


def test_collect_only_shows_the_derived_claims(citations: Citations) -> None:
    citations.write("cases/answer.yaml", ANSWER_ONLY)
    with citations.web() as web:
        result = citations.run("--collect-only", "cases/", gate="default")

    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines(
        [
            "*<CaseNode boiling-answer>",
            f"*<ClaimItem claim-1 '{CLAIM_1}' [[]1[]]>",
            f"*<ClaimItem claim-2 '{CLAIM_2}' [[]1[]][[]2[]]>",
            f"*<ClaimItem claim-3 '{CLAIM_3}' uncited>",
            "*<PrecisionItem precision>",
        ]
    )
    assert web.requests == 0


def test_list_answer_gives_one_item_per_line(citations: Citations) -> None:
    citations.write(
        "cases/list.yaml",
        f"""\
        id: list
        answer: |
          - Water boils at 100 °C at sea level [1]
          - On mountains it boils at 90 °C [1]
          - Salt barely changes it
        citations: [{BOILING_URL}]
        """,
    )

    result = citations.run("--collect-only", "-q", "cases/", gate="default")

    result.stdout.fnmatch_lines(
        [
            "cases/list.yaml::list::claim-1",
            "cases/list.yaml::list::claim-2",
            "cases/list.yaml::list::claim-3",
            "cases/list.yaml::list::precision",
            "4 tests collected*",
        ]
    )


def test_answer_only_case_runs_one_item_per_claim_and_reports_the_uncited_one(
    citations: Citations,
) -> None:
    citations.write("cases/answer.yaml", ANSWER_ONLY)
    report = citations.path / "report.json"

    result, web = citations.record("-v", "cases/", "--citations-report", report, gate="default")

    assert web.requests > 0
    result.assert_outcomes(passed=3, failed=1)
    result.stdout.fnmatch_lines(
        [
            "*::boiling-answer::claim-1 PASSED [[]supported[]]*",
            "*::boiling-answer::claim-2 PASSED [[]supported[]] unreachable:http_404*",
            "*::boiling-answer::claim-3 FAILED*",
        ]
    )
    out = result.stdout.str()
    assert "claim fails uncited_allowed: the claim cites nothing and is not marked general" in out
    result.stdout.fnmatch_lines(
        [
            "case * claims  supported  partial * uncited  misattributed *",
            "cases/answer.yaml::boiling-answer  *3  *2  *0  *0  *0  *0  *1  *0 *",
            "claims to look at:",
            "  cases/answer.yaml::boiling-answer::claim-3: uncited",
        ]
    )
    claims = claims_by_nodeid(load_report(report))
    third = claims["cases/answer.yaml::boiling-answer::claim-3"]
    assert third["claim"] == CLAIM_3
    assert third["label"] == "uncited"
    assert third["markers"] == []
    assert third["citations"] == []
    assert third["derived"] is True
    second = claims["cases/answer.yaml::boiling-answer::claim-2"]
    assert second["claim"] == CLAIM_2
    assert second["markers"] == ["1", "2"]
    assert [c["url"] for c in second["citations"]] == [BOILING_URL, OLD_REPORT_URL]

    # The same run replays offline from the cassette it recorded; junit XML carries the label.
    xml = citations.path / "junit.xml"
    replay = citations.run("cases/", f"--junitxml={xml}", gate="default")
    replay.assert_outcomes(passed=3, failed=1)
    root = ElementTree.parse(xml).getroot()
    (testcase,) = [case for case in root.iter("testcase") if case.get("name") == "claim-3"]
    labels = [
        prop.get("value") for prop in testcase.iter("property") if prop.get("name") == "label"
    ]
    assert labels == ["uncited"]


def test_answer_sentence_citing_an_unknown_marker_is_a_collection_error(
    citations: Citations,
) -> None:
    citations.write(
        "cases/bad.yaml",
        f"""\
        id: bad
        citations:
          1: {BOILING_URL}
        answer: Water boils at 100 °C [1]. Ice floats [4].
        """,
    )

    result = citations.run("cases/", gate="default")

    assert result.ret == pytest.ExitCode.TESTS_FAILED  # --citations continues past it
    result.stdout.fnmatch_lines(
        ["*cases/bad.yaml:4: sentence 2 of 'answer' cites [[]4[]], which is not in 'citations'*"]
    )


# -- abbreviations of real answers (issue 10) --------------------------------------------------

KEPT_TOGETHER = {
    "company suffix before a possessive": "The film was part of Warner Bros.' 2020 slate [1].",
    "company suffix before a name": "Warner Bros. Pictures released it in May [1].",
    "dotted initialism before a capital": "The A.V. Club praised the episode [2].",
    "initialism without spaces": "J.R.R. Tolkien wrote it [1].",
    "born": "Jane Doe (b. 2001) is a singer from Ohio [1].",
    "circa": "The church was built c. 1850 by monks [1].",
    "number sign": "The single peaked at No. 3 in the UK [1].",
    "approx": "The tower is approx. 300 m tall [1].",
    "middle initial": "George W. Bush signed the act [1].",
    "z. B.": "Obst, z. B. Äpfel und Birnen, ist gesund [1].",
    "u. a.": "Er spielte u. a. Gitarre und Klavier [1].",
    "d. h.": "Die Frist ist kurz, d. h. 14 Tage [1].",
    "Nr.": "Das Haus Nr. 5 ist rot [1].",
    "bzw.": "Der Preis bzw. Tarif steigt [1].",
}


@pytest.mark.parametrize("sentence", KEPT_TOGETHER.values(), ids=KEPT_TOGETHER.keys())
def test_abbreviations_stay_inside_their_sentence(sentence: str) -> None:
    answer = f"{sentence} The next sentence stands alone [9]."
    first, second = extract_claims(answer)

    assert first.text == sentence.rsplit(" [", 1)[0] + "."
    assert first.markers == (sentence[-3],)
    assert second == ExtractedClaim("The next sentence stands alone.", ("9",))
