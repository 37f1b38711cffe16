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
    assert written.status == "written"
    assert mode(written.path) == 0o666 & ~umask  # 0o640, as an editor would make it
    assert [entry.name for entry in written.path.parent.iterdir()] == [written.path.name]


def test_a_replaced_case_file_keeps_its_mode(tmp_path: Path, umask: int) -> None:
    source = tmp_path / "answers.jsonl"
    source.write_text(record("Water boils at 100 °C at sea level [1].") + "\n", encoding="utf-8")
    [first] = import_answers([source], tmp_path / "cases").files
    first.path.chmod(0o664)  # shared with the team's group, on purpose
    first.path.write_text(first.path.read_text(encoding="utf-8") + "# edited\n", "utf-8")

    [again] = import_answers([source], tmp_path / "cases", overwrite=True).files

    assert again.status == "written"
    assert "# edited" not in again.path.read_text(encoding="utf-8")
    assert mode(again.path) == 0o664
