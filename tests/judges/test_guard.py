"""The deterministic guard (G1–G3): a judgement counts only when its quote stands in the
passages the judge saw."""

from __future__ import annotations

import pytest

from pytest_citations import Label, Reason
from pytest_citations.judges.guard import guard, locate, normalize, quote_in_passages
from pytest_citations.verdicts import Evidence

PASSAGES = [
    "Intro text.\n\nThe committee said “the bridge   opens\nin 1932” and it’s final.",
    "Refunds go to the original payment method within 14 days.",
]


# -- G1: normalisation --------------------------------------------------------------------------


def test_g1_typographic_quotes_are_straightened():
    assert normalize("“a” ‘b’ „c“ «d» it’s") == '"a" \'b\' "c" "d" it\'s'


def test_g1_whitespace_is_collapsed_and_trimmed():
    assert normalize("  a \t b\n\n c\u00a0d  ") == "a b c d"


@pytest.mark.parametrize(
    "quote",
    [
        '"the bridge opens in 1932" and it\'s final',  # straight quotes vs typographic
        "“the bridge opens in 1932”",  # typographic as in the source
        "the bridge opens\n   in 1932",  # different whitespace
        "Refunds go to the original payment method",
        "within 14 days.",  # three content words: the minimum of evidence (test_trust_guard)
    ],
)
def test_g1_quote_found_after_normalisation(quote):
    assert quote_in_passages(quote, PASSAGES)


@pytest.mark.parametrize(
    "quote",
    [
        "the bridge opens in 1933",  # one character off
        "The Bridge opens in 1932",  # case matters: exact substring
        "final. Refunds go",  # spans two passages: not contiguous in either
        "Refunds go to the payment method",  # words left out
        "",
        "   ",
    ],
)
def test_g1_quote_not_found(quote):
    assert not quote_in_passages(quote, PASSAGES)


# -- G2, G3: verdicts ---------------------------------------------------------------------------


@pytest.mark.parametrize("label", [Label.SUPPORTED, Label.PARTIAL, Label.CONTRADICTED])
def test_g2_evidence_label_with_matching_quote_is_kept_with_its_confidence(label):
    guarded = guard(label, "the bridge opens in 1932", 0.8, PASSAGES)
    assert guarded.label is label
    assert guarded.evidence_quote == "the bridge opens in 1932"
    assert guarded.confidence == 0.8
    assert guarded.reason is None


@pytest.mark.parametrize("label", [Label.SUPPORTED, Label.PARTIAL, Label.CONTRADICTED])
@pytest.mark.parametrize("quote", ["never said this", None, "", "  "])
def test_g2_evidence_label_without_matching_quote_becomes_not_found(label, quote):
    guarded = guard(label, quote, 0.95, PASSAGES)
    assert guarded.label is Label.NOT_FOUND
    assert guarded.evidence_quote is None
    assert guarded.confidence == 0.0
    assert guarded.reason == Reason.QUOTE_NOT_IN_SOURCE


def test_g2_not_found_with_fabricated_quote_gets_the_same_reason():
    guarded = guard(Label.NOT_FOUND, "never said this", 0.6, PASSAGES)
    assert guarded.label is Label.NOT_FOUND
    assert guarded.evidence_quote is None
    assert guarded.confidence == 0.0
    assert guarded.reason == Reason.QUOTE_NOT_IN_SOURCE


def test_g2_not_found_without_quote_passes_and_never_keeps_a_quote():
    assert guard(Label.NOT_FOUND, None, 0.4, PASSAGES).reason is None
    real_quote = guard(Label.NOT_FOUND, "Refunds go to", 0.4, PASSAGES)
    assert (real_quote.label, real_quote.evidence_quote, real_quote.reason) == (
        Label.NOT_FOUND,
        None,
        None,
    )


def test_g3_confidence_survives_only_when_the_quote_passes():
    passing = guard(Label.SUPPORTED, "within 14 days", 0.73, PASSAGES)
    failing = guard(Label.SUPPORTED, "within 15 days", 0.73, PASSAGES)
    assert passing.confidence == 0.73
    assert failing.confidence == 0.0


def test_g1_quote_is_checked_against_the_passages_only():
    # Text the judge never saw cannot vouch for a quote.
    assert not quote_in_passages("hidden sentence", [])
    assert guard(Label.SUPPORTED, "hidden sentence", 1.0, []).label is Label.NOT_FOUND


# -- End to end -------------------------------------------------------------------------------

URL = "https://example.org/water"
CLAIM = "Water boils at 100 degrees Celsius at sea level."


@pytest.mark.parametrize("label", ["supported", "partial", "contradicted"])
def test_g2_fabricated_quote_end_to_end(crawlbase, judge, verify, article, label):
    crawlbase.add(URL, markdown=article(CLAIM))
    judge.rule(CLAIM, label=label, quote="never said this", confidence=0.99)

    result, _ = verify(CLAIM, [URL])

    (citation,) = result.citations
    assert citation.label is Label.NOT_FOUND
    assert citation.reason == Reason.QUOTE_NOT_IN_SOURCE
    assert citation.confidence == 0.0
    assert citation.evidence_quote is None
    assert result.label is Label.NOT_FOUND
    assert judge.call_count == 1


def test_g1_typographic_quote_from_the_judge_passes_end_to_end(crawlbase, judge, verify, article):
    crawlbase.add(
        URL, markdown=article('The manual says "water boils at 100 degrees" at sea level.')
    )
    judge.rule(CLAIM, label="supported", quote="says “water boils at  100 degrees”", confidence=0.8)

    result, _ = verify(CLAIM, [URL])

    (citation,) = result.citations
    assert citation.label is Label.SUPPORTED
    assert citation.confidence == 0.8
    assert citation.evidence_quote == "says “water boils at  100 degrees”"


def test_g2_quote_from_a_passage_outside_the_top_3_is_rejected(crawlbase, judge, verify):
    # The quote exists on the page, but not in what the judge saw (R3 + G1). A budget of 0
    # shows the top passages, as a claim in another language than its page always gets.
    decoys = [" ".join([word] * 120) + "." for word in ("water", "boils", "celsius")]
    hidden = " ".join(f"filler{n}" for n in range(150)) + " The hidden sentence is here."
    crawlbase.add(URL, markdown="\n\n".join([*decoys, hidden]))
    judge.rule(CLAIM, label="supported", quote="The hidden sentence is here.")

    result, _ = verify(CLAIM, [URL], evidence_words=0)

    assert result.citations[0].reason == Reason.QUOTE_NOT_IN_SOURCE


def test_g2_quote_from_a_line_outside_the_budget_is_rejected(crawlbase, judge, verify):
    # Lines chosen under the word budget (the default): the hidden line is on the page but
    # outside the 560 words the judge was shown.
    decoys = [" ".join([word] * 120) + "." for word in ("water", "boils", "celsius") * 2]
    hidden = " ".join(f"filler{n}" for n in range(150)) + "\n\nThe hidden sentence is here."
    crawlbase.add(URL, markdown="\n\n".join([*decoys, hidden]))
    judge.rule(CLAIM, label="supported", quote="The hidden sentence is here.")

    result, _ = verify(CLAIM, [URL])

    (call,) = judge.calls
    assert sum(len(text.split()) for text in call.passages) <= 560
    assert not any("hidden" in text for text in call.passages)
    assert result.citations[0].reason == Reason.QUOTE_NOT_IN_SOURCE


# -- where the quote stands (issue 25: found once, by the guard) ---------------------------------


def test_g1_the_guard_says_where_it_found_the_quote():
    kept = guard(Label.SUPPORTED, "“the bridge opens in 1932”", 0.9, PASSAGES)
    assert (kept.passage, kept.span) == (0, locate("“the bridge opens in 1932”", PASSAGES[0]))
    assert kept.span is not None
    start, end = kept.span
    assert PASSAGES[0][start:end] == "“the bridge   opens\nin 1932”"

    refused = guard(Label.SUPPORTED, "the bridge opens in 1933", 0.9, PASSAGES)
    assert (refused.passage, refused.span) == (None, None)


def test_g1_the_evidence_says_where_the_quote_stands_in_its_passage_and_on_the_page(
    crawlbase, judge, verify, article
):
    # The page spreads the quote over a line end and doubled spaces; the judge copies it
    # from the passage it was shown, whose whitespace is collapsed.
    page = article("Intro sentence here.\r\nThe manual says water  boils\r\nat 100 degrees.")
    crawlbase.add(URL, markdown=page)
    quote = "says water boils at 100 degrees"
    judge.rule(CLAIM, label="supported", quote=quote, confidence=0.8)

    result, _ = verify(CLAIM, [URL])

    (evidence,) = result.evidence
    assert result.citations[0].label is Label.SUPPORTED
    assert evidence.quote_passage is not None
    assert evidence.quote_span is not None
    assert evidence.page_span is not None
    start, end = evidence.quote_span
    assert evidence.passages[evidence.quote_passage][start:end] == quote
    start, end = evidence.page_span
    text = page.replace("\r\n", "\n")  # the page's text: what recorded pieces index
    assert text[start:end] == "says water  boils\nat 100 degrees"
    assert Evidence.from_dict(evidence.to_dict()) == evidence


def test_evidence_written_before_the_spans_reads_back_without_them():
    older = {"url": URL, "passages": ["a b c"], "quote_passage": 0, "chosen_by": "lexical"}
    assert Evidence.from_dict(older) == Evidence(URL, ("a b c",), 0, "lexical")
    hostile = {**older, "quote_span": [True, "9"], "page_span": [5, 2]}
    assert Evidence.from_dict(hostile).quote_span is None
    assert Evidence.from_dict(hostile).page_span is None
