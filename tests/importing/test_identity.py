"""Stable identity across exports: the same questions answered again give the same case
files, whatever response ids the provider gave this time and whatever tracking parameters
the links carry. A case is named by the record's question id, else by its question, never by
a provider's response id (new on every call); a URL loses only documented tracking
parameters."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pytest_citations.importing import import_answers, read_answer
from pytest_citations.importing.identity import without_tracking

ANSWERS = Path(__file__).resolve().parents[1] / "data" / "answers"


def fixture(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((ANSWERS / name).read_text(encoding="utf-8"))
    return data


def export(run: int) -> list[dict[str, Any]]:
    """The answers of one export run: the same answers each run, with the response ids the
    provider gave this run and the tracking parameters the application's links carried."""
    token = f"{run:02d}Zq8xR4tLm2Vw9"
    responses = fixture("openai_responses_web_search.json")
    responses["id"] = f"resp_{token}"
    chat = fixture("openai_chat_web_search.json")
    chat["id"] = f"chatcmpl-{token}"
    message = fixture("anthropic_web_search.json")
    message["id"] = f"msg_{token}"
    tracking = ["utm_source=openai", "utm_source=chatgpt.com&gclid=Cj0K" + token][run - 1]
    return [
        # A provider response inside the application's wrapper, named by its question only.
        {"question": "When does Arches need a timed entry ticket?", "response": responses},
        # A bare provider response: nothing names it but its content.
        chat,
        # The response id copied into the wrapper.
        {"id": message["id"], "question": "When did Ada Lovelace publish?", "response": message},
        # The application's own record, logged with the provider's id.
        {
            "id": f"chatcmpl-{token}",
            "question": "How long do refunds take?",
            "answer": "Refunds take 14 days [1]. Shipping is free [2].",
            "citations": [
                f"https://shop.example.com/refunds?{tracking}",
                f"https://shop.example.com/shipping?region=eu&{tracking}#costs",
            ],
        },
        # A question id: it names the case whatever else the record holds.
        {
            "question_id": "faq/12",
            "id": f"resp_{token}",
            "answer": "The store opens at 9 a.m. [1].",
            "citations": [f"https://shop.example.com/hours?fbclid=IwAR{token}"],
        },
    ]


def write_export(path: Path, records: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def tree(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


def test_two_exports_with_new_response_ids_and_tracking_parameters_give_identical_files(
    tmp_path: Path,
) -> None:
    first = write_export(tmp_path / "monday.jsonl", export(1))
    second = write_export(tmp_path / "tuesday.jsonl", export(2))

    one = import_answers([first], tmp_path / "one")
    two = import_answers([second], tmp_path / "two")
    again = import_answers([second], tmp_path / "one")  # Tuesday's export over Monday's files

    assert tree(tmp_path / "one") == tree(tmp_path / "two")
    assert [r.case_id for r in one.records] == [r.case_id for r in two.records]
    assert {f.status for f in again.files} == {"unchanged"}
    ids = [r.case_id or "" for r in one.records]
    assert ids[4] == "faq-12"
    assert ids[0].startswith("when-does-arches-need-a-timed-")
    assert ids[2].startswith("when-did-ada-lovelace-publish-")
    assert ids[3].startswith("how-long-do-refunds-take-")
    for case_id in ids:
        assert not case_id.startswith(("resp_", "chatcmpl-", "msg_")), case_id
    written = b"".join(tree(tmp_path / "one").values())
    for tracking in (b"utm_", b"gclid", b"fbclid"):
        assert tracking not in written
    assert b"https://shop.example.com/shipping?region=eu#costs" in written


@pytest.mark.parametrize(
    ("url", "clean"),
    [
        ("https://e.org/p?utm_source=openai", "https://e.org/p"),
        (
            "https://e.org/p?b=2&utm_source=openai&a=1&utm_medium=chat&fbclid=x#top",
            "https://e.org/p?b=2&a=1#top",
        ),
        ("https://e.org/p?gclid=1&msclkid=2&q=a%20b+c", "https://e.org/p?q=a%20b+c"),
        # Not tracking: a parameter that may choose the page, or one merely named alike.
        ("https://github.com/o/r/blob/x?ref=main", "https://github.com/o/r/blob/x?ref=main"),
        ("https://e.org/p?source=rss&id=4", "https://e.org/p?source=rss&id=4"),
        ("https://e.org/p?my_utm_source=1&UTM=2", "https://e.org/p?my_utm_source=1&UTM=2"),
        ("https://e.org/p?z=1&a=2&&flag", "https://e.org/p?z=1&a=2&&flag"),
        ("https://e.org/p#utm_source=openai", "https://e.org/p#utm_source=openai"),
    ],
)
def test_only_documented_tracking_parameters_are_dropped(url: str, clean: str) -> None:
    assert without_tracking(url) == clean


def test_the_cited_page_and_the_retrieved_page_are_one_page_without_tracking() -> None:
    record = {
        "answer": "Snow is white [1].",
        "citations": ["https://e.org/snow?utm_source=openai"],
        "retrieved": ["https://e.org/snow", "https://e.org/ice?utm_source=openai"],
    }
    answer = read_answer(record)
    assert answer.citations == {"1": "https://e.org/snow"}
    assert answer.retrieved == (("", "https://e.org/ice"),)
    assert answer.claim_requests()[0].urls == ("https://e.org/snow",)


def generic(**fields: Any) -> dict[str, Any]:
    return {"answer": "Snow is white [1].", "citations": ["https://e.org/snow"], **fields}


@pytest.mark.parametrize(
    ("record", "record_id"),
    [
        (generic(id="q-7"), "q-7"),
        (generic(id=17), "17"),
        (generic(question_id="faq-3", id="q-7"), "faq-3"),
        ({"question_id": "faq-4", "response": generic(id="q-7")}, "faq-4"),
        (generic(id="resp_68a1c0ffee0123456789"), None),
        (generic(id="msg_01XAbCdEfGhIjKlMnOpQrStU"), None),
        (generic(id="msg_1"), "msg_1"),  # too short for a provider's id: the application's
        ({"id": "kb-9", "response": generic(id="q-7")}, "kb-9"),
    ],
)
def test_the_record_id_is_the_applications_never_the_providers(
    record: dict[str, Any], record_id: str | None
) -> None:
    assert read_answer(record).record_id == record_id


def test_a_provider_responses_own_id_never_names_the_case() -> None:
    chat = fixture("openai_chat_web_search.json")
    assert read_answer(chat).record_id is None
    wrapped = {"id": chat["id"], "question": "How rainy is London?", "response": chat}
    assert read_answer(wrapped).record_id is None  # the same id, copied into the wrapper
    assert read_answer({**wrapped, "id": "weather-1"}).record_id == "weather-1"
    perplexity = fixture("perplexity_sonar.json")
    assert perplexity["id"]  # a UUID: new on every call, but no prefix says so
    assert read_answer(perplexity).record_id is None
    # A flat record in Perplexity's shape is the application's own: its id is kept.
    flat = {
        "id": "ev-1",
        "answer": "Electric cars are common [1].",
        "search_results": [{"url": "https://e.org/ev"}],
    }
    assert read_answer(flat).record_id == "ev-1"


def test_a_question_names_its_case_however_it_was_answered() -> None:
    def case_id(question: str, answer: str) -> str:
        return read_answer(generic(question=question, answer=answer)).case_id()

    base = case_id("Is snow white?", "Snow is white [1].")
    assert base.startswith("is-snow-white-")
    assert case_id("Is snow white?", "Snow looks white [1]. It reflects light [1].") == base
    assert case_id("  is  snow   WHITE? ", "Snow is white [1].") == base
    assert case_id("Is snow white?!", "Snow is white [1].") != base
    other_source = generic(question="Is snow white?", citations=["https://e.org/other"])
    assert read_answer(other_source).case_id() == base
