"""``pytest-citations cassettes upgrade`` and ``check`` (issue 19): cassettes recorded before
retrieval's choices were kept gain them offline, once, without a byte of their interactions
changing, and then replay without a model; the check lists exactly the citations whose
passages retrieval here would choose otherwise. The real console script, on copies of the
shipped examples; no emulator runs, nothing is sent."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml
from light_env import light_cli, light_pytest, strip_choices
from ops_support import EXAMPLES, base_env, copy_examples, run_cli
from test_readme import (
    DOCS,
    assert_printed,
    code_blocks,
    commands,
    readme_section,
    run_readme_command,
)

from pytest_citations.distribution import install_command
from pytest_citations.recording.choices import choices_document, parse_choices
from pytest_citations.recording.files import read_cassette, with_retrieval
from pytest_citations.recording.pages import read_recording

REPO = Path(__file__).resolve().parents[2]
SECTION = ("Upgrading cassettes", DOCS / "recording.md")
CASSETTES = [f"cassettes/cases/{name}" for name in EXAMPLES]
BOILING, FETCH_RULES, RETURNS = CASSETTES


def upgrade(project: Path, *args: str) -> tuple[int, list[str], str]:
    run = run_cli("cassettes", "upgrade", *args, env=base_env(project, lexical=False), cwd=project)
    run.assert_no_secret()
    return run.returncode, run.stdout.splitlines(), run.stderr


def check(project: Path, *args: str) -> tuple[int, list[str], str]:
    run = run_cli("cassettes", "check", *args, env=base_env(project, lexical=False), cwd=project)
    run.assert_no_secret()
    return run.returncode, run.stdout.splitlines(), run.stderr


def interactions_of(path: Path) -> list[tuple[str, str, object, object]]:
    """Every interaction of a cassette, compared by value."""
    return [
        (request.method, request.uri, request.body, response)
        for request, response in read_cassette(path.read_bytes())[0]
    ]


def head(text: str) -> str:
    """A cassette's text before its retrieval section and version: its interactions."""
    cut = min(i for i in (text.find("\nretrieval:"), text.rfind("\nversion:")) if i >= 0)
    return text[:cut]


@pytest.fixture
def old(tmp_path: Path) -> Path:
    """The shipped examples, their cassettes stripped of retrieval's choices."""
    copy_examples(tmp_path)
    for cassette in CASSETTES:
        strip_choices(tmp_path / cassette)
    return tmp_path


def test_upgrade_adds_the_recorded_choices_keeps_the_interactions_and_replays_without_models(
    old: Path, light: Path
) -> None:
    # One cassette as another writer formats it (vcrpy's serializer: flow scalars, sorted
    # keys): its bytes are kept as they are too.
    document = yaml.safe_load((old / RETURNS).read_text("utf-8"))
    (old / RETURNS).write_text(yaml.safe_dump(document, allow_unicode=True), encoding="utf-8")
    stripped = {name: (old / name).read_text("utf-8") for name in CASSETTES}
    [line] = commands(code_blocks(readme_section(*SECTION)))
    printed = code_blocks(readme_section(*SECTION))[1]

    run = run_readme_command(line, env=base_env(old, lexical=False), cwd=old)

    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines() == printed.lines  # the page's output, line for line
    for name in CASSETTES:
        assert head((old / name).read_text("utf-8")) == head(stripped[name]), name
        assert interactions_of(old / name) == interactions_of(REPO / name)
        # A cassette without a retrieval section was made by the top passages (ranking 1):
        # its choices are made so, and are the passages of the recorded judge calls (on
        # these short pages, the lines the shipped cassette's ranking 2 chose).
        upgraded, shipped = read_recording(old / name)[1], read_recording(REPO / name)[1]
        assert upgraded.keys() == shipped.keys(), name
        for key, selection in upgraded.items():
            assert selection.chooser.ranking == 1, name
            assert selection.chooser.units == "passages", name
            assert [s.pieces for s in selection.shown] == [
                s.pieces for s in shipped[key].shown
            ], name
    replayed = light_pytest(light, old, "cases/")
    assert "could not be checked" not in replayed.stdout
    assert replayed.stdout.splitlines()[-1].endswith("=")
    assert "error" not in replayed.stdout.splitlines()[-1]
    # As with the models, under the default gate: boiling-point's contradicted claim,
    # fetch-rules' not_found and unreachable ones, returns-policy's partial and misattributed.
    assert "5 failed, 6 passed" in replayed.stdout.splitlines()[-1]
    again = {name: (old / name).read_bytes() for name in CASSETTES}

    code, lines, _ = upgrade(old, *CASSETTES)

    assert code == 0
    assert lines == [f"{name}: already upgraded" for name in CASSETTES]
    assert {name: (old / name).read_bytes() for name in CASSETTES} == again


def test_a_setting_that_does_not_reproduce_the_recorded_passages_adds_nothing_for_them(
    old: Path,
) -> None:
    before = (old / RETURNS).read_bytes()

    code, lines, _ = upgrade(old, RETURNS, "--passage-words", "12")

    assert code == 1
    assert lines[0].startswith(f"{RETURNS}: added 0 retrieval choices; ")
    assert "citations left out" in lines[0]
    assert len(lines) > 5  # every judged citation of the file, at least
    assert all("which no recorded judge call carried" in line for line in lines[1:])
    assert "12 words" in lines[1]
    assert (old / RETURNS).read_bytes() == before


def test_the_old_budget_flag_is_the_evidence_words_with_a_deprecation_line(
    old: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """Issue 25: ``--budget`` still works for a release, as ``--evidence-words``."""
    twin = tmp_path_factory.mktemp("twin")
    shutil.copytree(old, twin, dirs_exist_ok=True)

    new_code, new_lines, new_err = upgrade(old, RETURNS, "--evidence-words", "300")
    old_code, old_lines, old_err = upgrade(twin, RETURNS, "--budget", "300")

    assert (old_code, old_lines) == (new_code, new_lines)
    assert (old / RETURNS).read_bytes() == (twin / RETURNS).read_bytes()
    assert "pytest-citations: --budget is deprecated; use --evidence-words" in old_err
    assert "deprecated" not in new_err


def test_a_cassette_no_case_file_records_into_is_named_not_upgraded(old: Path) -> None:
    orphan = old / "cassettes" / "tests" / "test_answers" / "test_boils.yaml"
    orphan.parent.mkdir(parents=True)
    shutil.copyfile(old / BOILING, orphan)

    code, lines, _ = upgrade(old, "cassettes/tests")

    assert code == 1
    assert lines == [
        "cassettes/tests/test_answers/test_boils.yaml: not upgraded: no case file "
        "tests/test_answers/test_boils.yaml records into it (a test's cassette gains its "
        "choices when it is recorded again)"
    ]


def test_check_lists_exactly_the_citation_whose_ranking_changed(tmp_path: Path) -> None:
    copy_examples(tmp_path)
    path = tmp_path / RETURNS
    raw = path.read_bytes()
    entries = choices_document(parse_choices(read_cassette(raw)[1]))
    # A ranking "from another version": it showed the judge one piece of the passage only.
    changed = entries[2]
    recorded = changed["shown"][0]["pieces"]
    assert recorded == "0-9, 11-170, 172-244"
    changed["shown"][0]["pieces"] = "11-170"
    path.write_text(with_retrieval(raw, entries), encoding="utf-8")

    code, lines, stderr = check(tmp_path, "cassettes", "--retrieval")

    assert code == 1, stderr
    # The integrity check first: the edited entry's passages are no recorded call's.
    assert lines[2] == f"{RETURNS}: 5 choices, 5 judge calls, 2 problems:"
    assert lines[3].endswith(": no recorded judge call carries its passages")
    assert lines[5] == "cassettes check: 2 problems in 3 cassettes"
    # Then what retrieval here would choose.
    assert f"{BOILING}: 2 choices, none would change" in lines
    assert f"{FETCH_RULES}: 1 choice, none would change" in lines
    assert_printed(code_blocks(readme_section(*SECTION))[2].lines, lines)
    at = lines.index(f"{RETURNS}: 5 choices, 1 would change:")
    assert lines[at + 1] == f"  {changed['claim']!r} against {changed['url']}"
    assert lines[at + 2].startswith("    recorded: 11-170  (all-MiniLM-L6-v2 (")
    assert lines[at + 3].startswith(f"    now:      {recorded}  (all-MiniLM-L6-v2 (")
    assert len(lines) == at + 4 + 1  # nothing else changed, then the summary
    assert lines[-1] == "cassettes check --retrieval: 1 of 8 recorded choices would change"


def test_check_of_unchanged_cassettes_passes_and_names_those_not_upgraded(
    tmp_path: Path,
) -> None:
    copy_examples(tmp_path)

    code, lines, stderr = check(tmp_path, *CASSETTES[:2], "--retrieval")

    assert code == 0, stderr
    assert lines[-1] == "cassettes check --retrieval: none of 3 recorded choices would change"
    strip_choices(tmp_path / BOILING)

    code, lines, _ = check(tmp_path, BOILING)

    assert code == 1
    assert lines[0] == (
        f"{BOILING}: not upgraded: run pytest-citations cassettes upgrade {BOILING}"
    )


@pytest.mark.parametrize("action", ["upgrade", "check"])
def test_without_the_models_both_exit_4_naming_the_extra(
    old: Path, light: Path, action: str
) -> None:
    if action == "check":
        copy_examples(old)  # cassettes with choices: the check needs the models they name
    before = (old / BOILING).read_bytes()

    # The integrity check needs no model; re-running retrieval does.
    extra = ["--retrieval"] if action == "check" else []
    run = light_cli(light, old, "cassettes", action, "cassettes", *extra)

    assert run.returncode == 4, run.stdout + run.stderr
    assert install_command("record") in run.stderr
    assert "sentence_transformers" in run.stderr
    assert "Traceback" not in run.stderr
    assert run.stdout == ""
    assert (old / BOILING).read_bytes() == before


@pytest.mark.parametrize("action", ["upgrade", "check"])
def test_the_help_of_each_action_documents_exit_4(tmp_path: Path, action: str) -> None:
    run = run_cli("cassettes", action, "--help", env=base_env(tmp_path))

    assert run.returncode == 0
    text = " ".join(run.stdout.split())
    assert text.startswith(f"usage: pytest-citations cassettes {action}")
    assert "cassettes upgrade and check --retrieval) without the embedding models" in text
