"""Real responses of every provider (issue 26): what the providers themselves returned, taken
from their repositories, documentation and other SDKs' recorded fixtures
(``tests/data/answers/real/``, sources and licences in ``tests/data/answers/README.md``),
imported without a flag: each claim cites what the provider attributed to it, no markup is a
claim, no placeholder is a URL, and every source the record lists is kept."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from pytest_citations.cases import load_cases
from pytest_citations.importing import (
    FORMATS,
    ImportedAnswer,
    case_mapping,
    detect_format,
    import_answers,
    read_answer,
    read_records,
    render_case_file,
)
from pytest_citations.importing.formats import unwrap

REAL = Path(__file__).resolve().parents[1] / "data" / "answers" / "real"
HAND_WRITTEN = REAL.parent

#: Each real record and the format ``auto`` must detect.
DETECTED = {
    "gemini_generate_content_search.json": "gemini",
    "gemini_interactions_docs_example.json": "gemini-interactions",
    "openai_responses_output_list_no_offsets.json": "openai-responses",
    "openai_responses_no_offsets.json": "openai-responses",
    "openai_responses_web_search.json": "openai-responses",
    "azure_openai_responses_web_search_preview.json": "openai-responses",
    "perplexity_sonar.json": "perplexity",
    "perplexity_agent_web_search.json": "perplexity-agent",
    "anthropic_web_search.json": "anthropic",
    "anthropic_document_citations.jsonl": "anthropic",
}
#: What a claim may never hold: markdown that is not the answer's words.
MARKUP = re.compile(r"\*\*|__|\]\(|^#|^\s*[-*]\s|https?://")


def records(name: str) -> list[dict[str, Any]]:
    """The records of a fixture file, read as the import reads files."""
    found = [record.data for record in read_records([REAL / name]) if hasattr(record, "data")]
    assert found, name
    return found


def answer(name: str, number: int = 0) -> ImportedAnswer:
    return read_answer(records(name)[number])


def cited(answer: ImportedAnswer) -> list[tuple[str, tuple[str, ...]]]:
    return [(claim.text, claim.markers) for claim in answer.claims()]


def test_every_real_fixture_is_listed_with_its_source() -> None:
    readme = (HAND_WRITTEN / "README.md").read_text(encoding="utf-8")
    on_disk = sorted(path.name for path in REAL.iterdir())
    assert on_disk == sorted(DETECTED)
    for name in on_disk:
        assert f"`{name}`" in readme, name


@pytest.mark.parametrize("name", sorted(DETECTED))
def test_each_real_record_is_detected_and_imports_without_markup_or_placeholders(
    name: str,
) -> None:
    for record in records(name):
        payload, _ = unwrap(record)
        assert detect_format(payload) == DETECTED[name]
        imported = read_answer(record)
        assert imported.format == DETECTED[name]
        claims = imported.claims()
        assert claims
        for claim in claims:
            assert not MARKUP.search(claim.text), claim.text
            assert not claim.text.endswith(":"), claim.text
        for url in [*imported.citations.values(), *(url for _, url in imported.retrieved)]:
            assert "..." not in url, url
            assert "utm_source" not in url, url
        # The case file it becomes loads, and shows the same claims.
        case = case_mapping(imported, "real")
        [loaded] = load_cases(Path("real.yaml"), render_case_file([case]))
        assert [c.text for c in loaded.claims] == [c.text for c in claims]


def test_importing_the_real_records_again_changes_no_byte(tmp_path: Path) -> None:
    """Spans and document citations are the import's own: a second import of the same
    records finds every file unchanged (and takes no claim for a review edit)."""
    sources = [REAL / name for name in sorted(DETECTED)]
    first = import_answers(sources, tmp_path / "cases")
    assert not first.skipped
    written = {path.name: path.read_bytes() for path in (tmp_path / "cases").iterdir()}
    again = import_answers(sources, tmp_path / "cases")
    assert {f.status for f in again.files} == {"unchanged"}
    assert all(f.kept_edits == 0 for f in again.files)
    assert {p.name: p.read_bytes() for p in (tmp_path / "cases").iterdir()} == written
    # One review edit in a file whose claims carry spans: the merge keeps that one edit
    # and takes no span for another.
    [spanned] = [
        p for p in (tmp_path / "cases").iterdir() if b"span: Chinese AI firm" in p.read_bytes()
    ]
    spanned.write_text(
        spanned.read_text("utf-8").replace("general: false", "general: true", 1), "utf-8"
    )
    merged = import_answers(sources, tmp_path / "cases")
    [updated] = [f for f in merged.files if f.path == spanned]
    assert updated.kept_edits == 1


# -- Gemini --------------------------------------------------------------------------------


def test_gemini_grounding_supports_cite_their_chunks_by_byte_offsets() -> None:
    imported = answer("gemini_generate_content_search.json")
    assert cited(imported) == [
        ("GOOG (Alphabet Inc Class C): $187.07", ("1",)),
        ("GOOGL (Alphabet Inc Class A): $185.37", ("2",)),
    ]
    # The redirect is the citation the answer made; recording resolves it (see the
    # end-to-end test in tests/cli/test_import_gemini.py).
    assert all(
        url.startswith("https://vertexaisearch.cloud.google.com/grounding-api-redirect/")
        for url in imported.citations.values()
    )
    assert imported.titles == {"1": "tradingview.com", "2": "angelone.in"}
    # The provider's span is the claim itself, but for its markup: no span is written.
    assert imported.claims()[0].span is None


def snake(value: Any) -> Any:
    """A REST response as the Python SDK's ``model_dump()`` writes it (snake case)."""
    if isinstance(value, dict):
        return {re.sub(r"(?<!^)([A-Z])", r"_\1", k).lower(): snake(v) for k, v in value.items()}
    if isinstance(value, list):
        return [snake(item) for item in value]
    return value


def test_gemini_reads_the_sdks_snake_case_alike() -> None:
    record = json.loads((REAL / "gemini_generate_content_search.json").read_text("utf-8"))
    dumped = snake(record)
    assert "grounding_metadata" in dumped["candidates"][0]
    assert cited(read_answer(dumped)) == cited(read_answer(record))


def test_gemini_interactions_annotations_cite_by_byte_offsets_and_keep_the_headline_as_span() -> (
    None
):
    """Hand-written after Google's documented shape (no recorded Interactions response with
    search annotations is in the search index; see tests/data/answers/README.md)."""
    data = json.loads((HAND_WRITTEN / "gemini_interactions_search.json").read_text("utf-8"))
    imported = read_answer(data)
    assert imported.format == "gemini-interactions"
    assert imported.titles == {
        "1": "nasa.gov",
        "2": "airandspace.si.edu",
        "3": "britannica.com",
        "4": "history.nasa.gov",
    }
    claims = {claim.text: claim for claim in imported.claims()}
    landing = claims[
        "Neil Armstrong and Buzz Aldrin landed the lunar module Eagle in the Sea of "
        "Tranquility on July 20, 1969."
    ]
    assert landing.markers == ("2",)
    # The bold headline is no part of the claim; the provider's span shows it.
    assert landing.span is not None
    assert landing.span.startswith("* **Apollo 11 Lands on the Moon** (July 1969): Neil")
    # The provider attributed nothing to the first item's first two sentences.
    assert [claim.markers for claim in imported.claims()[:3]] == [(), (), ("1",)]
    # Offsets count UTF-8 bytes: the two em dashes before the last sentence (three bytes
    # each) do not shift its citations onto the sentence before.
    assert cited(imported)[-2:] == [
        (
            "An oxygen tank exploded on the way to the Moon, and the crew \u2014 Jim Lovell, "
            "Jack Swigert and Fred Haise \u2014 used the lunar module as a lifeboat.",
            ("3",),
        ),
        ("They splashed down safely in the Pacific Ocean on April 17, 1970.", ("3", "4")),
    ]
    assert not imported.warnings


def test_gemini_interactions_documented_example() -> None:
    assert cited(answer("gemini_interactions_docs_example.json")) == [
        ("Spain won Euro 2024, defeating England 2-1 in the final.", ("1",)),
        ("This victory marks Spain's record fourth European Championship title.", ("2",)),
    ]


def test_gemini_url_context_pages_are_kept_as_retrieved() -> None:
    record = {
        "candidates": [
            {
                "content": {"parts": [{"text": "The recipe needs two eggs."}], "role": "model"},
                "urlContextMetadata": {
                    "urlMetadata": [
                        {
                            "retrievedUrl": "https://www.example.com/recipes/pancakes",
                            "urlRetrievalStatus": "URL_RETRIEVAL_STATUS_SUCCESS",
                        }
                    ]
                },
            }
        ]
    }
    imported = read_answer(record)
    assert imported.format == "gemini"
    assert imported.retrieved == (("", "https://www.example.com/recipes/pancakes"),)


def test_gemini_offsets_past_the_text_fall_back_to_the_segment_text_with_a_warning() -> None:
    record = json.loads((REAL / "gemini_generate_content_search.json").read_text("utf-8"))
    support = record["candidates"][0]["groundingMetadata"]["groundingSupports"][0]
    support["segment"]["startIndex"], support["segment"]["endIndex"] = 5000, 5044
    imported = read_answer(record)
    assert cited(imported)[0] == ("GOOG (Alphabet Inc Class C): $187.07", ("1",))
    assert any("out of range" in warning for warning in imported.warnings)


# -- OpenAI ----------------------------------------------------------------------------------


def test_openai_citations_without_offsets_cite_the_sentences_of_their_inline_links() -> None:
    imported = answer("openai_responses_output_list_no_offsets.json")
    assert list(imported.citations) == ["1", "2", "3", "4", "5"]
    assert imported.citations["1"] == (
        "https://www.ft.com/content/f46b7f6d-62ed-4b64-8ad7-2417e5ab34f6"
    )
    claims = imported.claims()
    huawei = [c for c in claims if "Huawei" in c.text or "Nvidia" in c.text]
    assert len(huawei) == 3
    assert all(c.markers == ("1",) for c in huawei)
    # Headings, the bold titles, the lead-in and the list of source links are no claims.
    texts = [claim.text for claim in claims]
    assert not [t for t in texts if "Key AI Developments" in t or t.startswith("Huawei's")]
    assert not [t for t in texts if t.startswith("As of February 25")]
    assert len(claims) == 21
    assert not imported.warnings


def test_openai_early_response_object_reads_every_message_and_drops_list_labels() -> None:
    imported = answer("openai_responses_no_offsets.json")
    assert len(imported.citations) == 7
    texts = [claim.text for claim in imported.claims()]
    assert "Cat" not in texts
    assert "Animal care" not in texts
    sofa = next(c for c in imported.claims() if c.text.startswith("A cat named Sunny-Loo"))
    assert sofa.urls == (
        "https://nypost.com/2025/02/24/us-news/cat-miraculously-survives-3-weeks-trapped-in-"
        "sofa-during-familys-cross-country-move/",
    )


def test_openai_one_annotation_for_three_links_cites_only_its_own_paragraph() -> None:
    imported = answer("azure_openai_responses_web_search_preview.json")
    markers = [claim.markers for claim in imported.claims()]
    assert markers[:3] == [("1",), ("1",), ("1",)]
    # The provider annotated the first link only: the other paragraphs cite nothing.
    assert markers[3:] == [()] * 6
    assert not [c.text for c in imported.claims() if "Straits Times" in c.text]


def test_openai_responses_keep_offsets_and_search_sources() -> None:
    imported = answer("openai_responses_web_search.json")
    assert len(imported.citations) == 5
    assert all(url.startswith("https://www.axios.com/") for url in imported.citations.values())
    # The web_search_call sources nothing cites are kept as retrieved.
    assert [url for _, url in imported.retrieved] == [
        "https://vercel.com/blog",
        "https://github.com/vercel/ai",
        "https://vercel.com/ai",
    ]
    texts = [claim.text for claim in imported.claims()]
    assert not [t for t in texts if "Bruce Lee Statue in Chinatown" in t or "Key San" in t]


def test_a_bare_output_list_is_one_response_an_array_of_messages_is_records(
    tmp_path: Path,
) -> None:
    output = json.loads((REAL / "openai_responses_output_list_no_offsets.json").read_text("utf-8"))
    listed = tmp_path / "output.json"
    listed.write_text(json.dumps(output, indent=2), encoding="utf-8")
    line = tmp_path / "output.jsonl"
    line.write_text(json.dumps(output) + "\n", encoding="utf-8")
    for path in (listed, line):
        [record] = list(read_records([path]))
        assert hasattr(record, "data"), record
        assert record.data == {"output": output}
    message = json.loads((REAL / "anthropic_web_search.json").read_text("utf-8"))
    messages = tmp_path / "messages.json"
    messages.write_text(json.dumps([message, message]), encoding="utf-8")
    assert [r.line for r in read_records([messages])] == [1, 1]


def test_a_placeholder_url_is_refused_with_a_warning() -> None:
    record = json.loads((REAL / "openai_responses_no_offsets.json").read_text("utf-8"))
    annotation = record["output"][2]["content"][0]["annotations"][0]
    annotation["url"] = "https://.../?utm_source=chatgpt.com"
    imported = read_answer(record)
    assert all("..." not in url for url in imported.citations.values())
    assert any("https://.../?utm_source=chatgpt.com" in w for w in imported.warnings)


def test_offsets_past_the_text_fall_back_to_the_inline_link_with_a_warning() -> None:
    record = json.loads((REAL / "openai_responses_web_search.json").read_text("utf-8"))
    message = next(item for item in record["output"] if item["type"] == "message")
    annotation = message["content"][0]["annotations"][0]
    annotation["start_index"], annotation["end_index"] = 90_000, 90_120
    imported = read_answer(record)
    statue = next(c for c in imported.claims() if c.text.startswith("Artist Arnie Kim"))
    assert statue.urls == (
        "https://www.axios.com/local/san-francisco/2025/03/07/bruce-lee-statue-sf-chinatown",
    )
    assert any("outside the text" in warning for warning in imported.warnings)


# -- Perplexity ------------------------------------------------------------------------------


def test_perplexity_sonar_markers_and_bold_figures() -> None:
    imported = answer("perplexity_sonar.json")
    first = imported.claims()[0]
    assert first.markers == ("2", "3", "5", "7")
    assert "**" not in first.text
    assert "803,000 to 893,000" in first.text


def test_perplexity_agent_recorded_answer_cites_the_result_its_marker_names() -> None:
    """The AI SDK's recording of the live Agent API: a marker glued after the full stop, a
    bold name in the sentence, empty annotations, and ten results of which one is cited."""
    imported = answer("perplexity_agent_web_search.json")
    assert imported.format == "perplexity-agent"
    assert cited(imported) == [
        (
            "The official TypeScript website is typescriptlang.org; TypeScript is a strongly "
            "typed programming language that builds on JavaScript with syntax for types.",
            ("7",),
        )
    ]
    assert imported.citations == {"7": "https://www.typescriptlang.org/"}
    # The nine results the answer does not cite are kept as retrieved, under their ids.
    assert [marker for marker, _ in imported.retrieved] == [
        str(n) for n in (1, 2, 3, 4, 5, 6, 8, 9, 10)
    ]
    assert imported.retrieved[0] == ("1", "https://en.wikipedia.org/wiki/TypeScript")
    assert not imported.warnings
    written = yaml.safe_load(render_case_file([case_mapping(imported, "typescript")]))
    assert written["citations"] == {7: "https://www.typescriptlang.org/"}
    assert [claim["cites"] for claim in written["claims"]] == [[7]]
    assert len(written["retrieved"]) == 9


def test_perplexity_agent_markers_are_the_ids_of_the_search_results() -> None:
    """Hand-written after Perplexity's documented shape: a fetched page, and several
    sentences citing results (the recorded answer above has neither)."""
    data = json.loads((HAND_WRITTEN / "perplexity_agent.json").read_text("utf-8"))
    imported = read_answer(data)
    assert imported.format == "perplexity-agent"
    assert cited(imported)[1:] == [
        (
            "Every hiker going to the top of Half Dome on a day the cables are up needs a "
            "permit.",
            ("7",),
        ),
        (
            "Permits are given out by lottery in the spring, with a few more in a daily "
            "lottery two days ahead.",
            ("7",),
        ),
        ("The cables are usually up from late May to early October.", ("4",)),
    ]
    assert imported.citations["7"] == "https://www.nps.gov/yose/planyourvisit/halfdome.htm"
    # Every other result, and the page it fetched, is kept as retrieved.
    assert len(imported.retrieved) == 9
    assert "https://www.nps.gov/yose/planyourvisit/hdpermits.htm" in dict(
        (url, marker) for marker, url in imported.retrieved
    )
    assert not imported.warnings


# -- Anthropic -------------------------------------------------------------------------------


def test_anthropic_web_search_headings_and_labels_are_no_claims() -> None:
    imported = answer("anthropic_web_search.json")
    texts = [claim.text for claim in imported.claims()]
    assert not [t for t in texts if "Major Tech News" in t or t.startswith("FTX Case Update")]
    assert imported.claims()[0].markers == ("1",)
    assert len(imported.retrieved) == 8


def test_anthropic_documents_without_a_url_are_cited_by_title_and_pages() -> None:
    plain = answer("anthropic_document_citations.jsonl", 0)
    assert {m: d.described for m, d in plain.documents.items()} == {
        "1": "Order Tracking Information",
        "2": "Order Tracking Information",
    }
    assert plain.documents["1"].cited_text == (
        "Once your order ships, you'll receive an email with a tracking number."
    )
    assert [c.documents for c in plain.claims()][:2] == [("1", "2"), ("1", "2")]
    assert not plain.claims()[0].uncited
    pdf = answer("anthropic_document_citations.jsonl", 4)
    assert {d.described for d in pdf.documents.values()} == {
        "Amazon 2023 Shareholder Letter, page 1"
    }
    blocks = answer("anthropic_document_citations.jsonl", 2)
    assert [c.documents for c in blocks.claims()] == [("1",), ("1",), ("1",)]


def test_a_document_citation_is_written_loaded_and_described_in_the_case_file() -> None:
    imported = answer("anthropic_document_citations.jsonl", 4)
    text = render_case_file([case_mapping(imported, "amazon")])
    written = yaml.safe_load(text)
    assert written["citations"][1] == {
        "document": "Amazon 2023 Shareholder Letter",
        "pages": "1",
        "text": "In 2023, Amazon’s total revenue grew 12% year-over-year (“YoY”) from $514B to "
        "$575B.",
    }
    assert "general" not in written["claims"][0]
    assert "cannot be fetched" in written["claims"][0]["notes"]
    [case] = load_cases(Path("amazon.yaml"), text)
    assert case.citations == {}
    assert case.claims[0].documents == ("Amazon 2023 Shareholder Letter, page 1",)
    assert case.claims[0].urls == ()


@pytest.mark.parametrize("name", sorted(FORMATS))
def test_every_format_is_documented(name: str) -> None:
    assert FORMATS[name].documented_at
