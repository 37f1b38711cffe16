"""A cassette's text without some of its entries (issue 27): what pruning writes keeps every
other byte (each kept interaction and choice, comments and layout included), and what cannot
be edited in place is refused, never rewritten another way."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from pytest_citations.recording.entries import UneditableCassette, entry_spans, without_entries
from pytest_citations.recording.files import read_cassette

ROOT = Path(__file__).resolve().parents[2]
#: Four interactions (two crawls, two judge calls) and two retrieval choices.
BOILING = (ROOT / "cassettes" / "cases" / "boiling-point.yaml").read_text(encoding="utf-8")


def pieces(text: str) -> tuple[list[str], list[str]]:
    """The text of each interaction and of each choice."""
    spans = entry_spans(text)
    return (
        [text[a:b] for a, b in spans.interactions],
        [text[a:b] for a, b in spans.choices],
    )


def test_the_kept_entries_are_the_same_bytes_and_the_rest_reads_as_before() -> None:
    interactions, choices = pieces(BOILING)

    edited = without_entries(BOILING, {1, 3}, {1})

    kept_interactions, kept_choices = pieces(edited)
    assert kept_interactions == [interactions[0], interactions[2]]
    assert kept_choices == [choices[0]]
    before = yaml.safe_load(BOILING)
    after = yaml.safe_load(edited)
    assert after["interactions"] == [before["interactions"][0], before["interactions"][2]]
    assert after["retrieval"] == [before["retrieval"][0]]
    assert list(after) == ["interactions", "retrieval", "version"]  # version stays last
    read_cassette(edited.encode("utf-8"))  # a replay reads it


def test_nothing_taken_is_the_text_itself() -> None:
    assert without_entries(BOILING, (), ()) == BOILING


def test_every_choice_taken_drops_the_section_every_interaction_leaves_an_empty_list() -> None:
    edited = without_entries(BOILING, {0, 1, 2, 3}, {0, 1})

    assert edited == "interactions: []\nversion: 1\n"
    assert read_cassette(edited.encode("utf-8")) == ([], None)


def test_comments_and_layout_of_what_stays_are_kept() -> None:
    text = (
        "# recorded against the emulators\n"
        "interactions:\n"
        "  - request: {method: GET, uri: 'http://x/?url=https://a.example/'}\n"
        "    response: {status: {code: 200}, body: {string: a}}  # first\n"
        "  - request: {method: GET, uri: 'http://x/?url=https://b.example/'}\n"
        "    response: {status: {code: 200}, body: {string: b}}\n"
        "version: 1  # last\n"
    )

    edited = without_entries(text, {1}, ())

    assert edited == "\n".join(text.splitlines()[:4] + text.splitlines()[6:]) + "\n"


@pytest.mark.parametrize(
    "text",
    [
        "interactions: [{request: {method: GET, uri: u}, response: {status: {code: 200}}}]\n"
        "version: 1\n",
        "{interactions: [], version: 1}\n",
    ],
    ids=["flow-list", "flow-top-level"],
)
def test_a_layout_that_cannot_lose_an_entry_in_place_is_refused(text: str) -> None:
    entries = len(yaml.safe_load(text)["interactions"])

    with pytest.raises(UneditableCassette):
        without_entries(text, {0} if entries else (), ())


def test_an_entry_that_is_not_there_is_refused() -> None:
    with pytest.raises(UneditableCassette, match="not in the file"):
        without_entries(BOILING, {4}, ())
