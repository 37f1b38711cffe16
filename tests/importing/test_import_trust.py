"""What ``import`` writes and what it reads, when the input or the disk is hostile (issue 17).

Case files are source files: a new one gets the user's umask (0o666 less it) like any file
an editor makes, a replaced one keeps its mode, and an interrupted import leaves the old
file or the new one. A record nested deeper than the JSON parser can follow costs that
record alone, reported with its file and line; the records around it are imported."""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from pytest_citations.importing import import_answers

BOILING_URL = "https://example.org/physics/boiling"


def record(answer: str, question: str = "At what temperature does water boil?") -> str:
    return json.dumps({"question": question, "answer": answer, "citations": [BOILING_URL]})


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.fixture
def umask() -> Iterator[int]:
    """Run the test under umask 0o027 (not the common 0o022, so that it shows)."""
    before = os.umask(0o027)
    try:
        yield 0o027
    finally:
        os.umask(before)


def test_a_new_case_file_gets_the_users_umask(tmp_path: Path, umask: int) -> None:
    source = tmp_path / "answers.jsonl"
    source.write_text(record("Water boils at 100 °C at sea level [1].") + "\n", encoding="utf-8")

    result = import_answers([source], tmp_path / "cases")

    [written] = result.files
    assert written.status == "created"
    assert mode(written.path) == 0o666 & ~umask  # 0o640, as an editor would make it
    assert [entry.name for entry in written.path.parent.iterdir()] == [written.path.name]


def test_a_replaced_case_file_keeps_its_mode(tmp_path: Path, umask: int) -> None:
    source = tmp_path / "answers.jsonl"
    source.write_text(record("Water boils at 100 °C at sea level [1].") + "\n", encoding="utf-8")
    [first] = import_answers([source], tmp_path / "cases").files
    first.path.chmod(0o664)  # shared with the team's group, on purpose
    first.path.write_text(first.path.read_text(encoding="utf-8") + "# edited\n", "utf-8")

    [again] = import_answers([source], tmp_path / "cases", overwrite=True).files

    assert again.status == "replaced"
    assert "# edited" not in again.path.read_text(encoding="utf-8")
    assert mode(again.path) == 0o664


#: One value nested 3,000 levels deep: past what Python's JSON parser follows.
DEEP = "[" * 3000 + "]" * 3000
DEEP_OBJECT = '{"answer": ' + "[" * 3000 + '"x"' + "]" * 3000 + "}"


@pytest.mark.parametrize("deep", [DEEP, DEEP_OBJECT], ids=["array", "object"])
def test_a_jsonl_line_nested_too_deeply_costs_that_line_alone(tmp_path: Path, deep: str) -> None:
    source = tmp_path / "answers.jsonl"
    lines = [record("Water boils at 100 °C at sea level [1]."), deep, record("It boils [1].")]
    source.write_text("\n".join(lines) + "\n", encoding="utf-8")

    result = import_answers([source], tmp_path / "cases")

    assert [(r.line, r.reason) for r in result.records if r.reason] == [
        (2, "invalid JSON: nested too deeply to read")
    ]
    assert len(result.files) == 2
    assert result.skipped
    assert f"Skipped {source}:2: invalid JSON: nested too deeply to read" in result.lines()


def test_an_item_nested_too_deeply_in_a_json_array_costs_that_item_alone(tmp_path: Path) -> None:
    source = tmp_path / "answers.json"
    items = [
        record("Water boils at 100 °C at sea level [1]."),
        DEEP_OBJECT.replace('"x"', '"a [string] with \\" brackets {"'),
        record("It boils [1]."),
    ]
    source.write_text("[\n" + ",\n".join(items) + "\n]\n", encoding="utf-8")

    result = import_answers([source], tmp_path / "cases")

    assert [(r.line, r.reason) for r in result.records if r.reason] == [
        (3, "invalid JSON: nested too deeply to read")
    ]
    assert len(result.files) == 2


def test_a_json_document_nested_too_deeply_is_one_skipped_record(tmp_path: Path) -> None:
    whole = tmp_path / "whole.json"
    whole.write_text("\n" + DEEP_OBJECT + "\n", encoding="utf-8")
    unclosed = tmp_path / "unclosed.json"
    unclosed.write_text(f"[{record('It boils [1].')},\n" + "[" * 3000 + "\n", encoding="utf-8")

    result = import_answers([whole, unclosed], tmp_path / "cases")

    assert [(r.source.name, r.line, r.reason) for r in result.records if r.reason] == [
        ("whole.json", 2, "invalid JSON: nested too deeply to read"),
        (
            "unclosed.json",
            2,
            "invalid JSON: nested too deeply to read; the rest of the file was not read",
        ),
    ]
    assert len(result.files) == 1  # the record before the unclosed item
