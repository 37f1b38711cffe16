"""A cassette is a file a pull request can edit (issue 24): the one loader every reader of
cassettes goes through refuses, with the file and the line, what no recording holds and a
hostile file could use: YAML aliases (an alias bomb took minutes and gigabytes), merge keys,
a key given twice in one mapping (the second silently won: ``votes: 3`` then ``votes: 1``),
and numbers too long to read (a 5,000-digit ``votes:`` was a traceback)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from ops_support import EXAMPLES, base_env, copy_examples, emulators, run_cli, run_pytest

from pytest_citations.recording.choices import parse_choices
from pytest_citations.recording.files import CassetteContentError, read_cassette

HEAD = (
    "interactions:\n"
    "- request:\n"
    "    method: GET\n"
    "    uri: https://api.crawlbase.com/?url=https%3A%2F%2Fexample.org%2F\n"
    "    body: null\n"
    "    headers: {}\n"
    "  response:\n"
    "    status: {code: 200, message: OK}\n"
)


def bomb(levels: int = 9) -> str:
    """A billion laughs in a response's headers: nine levels of nine repeats each."""
    lines = ["    headers:", '      a0: &a0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    for level in range(1, levels + 1):
        lines.append(f"      a{level}: &a{level} [" + ", ".join([f"*a{level - 1}"] * 9) + "]")
    return HEAD + "\n".join(lines) + "\n    body: {string: hi}\nversion: 1\n"


DUPLICATE = HEAD + "    headers: {}\n    body: {string: hi}\n    body: {string: no}\nversion: 1\n"
LONG_NUMBER = (
    HEAD
    + "    headers: {}\n    body: {string: hi}\n"
    + "retrieval:\n- claim: c\n  url: u\n  page: p\n  chose: {}\n  shown: []\n"
    + f"  votes: {'9' * 5000}\nversion: 1\n"
)
MERGE = HEAD + "    headers: {<<: {a: [b]}}\n    body: {string: hi}\nversion: 1\n"

HOSTILE = {
    "alias": (bomb(), "it uses a YAML alias (*a0 at line 11)"),
    "duplicate-key": (DUPLICATE, "the key 'body' at line 11 is given twice in one mapping"),
    "long-number": (LONG_NUMBER, "it holds a number of 5000 characters at line 17"),
    "merge-key": (MERGE, "it uses a YAML merge key (<<) at line 9"),
}


@pytest.mark.parametrize("kind", list(HOSTILE))
def test_the_loader_refuses_it_naming_the_line_at_once(kind: str) -> None:
    text, problem = HOSTILE[kind]
    started = time.perf_counter()

    with pytest.raises(CassetteContentError) as raised:
        read_cassette(text.encode("utf-8"))

    assert str(raised.value).startswith(problem)
    assert time.perf_counter() - started < 2


def test_a_duplicate_key_in_the_retrieval_section_is_refused() -> None:
    text = (
        HEAD
        + "    headers: {}\n    body: {string: hi}\n"
        + "retrieval:\n- claim: c\n  url: u\n  page: p\n  chose: {}\n  shown: []\n"
        + "  votes: 3\n  votes: 1\nversion: 1\n"
    )

    with pytest.raises(CassetteContentError, match="the key 'votes' at line 18 is given twice"):
        read_cassette(text.encode("utf-8"))


def test_the_shipped_cassettes_still_load() -> None:
    repo = Path(__file__).resolve().parents[2]
    for path in sorted((repo / "cassettes").rglob("*.yaml")):
        interactions, _ = read_cassette(path.read_bytes())
        assert interactions, path


@pytest.fixture
def bombed(tmp_path: Path) -> Path:
    """The shipped examples, boiling-point's cassette holding an alias bomb in a response."""
    copy_examples(tmp_path)
    cassette = tmp_path / "cassettes" / "cases" / EXAMPLES[0]
    text = cassette.read_text(encoding="utf-8")
    laughs = bomb().split("    headers:\n", 1)[1].split("    body:", 1)[0]
    at = text.index("    headers:\n", text.index("  response:"))
    cassette.write_text(text[:at] + "    headers:\n" + laughs + text[at + 13 :], encoding="utf-8")
    with pytest.raises(CassetteContentError):
        read_cassette(cassette.read_bytes())
    return tmp_path


COMMANDS = {
    "cassettes check": ["cassettes", "check", "cassettes/"],
    "cassettes upgrade": ["cassettes", "upgrade", "cassettes/"],
    "drift": ["drift", "cases/"],
}


@pytest.mark.parametrize("command", list(COMMANDS))
def test_every_command_that_reads_cassettes_names_the_file_within_seconds(
    bombed: Path, command: str
) -> None:
    with emulators(bombed) as web:  # drift fetches live: the other files' pages
        started = time.perf_counter()
        run = run_cli(*COMMANDS[command], env=web.env, cwd=bombed)
        elapsed = time.perf_counter() - started

    assert elapsed < 60
    output = run.stdout + run.stderr
    assert "cassettes/cases/boiling-point.yaml" in output, output
    assert "it uses a YAML alias (*a0 at line" in output, output
    assert "Traceback" not in output


@pytest.mark.parametrize("mode", ["none", "new_episodes"])
def test_a_replay_and_a_recording_plan_name_the_file_within_seconds(
    bombed: Path, mode: str
) -> None:
    with emulators(bombed) as web:  # a recording run plans from the cassettes first
        started = time.perf_counter()
        run = run_pytest(
            bombed, "cases/", f"--citations-record={mode}", "--citations-fail-on=contradicted",
            env=web.env if mode != "none" else base_env(bombed),
        )  # fmt: skip
        elapsed = time.perf_counter() - started

    assert elapsed < 60
    output = run.stdout + run.stderr
    assert "cassette cassettes/cases/boiling-point.yaml cannot be read: it uses a YAML alias" in (
        output
    ), output
    assert "Traceback" not in output
    assert run.returncode != 0


# A recorded choice's numbers are YAML floats when a hand edit says so: ``.inf`` cannot
# become the whole number a choice holds (OverflowError, a traceback in every reader).
@pytest.mark.parametrize("field", ["top_k", "passage_words", "ranking", "budget"])
def test_an_infinite_number_in_a_recorded_choice_is_refused(field: str) -> None:
    chose = {"setting": "s", "embedder": "e", "top_k": 3, "passage_words": 200, "ranking": 2,
             "budget": 560, "units": "lines", field: float("inf")}  # fmt: skip
    entry = {"claim": "c", "url": "u", "page": "p", "chose": chose,
             "shown": [{"pieces": "0-5", "score": 1.0}]}  # fmt: skip

    with pytest.raises(CassetteContentError, match="retrieval choice 1 is not readable"):
        parse_choices([entry])


def test_an_infinite_budget_is_named_by_check_and_replay_without_a_traceback(
    tmp_path: Path,
) -> None:
    """The default gate's run of the shipped example, its cassette edited by one line."""
    copy_examples(tmp_path)
    cassette = tmp_path / "cassettes" / "cases" / EXAMPLES[0]
    text = cassette.read_text(encoding="utf-8")
    assert "    budget: 560\n" in text
    cassette.write_text(text.replace("    budget: 560\n", "    budget: .inf\n", 1), "utf-8")

    checked = run_cli("cassettes", "check", "cassettes/", env=base_env(tmp_path), cwd=tmp_path)
    replayed = run_pytest(tmp_path, f"cases/{EXAMPLES[0]}", env=base_env(tmp_path))

    for run in (checked, replayed):
        output = run.stdout + run.stderr
        assert "Traceback" not in output, output
        assert "cassettes/cases/boiling-point.yaml" in output, output
        assert "retrieval choice 1 is not readable" in output, output
        assert run.returncode == 1, output
