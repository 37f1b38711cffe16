"""Pieces that build a passage the page never had (issue 24): a recorded choice is valid only
as its chooser could have made it (pieces in page order, not overlapping, on the unit
boundaries of the recorded ranking), checked without a model; and the guard accepts a quote
only where it stands in the recorded page as one contiguous span. Forged ``retrieval:``
pieces assembled "Water boils at 212 °C at sea level" from a page that says "100 °C
(212 °F)", and with a matching judge call the replay passed."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
import yaml
from plugin_helpers import BOILING_URL, Citations, single_claim_case

from pytest_citations import Label, Reason
from pytest_citations.judges.guard import guard
from pytest_citations.judges.prompt import user_message
from pytest_citations.retrieval.embedders import make_embedder
from pytest_citations.retrieval.passages import page_text, split_spans, text_of
from pytest_citations.retrieval.retriever import Retriever
from pytest_citations.retrieval.selection import Selection, Shown
from pytest_citations.retrieval.validity import choice_problem
from pytest_citations.sandbox import site

PAGE = site.PAGES[BOILING_URL].markdown
FALSE_CLAIM = "Water boils at 212 °C at sea level."
FORGED_QUOTE = "Water boils at 212 °C at sea level"


def forged_pieces(markdown: str = PAGE) -> tuple[tuple[int, int], ...]:
    """Pieces of the page that read "Water boils at 212 °C at sea level" when joined: out of
    page order ("212" stands after "°C"), "212" a fragment of "(212"."""
    text = page_text(markdown)
    water = text.index("Water boils at")
    degrees = text.index("°C", water)
    twelve = text.index("212", water)
    sea = text.index("at sea level", water)
    return (
        (water, water + len("Water boils at")),
        (twelve, twelve + 3),
        (degrees, degrees + 2),
        (sea, sea + len("at sea level")),
    )


def chosen(claim: str, budget: int) -> Selection:
    retriever = Retriever(make_embedder("lexical"))
    index = retriever.index(split_spans(PAGE))
    found = retriever.choose(claim, index, markdown=PAGE, setting="lexical", evidence_words=budget)
    assert found is not None
    return found


def test_the_forged_pieces_do_read_the_false_passage() -> None:
    passage = text_of(page_text(PAGE), forged_pieces())
    assert " ".join(passage.split()) == FORGED_QUOTE


@pytest.mark.parametrize("budget", [560, 0], ids=["lines", "passages"])
def test_what_retrieval_chooses_is_valid(budget: int) -> None:
    for claim in (FALSE_CLAIM, "On mountains water boils at a lower temperature."):
        assert choice_problem(PAGE, chosen(claim, budget)) is None


@pytest.mark.parametrize("budget", [560, 0], ids=["lines", "passages"])
def test_forged_pieces_are_not_a_choice_the_chooser_could_make(budget: int) -> None:
    real = chosen(FALSE_CLAIM, budget)
    forged = replace(real, shown=(Shown(forged_pieces(), 1.0),))

    assert choice_problem(PAGE, forged) == "the pieces of text 1 are not in page order"
    in_order = replace(real, shown=(Shown(tuple(sorted(forged_pieces())), 1.0),))
    problem = choice_problem(PAGE, in_order)
    assert problem is not None
    assert problem.startswith("text 1 ")


#: A page of 40 paragraphs of about 25 words: over the budget, so lines are chosen from it.
LONG = "\n\n".join(
    f"Paragraph {n} says that the station {n} measured {n * 3} millimetres of rain in "
    f"season {n}, while the valley nearby stayed dry for {n + 2} weeks and the river fell."
    for n in range(40)
)


def test_a_choice_is_checked_against_the_units_of_its_own_ranking() -> None:
    retriever = Retriever(make_embedder("lexical"))
    index = retriever.index(split_spans(LONG))
    claim = "Station 17 measured 51 millimetres of rain."
    lines = retriever.choose(claim, index, markdown=LONG, setting="lexical")
    passages = retriever.choose(claim, index, markdown=LONG, setting="lexical", evidence_words=0)
    assert lines is not None
    assert passages is not None
    assert lines.chooser.units == "lines"
    assert passages.chooser.units == "passages"
    assert choice_problem(LONG, lines) is None
    assert choice_problem(LONG, passages) is None
    # Lines claimed by the ranking before lines, or as whole passages: not a choice it makes.
    older = replace(lines, chooser=replace(lines.chooser, ranking=1))
    assert choice_problem(LONG, older) == "ranking 1 never chose 'lines'"
    as_passages = replace(lines, chooser=replace(lines.chooser, units="passages"))
    assert (choice_problem(LONG, as_passages) or "").startswith("text 1 is not whole passages")
    # Whole passages claimed as lines pass the line check only within the budget.
    small = replace(lines, chooser=replace(lines.chooser, evidence_words=20))
    assert (choice_problem(LONG, small) or "").startswith("its lines hold ")
    more = replace(passages, chooser=replace(passages.chooser, top_k=1))
    assert (choice_problem(LONG, more) or "").startswith("it shows 3 passages, more than")
    overlapping = replace(lines, shown=(lines.shown[0], lines.shown[0]))
    assert choice_problem(LONG, overlapping) == "two of its pieces overlap"
    unknown = replace(lines, chooser=replace(lines.chooser, ranking=3))
    assert (choice_problem(LONG, unknown) or "").startswith("its ranking 3 is not one")
    # A line unit cut inside: the start of a word that is no unit's start.
    first = lines.shown[0].pieces
    cut = ((first[0][0] + 2, first[0][1]), *first[1:])
    inside = replace(lines, shown=(Shown(cut, 1.0), *lines.shown[1:]))
    assert choice_problem(LONG, inside) == "text 1 does not start and end on the page's line units"


def test_the_guard_wants_the_quote_in_the_page_as_one_span() -> None:
    passages = [text_of(page_text(PAGE), forged_pieces())]

    # Against the shown text alone the forged quote stands; against the page it does not.
    assert guard(Label.SUPPORTED, FORGED_QUOTE, 0.9, passages).label is Label.SUPPORTED
    guarded = guard(Label.SUPPORTED, FORGED_QUOTE, 0.9, passages, page=PAGE)
    assert (guarded.label, guarded.reason) == (Label.NOT_FOUND, Reason.QUOTE_NOT_IN_SOURCE)
    assert guarded.confidence == 0.0
    # A quote the page holds passes, whitespace and typographic quotes normalised (G1).
    real = ["Water boils at 100 °C (212 °F) at sea level, where the air pressure"]
    kept = guard(Label.SUPPORTED, "boils at 100 °C (212 °F)\n at sea level", 0.9, real, PAGE)
    assert (kept.label, kept.confidence) == (Label.SUPPORTED, 0.9)


def test_a_replay_of_forged_pieces_and_a_matching_judge_call_is_an_error(
    citations: Citations,
) -> None:
    citations.write("cases/water.yaml", single_claim_case("water", FALSE_CLAIM, BOILING_URL))
    with citations.web() as web:
        web.judge.rule(FALSE_CLAIM, label="contradicted", quote="Water boils at 100 °C")
        citations.run("--citations-record=once", "cases/",
                      gate="default").assert_outcomes(passed=1, failed=1)
    cassette = citations.cassette("cases/water.yaml")
    data = yaml.safe_load(cassette.read_text(encoding="utf-8"))
    # The forger edits the choice, and the judge call to carry the forged passage.
    [entry] = data["retrieval"]
    entry["shown"] = [
        {"pieces": ", ".join(f"{a}-{b}" for a, b in forged_pieces()), "score": 1.0, "starts": ""}
    ]
    [call] = [i for i in data["interactions"] if i["request"]["method"] == "POST"]
    body = json.loads(call["request"]["body"])
    [message] = [m for m in body["messages"] if m["role"] == "user"]
    message["content"] = user_message(FALSE_CLAIM, [text_of(page_text(PAGE), forged_pieces())])
    call["request"]["body"] = json.dumps(body, ensure_ascii=False)
    answer = json.loads(call["response"]["body"]["string"])
    verdict = {"label": "supported", "evidence_quote": FORGED_QUOTE, "confidence": 0.97}
    answer["choices"][0]["message"]["content"] = json.dumps(verdict, ensure_ascii=False)
    call["response"]["body"]["string"] = json.dumps(answer, ensure_ascii=False)
    cassette.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")

    result = citations.run("cases/", "-rE", "--citations-fail-on=contradicted", gate="args")

    result.assert_outcomes(passed=1, errors=1)
    result.stdout.fnmatch_lines([
        f"*cassettes/cases/water.yaml cannot replay the claim {FALSE_CLAIM!r} against "
        f"{BOILING_URL}: its recorded choice of passages is not one retrieval makes from the "
        "recorded page: the pieces of text 1 are not in page order*"
    ])  # fmt: skip
