"""Answer formats (issue 11, from answers to cases): every shape a real stack emits is read,
detected, and turned into claims that cite what the answer cited.

The fixtures in ``tests/data/answers/`` are written for these tests, each after the example
a provider documents (the page is named beside each fixture below); the topics and sentences
are our own. Offsets in them point where the providers' offsets point, which
``test_offsets_in_the_fixtures_point_where_the_providers_point`` checks.
"""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_citations.cases.claims import extract_claims
from pytest_citations.errors import ConfigurationError
from pytest_citations.importing import (
    FORMATS,
    AnswerFormatError,
    claim_requests,
    detect_format,
    read_answer,
    read_record,
)
from pytest_citations.importing.spans import Marked, place_markers
from pytest_citations.pipeline.verifier import ClaimRequest

ANSWERS = Path(__file__).resolve().parents[1] / "data" / "answers"

#: Fixture -> the format ``auto`` must detect, and the documentation it mirrors.
FIXTURES = {
    # https://platform.openai.com/docs/guides/tools-web-search (Responses API): a
    # web_search_call (action.sources) and a message whose output_text carries url_citation
    # annotations pointing at the inline "([site](url))" links.
    "openai_responses_web_search.json": "openai-responses",
    # https://platform.openai.com/docs/guides/tools-web-search?api-mode=chat: a search model's
    # chat completion, choices[0].message.annotations[].url_citation.{url,title,start/end}.
    "openai_chat_web_search.json": "openai-chat",
    # https://platform.claude.com/docs/en/agents-and-tools/tool-use/web-search-tool: text,
    # server_tool_use, web_search_tool_result, then text blocks with
    # web_search_result_location citations (url, title, cited_text, encrypted_index).
    "anthropic_web_search.json": "anthropic",
    # https://docs.anthropic.com/en/docs/build-with-claude/citations: page_location and
    # char_location citations of request documents (a URL PDF source and a plain text one).
    "anthropic_documents.json": "anthropic",
    # https://docs.perplexity.ai/api-reference/chat-completions-post: chat completion with
    # top-level citations[] and search_results[] (title, url, date), [n] markers in the text.
    "perplexity_sonar.json": "perplexity",
    # https://docs.perplexity.ai/docs/agent-api and perplexityai/api-platform-developers'
    # response-and-streaming.md: output[] with a search_results item (results with id, url,
    # title), a message whose output_text cites [n] = the result whose id is n, empty
    # annotations, and a fetch_url_results item (the recorded response in real/ has none).
    "perplexity_agent.json": "perplexity-agent",
    # https://ai.google.dev/gemini-api/docs/interactions/google-search ("Understanding the
    # grounding response"): steps[] (thought, google_search_call, google_search_result,
    # model_output) whose text block carries url_citation annotations counted in UTF-8
    # bytes, to grounding-api-redirect links titled by domain.
    "gemini_interactions_search.json": "gemini-interactions",
    # https://python.langchain.com/api_reference/langchain/chains/
    # langchain.chains.retrieval.create_retrieval_chain.html: {input, context, answer}.
    "langchain_retrieval_chain.json": "langchain",
    # RetrievalQA(return_source_documents=True): {query, result, source_documents}, the
    # documents serialised by langchain_core.load.dumpd ({"lc": 1, "kwargs": …}).
    "langchain_retrieval_qa.json": "langchain",
    # https://docs.llamaindex.ai/en/stable/examples/query_engine/citation_query_engine/:
    # Response(response, source_nodes=[NodeWithScore(node=TextNode(metadata={url}))]).
    "llamaindex_citation_query_engine.json": "llamaindex",
}


def load(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((ANSWERS / name).read_text(encoding="utf-8"))
    return data


def lines(name: str) -> list[dict[str, Any]]:
    text = (ANSWERS / name).read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def cites(
    name_or_record: str | dict[str, Any], fmt: str = "auto"
) -> list[tuple[str, tuple[str, ...]]]:
    record = load(name_or_record) if isinstance(name_or_record, str) else name_or_record
    answer = read_answer(record, fmt)
    return [(claim.text, claim.markers) for claim in answer.claims()]


# -- the fixtures are real-shaped --------------------------------------------------------------

_LINK = re.compile(r"\(?\[[^\]]+\]\((?P<url>[^)]+)\)\)?")


def test_offsets_in_the_fixtures_point_where_the_providers_point() -> None:
    """OpenAI's offsets cover the inline link of the cited URL; Anthropic's cited blocks
    concatenate to the answer."""
    response = load("openai_responses_web_search.json")
    part = response["output"][1]["content"][0]
    for annotation in part["annotations"]:
        span = part["text"][annotation["start_index"] : annotation["end_index"]]
        match = _LINK.fullmatch(span)
        assert match, span
        assert match["url"] == annotation["url"]
    chat = load("openai_chat_web_search.json")["choices"][0]["message"]
    for annotation in chat["annotations"]:
        fields = annotation["url_citation"]
        match = _LINK.fullmatch(chat["content"][fields["start_index"] : fields["end_index"]])
        assert match
        assert match["url"] == fields["url"]
    [batch_line, _] = lines("openai_batch_output.jsonl")
    message = batch_line["response"]["body"]["choices"][0]["message"]
    fields = message["annotations"][0]["url_citation"]
    assert _LINK.fullmatch(message["content"][fields["start_index"] : fields["end_index"]])


# -- detection -----------------------------------------------------------------------------------


@pytest.mark.parametrize(("name", "expected"), FIXTURES.items())
def test_auto_detects_each_format_and_says_which(name: str, expected: str) -> None:
    assert read_record(load(name)).format == expected
    assert read_answer(load(name)).format == expected


@pytest.mark.parametrize(("name", "expected"), FIXTURES.items())
def test_an_explicit_format_reads_the_same_as_auto(name: str, expected: str) -> None:
    assert read_answer(load(name), expected) == read_answer(load(name))


def test_an_explicit_format_that_does_not_fit_is_refused() -> None:
    with pytest.raises(
        AnswerFormatError, match="does not have the anthropic shape: expected 'content'"
    ):
        read_answer(load("perplexity_sonar.json"), "anthropic")


def test_an_unknown_format_name_is_a_configuration_error() -> None:
    with pytest.raises(ConfigurationError, match=r"unknown answer format 'openai'.*openai-chat"):
        read_answer(load("openai_chat_web_search.json"), "openai")


def test_a_shape_no_format_knows_is_refused_with_its_keys() -> None:
    with pytest.raises(AnswerFormatError, match=r"not a known answer shape \(keys: foo, score\)"):
        read_answer({"score": 3, "foo": "bar"})


def test_detection_order_puts_perplexity_before_plain_chat() -> None:
    """Perplexity adds ``citations`` to the chat shape; without them it is OpenAI chat."""
    perplexity = load("perplexity_sonar.json")
    assert detect_format(perplexity) == "perplexity"
    chat = {
        key: value
        for key, value in perplexity.items()
        if key not in ("citations", "search_results")
    }
    assert detect_format(chat) == "openai-chat"
    assert list(FORMATS)[-1] == "generic"


# -- offsets mapped to sentences -----------------------------------------------------------------


def test_openai_responses_links_become_markers_on_the_sentences_before_them() -> None:
    answer = read_answer(load("openai_responses_web_search.json"))
    assert "](http" not in answer.text  # the inline links are gone, their markers stay
    assert [(c.text, c.markers) for c in answer.claims()] == [
        ("Arches National Park uses timed entry tickets from April 1 to October 31.", ("1",)),
        ("Tickets are released three months ahead and cost $2 per vehicle.", ("1",)),
        (
            "Delicate Arch stands 52 feet tall and is the most photographed arch in the park.",
            ("2",),
        ),
        ("The visitor center is open daily from 8 a.m. to 5 p.m. in spring.", ("3",)),
        ("Plan for heat and carry at least a gallon of water per person.", ()),
    ]
    # OpenAI's ?utm_source=openai is a tracking parameter: the cited page is the same without.
    assert answer.citations == {
        "1": "https://www.nps.gov/arch/planyourvisit/timed-entry-reservations.htm",
        "2": "https://en.wikipedia.org/wiki/Delicate_Arch",
        "3": "https://www.nps.gov/arch/planyourvisit/hours.htm",
    }
    # action.sources are retrieved, except the page cited.
    assert answer.retrieved == (("", "https://www.utah.com/destinations/national-parks/arches/"),)
    assert answer.titles["2"] == "Delicate Arch - Wikipedia"


def test_openai_chat_annotations_cite_their_own_sentences() -> None:
    assert cites("openai_chat_web_search.json") == [
        ("London receives about 600 mm of rain a year, less than Rome or Sydney.", ("1",)),
        ("October is usually the wettest month in the city.", ("2",)),
    ]


def test_offsets_that_drift_past_an_emoji_still_find_their_link() -> None:
    """Offsets counted in UTF-16 units run one ahead per emoji before them; the annotation
    still lands on the inline link of its own URL."""
    link = "([example.org](https://example.org/tides))"
    text = f"Tides 🌊 turn twice a day. {link}\n\nSwim between the flags."
    start = text.index(link) + 1  # one UTF-16 unit per astral character before the link
    chat = {
        "choices": [
            {
                "message": {
                    "role": "assistant",
                    "content": text,
                    "annotations": [
                        {
                            "type": "url_citation",
                            "url_citation": {
                                "url": "https://example.org/tides",
                                "title": "Tides",
                                "start_index": start,
                                "end_index": start + len(link),
                            },
                        }
                    ],
                }
            }
        ]
    }
    answer = read_answer(chat)
    assert answer.text == "Tides 🌊 turn twice a day.[1]\n\nSwim between the flags."
    assert [c.markers for c in answer.claims()] == [("1",), ()]


def test_anthropic_citations_cite_the_sentences_of_their_blocks() -> None:
    answer = read_answer(load("anthropic_web_search.json"))
    assert [(c.text, c.markers) for c in answer.claims()] == [
        (
            "Based on the search results, Ada Lovelace published her notes on the Analytical "
            "Engine in 1843.",
            ("1",),
        ),
        (
            "Her Note G describes an algorithm for computing Bernoulli numbers, often called "
            "the first computer program.",
            ("1", "2"),
        ),
        ("She is celebrated each year on Ada Lovelace Day.", ()),
    ]
    # "I'll look up …" narrates the search and cites nothing: not part of the answer.
    assert "look up" not in answer.text
    assert answer.citations == {
        "1": "https://en.wikipedia.org/wiki/Ada_Lovelace",
        "2": "https://www.britannica.com/biography/Ada-Lovelace",
    }
    assert answer.retrieved == (("", "https://www.computerhistory.org/babbage/adalovelace/"),)


def test_anthropic_document_citations_take_the_documents_urls_from_the_request() -> None:
    answer = read_answer(load("anthropic_documents.json"))
    assert answer.question == "How long is the warranty, and can I return the kettle?"
    assert answer.record_id == "warranty-question-7"
    assert answer.citations == {"1": "https://example.com/docs/warranty.pdf"}
    # The second document is plain text in the request: no URL, so it is cited by the title
    # the provider gives it (issue 26), not dropped.
    assert [(c.text, c.markers, c.documents) for c in answer.claims()] == [
        ("The kettle is covered by a two-year warranty.", ("1",), ()),
        ("You can return it within 30 days.", ("2",), ("2",)),
    ]
    assert answer.documents["2"].name == "Returns note"
    assert not answer.claims()[1].uncited


def test_anthropic_documents_listed_beside_the_answer_resolve_document_citations() -> None:
    record = load("anthropic_documents.json")
    record["documents"] = [
        "https://example.com/docs/warranty.pdf",
        {"type": "document", "source": {"type": "url", "url": "https://example.com/returns"}},
    ]
    answer = read_answer(record)
    assert [c.markers for c in answer.claims()] == [("1",), ("2",)]
    assert answer.citations["2"] == "https://example.com/returns"
    assert not answer.warnings


def test_anthropic_text_between_searches_that_cites_is_kept() -> None:
    def cited(text: str, url: str) -> dict[str, Any]:
        return {
            "type": "text",
            "text": text,
            "citations": [
                {
                    "type": "web_search_result_location",
                    "url": url,
                    "title": None,
                    "cited_text": "…",
                    "encrypted_index": "Eo8B",
                }
            ],
        }

    search = {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {}}
    message = {
        "type": "message",
        "role": "assistant",
        "content": [
            {"type": "text", "text": "Let me search."},
            search,
            cited("The bridge opened in 1937.", "https://example.org/a"),
            {"type": "text", "text": " Let me check its length."},
            search,
            cited("It is 2.7 km long.", "https://example.org/b"),
        ],
    }
    answer = read_answer(message)
    assert [(c.text, c.markers) for c in answer.claims()] == [
        ("The bridge opened in 1937.", ("1",)),
        ("Let me check its length.", ()),
        ("It is 2.7 km long.", ("2",)),
    ]


# -- numbered sources -----------------------------------------------------------------------------


def test_perplexity_markers_number_search_results_and_unused_ones_are_retrieved() -> None:
    answer = read_answer(load("perplexity_sonar.json"))
    assert [(c.text, c.markers) for c in answer.claims()] == [
        ("More than 17 million electric cars were sold worldwide in 2024.", ("1", "2")),
        ("China accounted for almost two thirds of them.", ("1",)),
        ("Electric cars are becoming a common sight on the roads.", ()),
    ]
    assert answer.retrieved == (("3", "https://ourworldindata.org/electric-car-sales"),)
    assert answer.titles["1"] == "Global EV Outlook 2025 – IEA"


def test_perplexity_citations_alone_number_the_sources() -> None:
    record = load("perplexity_sonar.json")
    del record["search_results"]
    assert read_answer(record).citations["2"].startswith("https://www.reuters.com/")


def test_a_reasoning_models_think_block_is_not_part_of_the_answer() -> None:
    record = load("perplexity_sonar.json")
    message = record["choices"][0]["message"]
    message["content"] = "<think>\nThe user wants EV numbers [9].\n</think>\n" + message["content"]
    answer = read_answer(record)
    assert "think" not in answer.text
    assert not answer.warnings


def test_langchain_answer_without_markers_cites_all_its_documents() -> None:
    answer = read_answer(load("langchain_retrieval_chain.json"))
    assert answer.question == "How do I reset a forgotten password?"
    assert answer.whole_answer
    assert [c.markers for c in answer.claims()] == [("1", "2"), ("1", "2")]
    retrieved_only = read_answer(load("langchain_retrieval_chain.json"), unmarked="retrieved")
    assert [c.markers for c in retrieved_only.claims()] == [(), ()]
    assert [url for _, url in retrieved_only.retrieved] == [
        "https://help.example.com/account/reset-password",
        "https://help.example.com/account/security",
    ]


def test_langchain_dumpd_documents_number_the_markers_and_a_path_is_reported() -> None:
    answer = read_answer(load("langchain_retrieval_qa.json"))
    assert answer.question == "Which plans include phone support?"
    assert [(c.text, c.urls) for c in answer.claims()] == [
        (
            "Phone support is included in the Business plan.",
            ("https://example.com/pricing#business",),
        ),
        ("The Starter plan offers email support only.", ("https://example.com/pricing#starter",)),
    ]
    assert answer.warnings == ("document [3] has no http(s) URL ('/srv/kb/internal/notes.md')",)


def test_langchain_sources_string_names_the_cited_sources() -> None:
    record = {
        "question": "What does the warranty cover?",
        "answer": "Parts and labour for two years.",
        "sources": "https://example.com/warranty, https://example.com/faq",
        "source_documents": [
            {"page_content": "…", "metadata": {"source": "https://example.com/warranty"}},
            {"page_content": "…", "metadata": {"source": "https://example.com/shipping"}},
        ],
    }
    answer = read_answer(record)
    assert answer.format == "langchain"
    assert answer.citations == {"1": "https://example.com/warranty", "2": "https://example.com/faq"}
    assert answer.retrieved == (("", "https://example.com/shipping"),)


def test_llamaindex_markers_number_the_source_nodes() -> None:
    assert [
        (c.text, c.urls)
        for c in read_answer(load("llamaindex_citation_query_engine.json")).claims()
    ] == [
        (
            "The Eiffel Tower is 330 metres tall.",
            ("https://www.toureiffel.paris/en/the-monument/key-figures",),
        ),
        (
            "It was completed in 1889 for the World's Fair.",
            ("https://en.wikipedia.org/wiki/Eiffel_Tower",),
        ),
    ]


def test_generic_lists_and_mappings_number_the_markers() -> None:
    first, second = lines("generic.jsonl")
    assert cites(first) == [
        ("Water boils at 100 °C at sea level.", ("1",)),
        ("At the top of Everest it boils at about 70 °C.", ("2",)),
    ]
    answer = read_answer(second)
    assert answer.citations == {
        "1": "https://en.wikipedia.org/wiki/Middlemarch",
        "3": "https://en.wikipedia.org/wiki/George_Eliot",
    }
    assert answer.retrieved == (("2", "https://www.britannica.com/topic/Middlemarch"),)


def test_a_marker_the_record_does_not_list_is_reported_not_invented() -> None:
    answer = read_answer(
        {"answer": "Rain falls [1]. Snow falls [4].", "citations": ["https://example.org/rain"]}
    )
    claims = answer.claims()
    assert [(c.markers, c.unresolved) for c in claims] == [(("1",), ()), ((), ("4",))]
    assert claims[1].uncited
    assert "the answer cites [4], which the record does not list" in answer.warnings


# -- envelopes ------------------------------------------------------------------------------------


def test_an_envelope_adds_the_question_id_and_tags() -> None:
    record = {
        "id": "eu-weather-12",
        "question": "How much rain falls in London?",
        "tags": ["weather", "smoke"],
        "response": load("openai_chat_web_search.json"),
    }
    answer = read_answer(record)
    assert (answer.format, answer.record_id, answer.question, answer.tags) == (
        "openai-chat",
        "eu-weather-12",
        "How much rain falls in London?",
        ("weather", "smoke"),
    )


def test_the_question_comes_from_the_request_kept_beside_the_answer() -> None:
    record = {
        "request": {
            "input": [
                {"role": "user", "content": [{"type": "input_text", "text": "Arches tickets?"}]}
            ]
        },
        "response": load("openai_responses_web_search.json"),
    }
    assert read_answer(record).question == "Arches tickets?"


def test_openai_batch_lines_use_the_custom_id_and_a_failed_request_is_refused() -> None:
    ok, failed = lines("openai_batch_output.jsonl")
    answer = read_answer(ok)
    assert (answer.format, answer.record_id) == ("openai-chat", "faq-0001")
    assert [(c.text, c.markers) for c in answer.claims()] == [
        ("The Louvre is closed on Tuesdays.", ("1",))
    ]
    with pytest.raises(AnswerFormatError, match="the batch request failed: Rate limit reached"):
        read_answer(failed)


def test_anthropic_batch_results_use_the_custom_id_and_errors_are_refused() -> None:
    ok, errored, expired = lines("anthropic_batch_results.jsonl")
    answer = read_answer(ok)
    assert (answer.format, answer.record_id) == ("anthropic", "kb-17")
    assert answer.citations == {"1": "https://intranet.example.com/office/hours"}
    with pytest.raises(
        AnswerFormatError, match="the batch request errored: max_tokens: Field required"
    ):
        read_answer(errored)
    with pytest.raises(AnswerFormatError, match="the batch request expired"):
        read_answer(expired)


def test_a_refusal_is_not_an_answer() -> None:
    refusal = {
        "id": "chatcmpl-x",
        "choices": [
            {
                "index": 0,
                "message": {
                    "role": "assistant",
                    "content": None,
                    "refusal": "I can't help with that.",
                },
            }
        ],
    }
    with pytest.raises(AnswerFormatError, match="the model refused: I can't help with that"):
        read_answer(refusal)


# -- SDK objects, for the fixture's check_answer(response) ----------------------------------------


class _Dumped:
    """An SDK object as the OpenAI and Anthropic SDKs (pydantic) present one."""

    def __init__(self, data: dict[str, Any]) -> None:
        self._data = data

    def model_dump(self) -> dict[str, Any]:
        return self._data


@dataclasses.dataclass
class _LlamaResponse:
    """LlamaIndex's ``Response`` is a dataclass whose source nodes are pydantic objects."""

    response: str | None
    source_nodes: list[Any]
    metadata: dict[str, Any] | None = None


def test_sdk_objects_and_dataclasses_read_like_their_dicts() -> None:
    data = load("openai_responses_web_search.json")
    assert read_answer(_Dumped(data)) == read_answer(data)
    llama = load("llamaindex_citation_query_engine.json")
    response = _LlamaResponse(llama["response"], [_Dumped(node) for node in llama["source_nodes"]])
    assert read_answer(response).citations == read_answer(llama).citations


def test_claim_requests_give_each_claim_its_urls_and_the_retrieved_pages() -> None:
    requests = claim_requests(load("perplexity_sonar.json"))
    assert requests[0] == ClaimRequest(
        "More than 17 million electric cars were sold worldwide in 2024.",
        (
            "https://www.iea.org/reports/global-ev-outlook-2025",
            "https://www.reuters.com/business/autos-transportation/ev-sales-2024/",
        ),
        ("https://ourworldindata.org/electric-car-sales",),
    )
    assert requests[2].urls == ()  # uncited: the verifier labels it uncited


# -- marker placement ----------------------------------------------------------------------------


def test_a_span_inside_a_sentence_marks_that_sentence_only() -> None:
    text = "Alpha is first. Beta is second. Gamma is third."
    start = text.index("second")
    assert place_markers(text, [Marked(start, start + 6, "1")]) == (
        "Alpha is first. Beta is second.[1] Gamma is third."
    )


def test_a_span_over_two_sentences_marks_both() -> None:
    text = "Alpha is first. Beta is second. Gamma is third."
    marked = place_markers(text, [Marked(3, text.index("Beta") + 2, "2")])
    assert [c.markers for c in extract_claims(marked)] == [("2",), ("2",), ()]


def test_a_link_after_a_paragraph_cites_the_paragraph_but_not_the_one_before() -> None:
    text = (
        "First paragraph has one claim.\n\n"
        "Second starts here. It goes on here. ([site](https://example.org/x))\n\n"
        "Third closes."
    )
    start = text.index("([site]") + 1  # the annotation covers the link without parentheses
    end = text.index(")\n\nThird")
    marked = place_markers(text, [Marked(start, end, "1")])
    assert "example.org" not in marked
    assert "()" not in marked
    assert [c.markers for c in extract_claims(marked)] == [(), ("1",), ("1",), ()]


def test_links_after_each_sentence_cite_only_their_sentence() -> None:
    one, two = "([a.org](https://a.org/1))", "([b.org](https://b.org/2))"
    text = f"Alpha is first. {one} Beta is second. {two}"
    spans = [
        Marked(text.index(one), text.index(one) + len(one), "1"),
        Marked(text.index(two), text.index(two) + len(two), "2"),
    ]
    marked = place_markers(text, spans)
    assert marked == "Alpha is first.[1] Beta is second.[2]"


def test_two_sources_on_one_sentence_are_written_in_order() -> None:
    text = "Alpha is first"
    assert place_markers(text, [Marked(0, 5, "2"), Marked(6, 8, "1")]) == "Alpha is first [1][2]"


_WORDS = st.sampled_from(["alpha", "beta", "gamma", "delta", "river", "stone", "light"])
_SENTENCE = st.lists(_WORDS, min_size=2, max_size=6).map(lambda ws: " ".join(ws).capitalize() + ".")


@settings(max_examples=150, deadline=None)
@given(
    sentences=st.lists(_SENTENCE, min_size=1, max_size=6),
    joints=st.lists(st.sampled_from([" ", "\n\n", "  ", "\n"]), min_size=6, max_size=6),
    picks=st.lists(st.tuples(st.integers(0, 5), st.integers(1, 4)), max_size=5),
)
def test_every_span_reaches_exactly_the_sentence_it_covers(
    sentences: list[str], joints: list[str], picks: list[tuple[int, int]]
) -> None:
    text, starts = "", []
    for index, sentence in enumerate(sentences):
        if index:
            text += joints[index]
        starts.append(len(text))
        text += sentence
    spans, expected = [], [set[str]() for _ in sentences]
    for index, (which, marker) in enumerate(picks):
        which %= len(sentences)
        start = starts[which] + index % 3  # somewhere inside the sentence
        spans.append(Marked(start, starts[which] + len(sentences[which]) - 1, str(marker)))
        expected[which].add(str(marker))
    claims = extract_claims(place_markers(text, spans))
    assert [c.text for c in claims] == sentences
    assert [set(c.markers) for c in claims] == expected
