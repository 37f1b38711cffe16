"""Where a claim stands in its case's answer (issue 27): found once when the case file is
read, from the provider's span, the claim's text or its ``from:`` sentence."""

from __future__ import annotations

import time
from pathlib import Path

from pytest_citations.cases import load_cases
from pytest_citations.cases.answer_spans import find_span, place_claims
from pytest_citations.cases.model import Claim
from pytest_citations.sanitize import strip_controls

ANSWER = "Water boils at 100 °C [1].  It   freezes\nat 0 °C [2]. Water boils at 100 °C [3]."


def _shown(answer: str, span: tuple[int, int] | None) -> str | None:
    return None if span is None else answer[span[0] : span[1]]


def test_a_claim_is_found_verbatim_less_its_markers() -> None:
    assert _shown(ANSWER, find_span(ANSWER, "Water boils at 100 °C.")) == (
        "Water boils at 100 °C [1]."
    )


def test_white_space_differences_map_back_to_the_answers_own_characters() -> None:
    span = find_span(ANSWER, "It freezes at 0 °C.")
    assert _shown(ANSWER, span) == "It   freezes\nat 0 °C [2]."


def test_a_repeated_sentence_marks_the_first_occurrence_not_taken() -> None:
    first = find_span(ANSWER, "Water boils at 100 °C.")
    assert first is not None
    second = find_span(ANSWER, "Water boils at 100 °C.", [first])
    assert second is not None
    assert second[0] > first[1]
    assert find_span(ANSWER, "Water boils at 100 °C.", [first, second]) is None


def test_text_the_answer_does_not_hold_has_no_span() -> None:
    assert find_span(ANSWER, "Water boils at 90 °C.") is None
    assert find_span(ANSWER, "   ") is None


def _case(tmp_path: Path, body: str) -> list[tuple[str | None, str]]:
    path = tmp_path / "case.yaml"
    path.write_text(body, encoding="utf-8")
    (case,) = load_cases(path)
    assert case.answer is not None
    return [(_shown(case.answer, claim.answer_span), claim.text) for claim in case.claims]


def test_the_providers_span_wins_when_the_answer_holds_it(tmp_path: Path) -> None:
    found = _case(tmp_path, """\
id: spans
answer: "Refunds take 14 days [1], and returns are free for members [1]. Shipping is quick."
citations: {1: https://example.org/returns}
claims:
  - text: Returns are free for members.
    span: "Refunds take 14 days , and returns are free for members ."
    cites: [1]
  - text: Shipping is quick.
    span: a span the answer does not hold
    cites: [1]
""")
    assert found == [
        ("Refunds take 14 days [1], and returns are free for members [1].",
         "Returns are free for members."),
        ("Shipping is quick.", "Shipping is quick."),
    ]


def test_a_rewritten_claim_is_placed_at_its_from_sentence(tmp_path: Path) -> None:
    found = _case(tmp_path, """\
id: rewritten
answer: "It boils at 70 °C on Everest [1]. Nothing else."
citations: {1: https://example.org/boiling}
claims:
  - text: On Everest water boils at 70 °C.
    from: It boils at 70 °C on Everest.
    cites: [1]
  - text: A claim the answer never made.
    cites: [1]
""")
    assert found == [
        ("It boils at 70 °C on Everest [1].", "On Everest water boils at 70 °C."),
        (None, "A claim the answer never made."),
    ]


def test_claims_split_from_the_answer_are_each_placed(tmp_path: Path) -> None:
    found = _case(tmp_path, """\
id: derived
answer: "Tea is hot [1]. Tea is hot [1]. Ice is cold."
citations: {1: https://example.org/tea}
""")
    assert found == [
        ("Tea is hot [1].", "Tea is hot."),
        ("Tea is hot [1].", "Tea is hot."),
        ("Ice is cold.", "Ice is cold."),
    ]


def test_offsets_count_the_answer_without_its_control_sequences(tmp_path: Path) -> None:
    """The reports show the answer with control sequences taken out (sanitize): the span
    is an offset into that text, so the mark covers the claim and nothing else."""
    path = tmp_path / "ctl.yaml"
    path.write_text('id: ctl\nanswer: "\\e[31mRed\\e[0m text. Tea is hot [1]."\n'
                    "citations: {1: https://example.org/tea}\nclaims:\n  - text: Tea is hot.\n"
                    "    cites: [1]\n", encoding="utf-8")
    (case,) = load_cases(path)
    assert case.answer is not None
    assert "\x1b" in case.answer
    assert _shown(strip_controls(case.answer), case.claims[0].answer_span) == "Tea is hot [1]."


def test_a_case_without_an_answer_places_nothing(tmp_path: Path) -> None:
    path = tmp_path / "plain.yaml"
    path.write_text("id: plain\nclaims:\n  - text: Tea is hot.\n    general: true\n")
    (case,) = load_cases(path)
    assert case.claims[0].answer_span is None


def test_thousands_of_claims_of_one_sentence_are_placed_in_linear_time() -> None:
    """A case file may hold thousands of claims of one sentence its answer repeats as often:
    each claim takes the next occurrence without scanning the ones taken before it again
    (found by the red team: 2,000 such claims took about 40 s, the time growing with the
    cube of their number)."""
    count = 2000
    answer = "Water boils at 100 °C [1]. " * count
    cited = ("https://x.test/",)
    claims = [Claim(n, "Water boils at 100 °C.", cited, ("1",), n) for n in range(count)]
    started = time.perf_counter()
    placed = place_claims(answer, claims)
    took = time.perf_counter() - started
    spans = [claim.answer_span for claim in placed]
    assert spans[:2] == [(0, 26), (27, 53)]
    assert spans[-1] == (27 * (count - 1), 27 * count - 1)
    assert len(set(spans)) == count
    assert took < 5, f"placing {count} claims took {took:.1f} s"
