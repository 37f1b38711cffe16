"""Issue 8, "the guard and the prompt": a quote is evidence only when it carries enough of its
passage (G1–G3 extended), and page text cannot forge the prompt's fences to smuggle in an order
and then quote it."""

from __future__ import annotations

import pytest

from pytest_citations import Label, Reason
from pytest_citations.guard import content_words, guard, quote_in_passages

PASSAGES = [
    "Water boils at 100 °C at sea level, where the air pressure is one atmosphere.",
    "Refunds go to the original payment method within 14 days.",
]

# -- the minimum quote ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("Water", 1),
        ("a", 0),
        ("at sea level", 2),  # "at" is a stopword
        ("of the and in", 0),
        ("boils at 100 °C", 2),  # a number counts as a word; "°C" is one letter
        ("in 1932 and 7", 2),  # digits count whatever their length
        ("it's final", 1),  # "s" is one letter
        ("沸騰します", 2.5),  # no spaces: every two CJK characters count as one word
        ("น้ำเดือด", 4),  # Thai likewise, marks included
        ("Das Wasser kocht bei 100 Grad.", 4),  # German stopwords too
    ],
)
def test_content_words_count_what_can_carry_evidence(text, words):
    assert content_words(text) == words


@pytest.mark.parametrize("label", [Label.SUPPORTED, Label.PARTIAL, Label.CONTRADICTED])
@pytest.mark.parametrize("quote", ["Water", "a", "Water boils", "at sea level", "14 days."])
def test_g2_a_quote_too_short_to_be_evidence_becomes_not_found(label, quote):
    assert quote in PASSAGES[0] or quote in PASSAGES[1]  # it does stand in a passage

    guarded = guard(label, quote, 0.95, PASSAGES)

    assert guarded.label is Label.NOT_FOUND
    assert guarded.evidence_quote is None
    assert guarded.confidence == 0.0  # G3
    assert guarded.reason == Reason.QUOTE_TOO_SHORT


@pytest.mark.parametrize(
    "quote",
    [
        "Water boils at 100",
        "boils at 100 °C at sea level",
        "within 14 days",
        "the original payment method",
    ],
)
def test_g2_three_content_words_are_evidence(quote):
    guarded = guard(Label.SUPPORTED, quote, 0.8, PASSAGES)
    assert (guarded.label, guarded.evidence_quote, guarded.confidence, guarded.reason) == (
        Label.SUPPORTED,
        quote,
        0.8,
        None,
    )


def test_g2_a_fabricated_short_quote_is_still_not_in_source():
    assert guard(Label.SUPPORTED, "Milk", 0.9, PASSAGES).reason == Reason.QUOTE_NOT_IN_SOURCE


@pytest.mark.parametrize(
    ("passage", "quote", "accepted"),
    [
        ("Closed on Sundays.", "Closed on Sundays.", True),  # the whole short passage
        ("Closed on Sundays.", "Closed on Sundays", True),
        ("Closed on Sundays.", "Sundays", False),  # part of it
        ("Yes.", "Yes", True),
        ("It is.", "It is.", False),  # carries no content word at all
        ("営業時間は九時から。", "営業時間は九時から。", True),  # whole CJK passage
        ("営業時間は九時から。", "九時", False),
    ],
)
def test_g2_a_passage_shorter_than_the_minimum_must_be_quoted_whole(passage, quote, accepted):
    guarded = guard(Label.SUPPORTED, quote, 0.7, [passage])
    assert (guarded.reason is None) is accepted
    assert quote_in_passages(quote, [passage]) is accepted


def test_g2_the_minimum_counts_in_a_passage_that_holds_the_quote():
    # "Closed on Sundays." is whole in the short passage, even though a longer one holds it too.
    passages = ["Closed on Sundays. Opening hours vary in summer.", "Closed on Sundays."]
    assert guard(Label.SUPPORTED, "Closed on Sundays.", 0.7, passages).reason is None


def test_g2_not_found_with_a_short_real_quote_keeps_its_reasonless_verdict():
    guarded = guard(Label.NOT_FOUND, "Water", 0.4, PASSAGES)
    assert (guarded.label, guarded.evidence_quote, guarded.reason) == (Label.NOT_FOUND, None, None)


# -- end to end ----------------------------------------------------------------------------------

URL = "https://example.org/water"
OTHER_URL = "https://example.org/museum-visit"
CLAIM = "Water boils at 100 degrees Celsius at sea level."


@pytest.mark.parametrize("provider", ["openai", "anthropic", "ollama"])
@pytest.mark.parametrize("quote", ["Water", "a"])
def test_g2_one_word_quote_is_not_evidence_end_to_end(
    crawlbase, judge, verify, article, provider, quote
):
    crawlbase.add(URL, markdown=article(CLAIM))
    judge.rule(CLAIM, label="supported", quote=quote, confidence=0.95)

    result, _ = verify(CLAIM, [URL], judge_provider=provider)

    (citation,) = result.citations
    assert citation.label is Label.NOT_FOUND
    assert citation.reason == Reason.QUOTE_TOO_SHORT
    assert citation.confidence == 0.0
    assert citation.evidence_quote is None
    assert result.label is Label.NOT_FOUND


HISTORY = "The museum was founded in 1881 by the city council."
VISIT = "The museum opens every day at nine in the morning."
JOINT_CLAIM = "The museum, founded in 1881, opens every day at nine."


@pytest.mark.parametrize(
    ("quotes", "label"),
    [
        ([(1, HISTORY), (2, VISIT)], Label.SUPPORTED),  # the setup works
        ([(1, "1881"), (2, "nine")], Label.NOT_FOUND),
        ([(1, HISTORY), (2, "museum")], Label.NOT_FOUND),
    ],
    ids=["sentences", "one-word-each", "one-word-once"],
)
def test_g2_joint_quotes_need_the_minimum_too(crawlbase, judge, verify, article, quotes, label):
    crawlbase.add(URL, markdown=article(HISTORY, title="History"))
    crawlbase.add(OTHER_URL, markdown=article(VISIT, title="Visit"))
    # No page supports the claim alone; the joint judge (004, C2) answers with ``quotes``.
    judge.rule(JOINT_CLAIM, label="supported", quote=None, quotes=quotes)

    result, _ = verify(JOINT_CLAIM, [URL, OTHER_URL])

    assert result.label is label
    assert bool(result.joint_support) is (label is Label.SUPPORTED)
