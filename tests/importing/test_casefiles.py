"""Case files from answer records (issue 11, from answers to cases): records of every format
are imported into case YAML that the case-file parser loads, that a reviewer can read
(uncited sentences visible and decidable), and that is byte-identical when the same answers
are imported again. A record that cannot be read is reported with its file and line and
skipped; the rest is imported."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pytest_citations.cases import load_cases
from pytest_citations.errors import ConfigurationError
from pytest_citations.importing import (
    ImportResult,
    case_mapping,
    import_answers,
    read_answer,
    read_records,
    render_case_file,
)
from pytest_citations.importing.answers import ImportedAnswer

ANSWERS = Path(__file__).resolve().parents[1] / "data" / "answers"
JSON_FIXTURES = sorted(ANSWERS.glob("*.json"))
JSONL_FIXTURES = sorted(ANSWERS.glob("*.jsonl"))

#: Lines that are no answer, with what the report must say about each.
BAD_LINES = [
    ('{"answer": "Unclosed [1].", "citations": ["https://example.org/a"]', "invalid JSON"),
    ('["https://example.org/a"]', "a record must be a JSON object, got list"),
    ('{"score": 0.9, "label": "ok"}', "not a known answer shape (keys: label, score)"),
    ('{"answer": "[1]", "citations": ["https://example.org/a"]}', "the answer holds no sentence"),
]


def one_line(record: dict[str, Any]) -> str:
    return json.dumps(record, ensure_ascii=False)


@pytest.fixture
def answers_jsonl(tmp_path: Path) -> tuple[Path, dict[int, str]]:
    """One JSONL file with a record of every fixture and bad lines between them; returns the
    file and the expected reason per bad line number."""
    lines: list[str] = []
    bad: dict[int, str] = {}
    records = [json.loads(p.read_text(encoding="utf-8")) for p in JSON_FIXTURES]
    for p in JSONL_FIXTURES:
        records.extend(json.loads(line) for line in p.read_text(encoding="utf-8").splitlines())
    for index, record in enumerate(records):
        lines.append(one_line(record))
        if index < len(BAD_LINES):
            text, reason = BAD_LINES[index]
            lines.append(text)
            bad[len(lines)] = reason
        if index == 2:
            lines.append("")  # blank lines are not records
    path = tmp_path / "answers.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path, bad


def tree(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


def test_every_record_is_imported_or_reported_with_its_line(
    answers_jsonl: tuple[Path, dict[int, str]], tmp_path: Path
) -> None:
    source, bad = answers_jsonl
    result = import_answers([source], tmp_path / "cases")
    skipped = {r.line: r.reason for r in result.skipped}
    for line, reason in bad.items():
        assert reason in (skipped.pop(line) or "")
    # The failed batch requests are the only other records skipped, each with its reason.
    assert sorted(skipped.values()) == [
        "the batch request errored: max_tokens: Field required",
        "the batch request expired",
        "the batch request failed: Rate limit reached for requests",
    ]
    assert all(r.source == source for r in result.records)
    assert result.formats() == {
        "anthropic": 3,
        "gemini-interactions": 1,
        "generic": 2,
        "langchain": 2,
        "llamaindex": 1,
        "openai-chat": 2,
        "openai-responses": 1,
        "perplexity": 1,
        "perplexity-agent": 1,
    }
    assert len(result.imported) == 14
    assert len(result.files) == 14
    assert {f.status for f in result.files} == {"created"}


def test_every_written_file_loads_with_the_case_parser_and_holds_the_answers_claims(
    answers_jsonl: tuple[Path, dict[int, str]], tmp_path: Path
) -> None:
    source, _ = answers_jsonl
    result = import_answers([source], tmp_path / "cases")
    data = {r.line: r.data for r in read_records([source]) if hasattr(r, "data")}
    for outcome in result.imported:
        assert outcome.path is not None
        [case] = load_cases(outcome.path)
        answer = read_answer(data[outcome.line])
        assert case.id == outcome.case_id
        assert case.answer == answer.text
        assert case.question == answer.question
        assert [(c.text, c.urls) for c in case.claims] == [
            (c.text, c.urls) for c in answer.claims()
        ]
        assert case.retrieved == tuple(url for _, url in answer.retrieved)


def test_reimporting_the_same_answers_gives_byte_identical_files(
    answers_jsonl: tuple[Path, dict[int, str]], tmp_path: Path
) -> None:
    source, _ = answers_jsonl
    first = import_answers([source], tmp_path / "a")
    again = import_answers([source], tmp_path / "a")
    elsewhere = import_answers([source], tmp_path / "b")
    assert {f.status for f in again.files} == {"unchanged"}
    assert tree(tmp_path / "a") == tree(tmp_path / "b")
    assert [r.case_id for r in first.records] == [r.case_id for r in elsewhere.records]
    for content in tree(tmp_path / "a").values():
        assert content.endswith(b"\n")
        assert not content.endswith(b"\n\n")
        assert b"\r" not in content


def test_ids_come_from_the_record_else_from_its_content(tmp_path: Path) -> None:
    records = [
        {
            "id": "refunds/eu #1",
            "answer": "Refunds take 14 days [1].",
            "citations": ["https://e.org/r"],
        },
        {
            "question": "How long do refunds take?",
            "answer": "Refunds take 14 days [1].",
            "citations": ["https://e.org/r"],
        },
        {
            "question": "How long do refunds take?",
            "answer": "Refunds take 14 days [1].",
            "citations": ["https://e.org/r"],
        },
        {"answer": "Refunds take 30 days [1].", "citations": ["https://e.org/r"]},
    ]
    source = tmp_path / "in.jsonl"
    source.write_text("\n".join(map(one_line, records)) + "\n", encoding="utf-8")
    ids = [r.case_id for r in import_answers([source], tmp_path / "out").records]
    assert ids[0] == "refunds-eu-1"
    assert ids[1].startswith("how-long-do-refunds-take-")
    assert ids[2] == ids[1] + "-2"  # the same answer twice: one id each, in input order
    assert ids[3].startswith("answer-")
    # The hash is of the content: the same answer in another file gets the same id.
    other = tmp_path / "other.jsonl"
    other.write_text(one_line(records[3]) + "\n", encoding="utf-8")
    assert import_answers([other], tmp_path / "out2").records[0].case_id == ids[3]
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == sorted(f"{i}.yaml" for i in ids)


def test_uncited_sentences_are_visible_and_decidable_in_review(tmp_path: Path) -> None:
    source = ANSWERS / "perplexity_sonar.json"
    [outcome] = import_answers([source], tmp_path).records
    assert outcome.path is not None
    text = outcome.path.read_text(encoding="utf-8")
    assert (
        "  - text: Electric cars are becoming a common sight on the roads.\n"
        "    cites: []\n"
        "    general: false\n"
        "    notes: cites no source; add one, or set general to true if it needs none\n"
    ) in text
    assert outcome.uncited == 1
    [case] = load_cases(outcome.path)
    assert [(c.general, c.urls) for c in case.claims][-1] == (False, ())
    # A reviewer's decision is a one-word edit that the parser accepts.
    decided = text.replace("    general: false\n", "    general: true\n")
    [reviewed] = load_cases(outcome.path, decided)
    assert reviewed.claims[-1].general


def test_a_case_file_reads_well_in_review(tmp_path: Path) -> None:
    [outcome] = import_answers([ANSWERS / "openai_responses_web_search.json"], tmp_path).records
    assert outcome.path is not None
    text = outcome.path.read_text(encoding="utf-8")
    keys = [line.split(":")[0] for line in text.splitlines() if line[:1].isalpha()]
    assert keys == ["id", "answer", "citations", "claims", "retrieved", "notes"]
    assert "answer: |-\n  Arches National Park uses timed entry" in text  # block style
    assert "\n  1: https://www.nps.gov/arch/planyourvisit/timed-entry-reservations.htm" in text
    assert "    cites: [1]\n" in text
    assert "&" not in text  # no YAML anchors; case files refuse aliases


def test_a_long_one_line_answer_is_folded_and_reads_back_unchanged() -> None:
    words = " ".join(f"word{n}" for n in range(60))
    answer = read_answer({"answer": f"{words.capitalize()} [1].", "citations": ["https://e.org/x"]})
    text = render_case_file([case_mapping(answer, "long")])
    assert "answer: >-\n" in text
    assert max(len(line) for line in text.splitlines() if line.startswith("  word")) <= 100
    [case] = load_cases(Path("long.yaml"), text)
    assert case.answer == answer.text


def test_grouped_import_writes_one_file_per_input_with_every_case(
    answers_jsonl: tuple[Path, dict[int, str]], tmp_path: Path
) -> None:
    source, _ = answers_jsonl
    generic = ANSWERS / "generic.jsonl"
    result = import_answers([source, generic], tmp_path / "cases", group="input")
    assert [f.path.name for f in result.files] == ["answers.yaml", "generic.yaml"]
    loaded = {f.path.name: load_cases(f.path) for f in result.files}
    assert len(loaded["answers.yaml"]) == 14
    assert [c.id for c in loaded["generic.yaml"]] == [
        "boiling-point-2",
        "who-wrote-middlemarch-f7d00f2a-2",
    ]
    assert (
        (tmp_path / "cases" / "answers.yaml")
        .read_text(encoding="utf-8")
        .startswith("cases:\n  - id: ")
    )
    again = import_answers([source, generic], tmp_path / "cases", group="input")
    assert {f.status for f in again.files} == {"unchanged"}


def test_a_file_edited_in_review_keeps_its_edit_unless_overwrite_is_asked(tmp_path: Path) -> None:
    source = ANSWERS / "perplexity_sonar.json"
    [written] = import_answers([source], tmp_path).files
    reviewed = written.path.read_text(encoding="utf-8").replace("general: false", "general: true")
    written.path.write_text(reviewed, encoding="utf-8")
    again = import_answers([source], tmp_path)
    assert [(f.status, f.kept_edits) for f in again.files] == [("unchanged", 1)]
    assert written.path.read_text(encoding="utf-8") == reviewed
    assert f"Unchanged {written.path} (1 kept edit)" in again.lines()
    replaced = import_answers([source], tmp_path, overwrite=True)
    assert [f.status for f in replaced.files] == ["replaced"]
    assert f"Replaced {written.path}" in replaced.lines()
    assert "general: false" in written.path.read_text(encoding="utf-8")
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_json_files_and_folders_are_read_with_line_numbers(tmp_path: Path) -> None:
    array = tmp_path / "export.json"
    good = {"answer": "Snow is white [1].", "citations": ["https://e.org/snow"]}
    array.write_text(
        "[\n  " + one_line(good) + ",\n  42,\n  " + one_line({**good, "id": "two"}) + "\n]\n",
        encoding="utf-8",
    )
    broken = tmp_path / "broken.json"
    broken.write_text('[\n  {"answer": "[1]"},\n  {"answer": \n]', encoding="utf-8")
    result = import_answers([tmp_path], tmp_path / "cases")
    assert [(r.source.name, r.line, r.imported) for r in result.records] == [
        ("broken.json", 2, False),  # "[1]" holds no sentence
        ("broken.json", 4, False),
        ("export.json", 2, True),
        ("export.json", 3, False),
        ("export.json", 4, True),
    ]
    assert "the rest of the file was not read" in (result.records[1].reason or "")
    assert result.records[3].reason == "a record must be a JSON object, got int"


def test_a_missing_input_is_reported_and_the_others_imported(tmp_path: Path) -> None:
    result = import_answers([tmp_path / "nope.jsonl", ANSWERS / "generic.jsonl"], tmp_path / "c")
    one = import_answers(str(ANSWERS / "generic.jsonl"), tmp_path / "d")  # a path, not a list
    assert len(one.imported) == 2
    assert result.records[0].where == str(tmp_path / "nope.jsonl")
    assert "cannot read the file" in (result.records[0].reason or "")
    assert len(result.imported) == 2


def test_an_explicit_format_skips_records_of_another_shape(tmp_path: Path) -> None:
    sources = [ANSWERS / "anthropic_web_search.json", ANSWERS / "openai_chat_web_search.json"]
    result = import_answers(sources, tmp_path, format="openai-chat")
    assert [(r.source.name, r.format, r.imported) for r in result.records] == [
        ("anthropic_web_search.json", None, False),
        ("openai_chat_web_search.json", "openai-chat", True),
    ]
    assert "does not have the openai-chat shape" in (result.records[0].reason or "")
    with pytest.raises(ConfigurationError, match="unknown grouping"):
        import_answers(sources, tmp_path, group="folder")  # type: ignore[arg-type]


def test_the_schema_line_is_written_first_when_a_schema_is_known(tmp_path: Path) -> None:
    schema = "https://example.org/pytest-citations/case.schema.json"
    [outcome] = import_answers([ANSWERS / "generic.jsonl"], tmp_path, schema_url=schema).records[:1]
    assert outcome.path is not None
    text = outcome.path.read_text(encoding="utf-8")
    assert text.startswith(f"# yaml-language-server: $schema={schema}\nid: boiling-point\n")
    assert load_cases(outcome.path)[0].id == "boiling-point"


def test_the_report_names_counts_skips_and_the_next_step(
    answers_jsonl: tuple[Path, dict[int, str]], tmp_path: Path
) -> None:
    source, bad = answers_jsonl
    result: ImportResult = import_answers([source], tmp_path / "cases")
    lines = result.lines()
    assert lines[0].startswith(
        f"Imported 14 of {14 + len(bad) + 3} answer records into 14 case files"
    )
    assert "(anthropic 3, gemini-interactions 1, generic 2," in lines[0]
    first_bad = min(bad)
    assert f"Skipped {source}:{first_bad}: invalid JSON" in "\n".join(lines)
    assert lines[-1].startswith("Next: review the case files, then record: pytest --citations")


_TEXT = st.text(
    alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"),
    min_size=1,
    max_size=200,
)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(body=_TEXT, question=st.one_of(st.none(), _TEXT))
def test_any_answer_text_survives_the_yaml_unchanged(body: str, question: str | None) -> None:
    record: dict[str, Any] = {"answer": "Claim one [1]. " + body, "citations": ["https://e.org/a"]}
    if question is not None:
        record["question"] = question
    answer: ImportedAnswer = read_answer(record)
    for grouped in (False, True):  # indented under "cases:" the text must survive alike
        text = render_case_file([case_mapping(answer, "any")], grouped=grouped)
        [case] = load_cases(Path("any.yaml"), text)
        assert case.answer == answer.text
        assert case.question == answer.question
        assert case.claims[0].text == answer.claims()[0].text
    assert yaml.safe_load(text)["cases"][0]["claims"][0]["text"] == answer.claims()[0].text
