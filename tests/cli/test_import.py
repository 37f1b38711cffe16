"""``pytest-citations import`` (issue 11): answer records of real stacks become case files; the
command says which format it detected, which files it wrote, and every record it skipped
with its file and line (exit 1). The flow docs/importing.md gives, from exported answers to a gate
that replays offline, runs here as written.

The real console script runs in a subprocess; the records are the providers' documented
examples in ``tests/data/answers``.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from ops_support import (
    base_env,
    emulators,
    run_cli,
)
from test_readme import (
    DOCS,
    assert_printed,
    code_blocks,
    commands,
    readme_section,
    run_readme_command,
)
from workflow_steps import replay_env, run_step

from pytest_citations.cases import load_cases
from pytest_citations.cases.schema import schema_text

ANSWERS = Path(__file__).resolve().parents[1] / "data" / "answers"


def test_import_reports_format_files_and_every_skipped_record(tmp_path: Path) -> None:
    source = tmp_path / "answers.jsonl"
    generic = (ANSWERS / "generic.jsonl").read_text(encoding="utf-8").splitlines()
    source.write_text(
        "\n".join([generic[0], '{"answer": "broken', generic[1], "[1, 2]"]) + "\n",
        encoding="utf-8",
    )
    perplexity = ANSWERS / "perplexity_sonar.json"
    out = tmp_path / "cases" / "imported"

    run = run_cli("import", str(source), str(perplexity), "--out", str(out), env=base_env(tmp_path))

    assert run.returncode == 1, run.stderr  # two records were skipped
    lines = run.stdout.splitlines()
    assert lines[0].startswith(f"Imported 3 of 5 answer records into 3 case files in {out}")
    assert "Detected formats: generic (2 records), perplexity (1 record)" in lines
    written = sorted(line.removeprefix("Created ") for line in lines if line.startswith("Created "))
    assert written == sorted(str(path) for path in out.iterdir())
    assert len(written) == 3
    skipped = [line for line in lines if line.startswith("Skipped ")]
    assert skipped[0].startswith(f"Skipped {source}:2: invalid JSON")
    assert skipped[1].startswith(f"Skipped {source}:4: a record must be a JSON object")
    assert len(skipped) == 2
    assert lines[-1].startswith("Next: review the case files, then record: pytest --citations")
    for path in written:
        assert load_cases(Path(path))  # every file loads as collection would load it
    assert run.stderr == ""


def test_a_clean_import_exits_0_and_again_writes_nothing(tmp_path: Path) -> None:
    out = tmp_path / "cases"
    args = ["import", str(ANSWERS / "generic.jsonl"), "--out", str(out)]

    first = run_cli(*args, env=base_env(tmp_path))
    before = {path.name: path.read_bytes() for path in out.iterdir()}
    again = run_cli(*args, env=base_env(tmp_path))

    assert first.returncode == 0, first.stdout + first.stderr
    assert "Detected format: generic (2 records)" in first.stdout
    assert again.returncode == 0
    assert ": 2 unchanged" in again.stdout.splitlines()[0]
    assert "Created " not in again.stdout
    assert {path.name: path.read_bytes() for path in out.iterdir()} == before


def test_an_explicit_format_is_named_and_other_shapes_skipped(tmp_path: Path) -> None:
    sources = [ANSWERS / "anthropic_web_search.json", ANSWERS / "openai_chat_web_search.json"]

    run = run_cli(
        "import",
        *map(str, sources),
        "--out",
        str(tmp_path / "c"),
        "--format",
        "openai-chat",
        env=base_env(tmp_path),
    )

    assert run.returncode == 1
    assert "Format: openai-chat, as asked" in run.stdout
    assert f"Skipped {sources[0]}" in run.stdout
    assert "does not have the openai-chat shape" in run.stdout


def test_an_unknown_format_is_a_usage_error(tmp_path: Path) -> None:
    run = run_cli(
        "import", str(ANSWERS / "generic.jsonl"), "--format", "cohere", env=base_env(tmp_path)
    )

    assert run.returncode == 2
    assert "invalid choice: 'cohere'" in run.stderr
    assert "openai-responses" in run.stderr  # the formats to choose from


def test_group_input_writes_one_file_per_input(tmp_path: Path) -> None:
    out = tmp_path / "cases"

    run = run_cli(
        "import",
        str(ANSWERS / "generic.jsonl"),
        "--out",
        str(out),
        "--group",
        "input",
        env=base_env(tmp_path),
    )

    assert run.returncode == 0, run.stdout
    assert [path.name for path in out.iterdir()] == ["generic.yaml"]
    assert len(load_cases(out / "generic.yaml")) == 2


def test_a_file_edited_in_review_keeps_its_edit_unless_overwrite(tmp_path: Path) -> None:
    out = tmp_path / "cases"
    args = ["import", str(ANSWERS / "perplexity_sonar.json"), "--out", str(out)]
    assert run_cli(*args, env=base_env(tmp_path)).returncode == 0
    [case_file] = out.iterdir()
    reviewed = case_file.read_text(encoding="utf-8").replace("general: false", "general: true")
    case_file.write_text(reviewed, encoding="utf-8")

    again = run_cli(*args, env=base_env(tmp_path))
    assert again.returncode == 0
    assert f"Unchanged {case_file} (1 kept edit)" in again.stdout.splitlines()
    assert "cites no source" not in again.stdout  # decided in review
    assert case_file.read_text(encoding="utf-8") == reviewed

    replaced = run_cli(*args, "--overwrite", env=base_env(tmp_path))
    assert replaced.returncode == 0
    assert f"Replaced {case_file}" in replaced.stdout
    assert "general: false" in case_file.read_text(encoding="utf-8")


def test_a_case_file_that_cannot_take_the_import_is_named_and_the_command_exits_1(
    tmp_path: Path,
) -> None:
    out = tmp_path / "cases"
    args = ["import", str(ANSWERS / "generic.jsonl"), "--out", str(out)]
    assert run_cli(*args, env=base_env(tmp_path)).returncode == 0
    broken = out / "boiling-point.yaml"
    broken.write_text(broken.read_text(encoding="utf-8") + "claims: [\n", encoding="utf-8")
    before = broken.read_bytes()

    run = run_cli(*args, env=base_env(tmp_path))

    assert run.returncode == 1, run.stdout + run.stderr
    assert ": 1 unchanged, 1 kept" in run.stdout.splitlines()[0]
    [kept] = [line for line in run.stdout.splitlines() if line.startswith("Kept ")]
    assert kept.startswith(f"Kept {broken}: this import cannot be merged into it (it does not")
    assert broken.read_bytes() == before


def test_schema_option_writes_the_schema_and_names_it_relative_to_each_file(
    tmp_path: Path,
) -> None:
    out = tmp_path / "cases" / "imported"
    schema = tmp_path / "schema" / "case-file.schema.json"

    run = run_cli(
        "import",
        str(ANSWERS / "generic.jsonl"),
        "--out",
        str(out),
        "--schema",
        str(schema),
        env=base_env(tmp_path),
    )

    assert run.returncode == 0, run.stdout + run.stderr
    assert schema.read_text(encoding="utf-8") == schema_text()
    for case_file in out.iterdir():
        first = case_file.read_text(encoding="utf-8").splitlines()[0]
        found = re.fullmatch(r"# yaml-language-server: \$schema=(\S+)", first)
        assert found, first
        assert found[1] == "../../schema/case-file.schema.json"
        # The language server resolves it from the file's folder: it must land on the schema.
        assert (case_file.parent / found[1]).resolve() == schema.resolve()
        assert load_cases(case_file)  # the comment line changes nothing for the parser


def test_an_unreadable_input_is_skipped_with_its_name(tmp_path: Path) -> None:
    missing = tmp_path / "nope.jsonl"

    run = run_cli(
        "import",
        str(missing),
        str(ANSWERS / "generic.jsonl"),
        "--out",
        str(tmp_path / "c"),
        env=base_env(tmp_path),
    )

    assert run.returncode == 1
    assert f"Skipped {missing}: cannot read the file" in run.stdout
    assert "Imported 2 of 3" in run.stdout


# -- the documented flow: export answers -> import -> review -> record -> gate ----------------

#: The page that documents it.
PAGE = DOCS / "importing.md"
FLOW = "From your application's answers to a gate in CI"
WRAPPER = "Records in a wrapper"
NEXT_EXPORT = "The next export"


def flow_steps() -> str:
    """The page's five steps, without the subsections that follow them."""
    return readme_section(FLOW, PAGE).split("\n### ")[0]


def test_the_documented_wrapped_response_imports_as_shown(tmp_path: Path) -> None:
    """The raw response wrapper the importing page documents: its record, command, output and the
    case file, named by the wrapper's id and citing the page without OpenAI's utm_source."""
    blocks = code_blocks(readme_section(WRAPPER, PAGE))
    [record] = [block.text for block in blocks if block.language == "jsonl"]
    [printed] = [block for block in blocks if block.language == ""]
    [shown] = [block.text for block in blocks if block.language == "yaml"]
    [importing] = commands(blocks)
    (tmp_path / "wrapped.jsonl").write_text(record, encoding="utf-8")
    assert '"response": {"id": "chatcmpl-' in record
    assert "utm_source=openai" in record

    imported = run_readme_command(importing, env=base_env(tmp_path), cwd=tmp_path)

    assert imported.returncode == 0, imported.stdout + imported.stderr
    assert_printed(printed.lines, imported.stdout.splitlines())
    [case_file] = (tmp_path / "cases" / "wrapped").iterdir()
    assert case_file.read_text(encoding="utf-8") == shown


def test_the_documented_flow_runs_as_written(tmp_path: Path) -> None:
    """The page's answers.jsonl, its three commands and the review it asks for, run as a
    user runs them: the import prints and writes what the page shows, recording talks to
    the emulators with the tokens the page names, and the gate replays offline, in the
    page's words and as the CI workflow runs it."""
    blocks = code_blocks(flow_steps())
    [answers] = [block.text for block in blocks if block.language == "jsonl"]
    [printed] = [block for block in blocks if block.language == ""]
    [shown] = [block.text for block in blocks if block.language == "yaml"]
    importing, recording, gating = commands(blocks)
    (tmp_path / "answers.jsonl").write_text(answers, encoding="utf-8")

    imported = run_readme_command(importing, env=base_env(tmp_path), cwd=tmp_path)
    assert imported.returncode == 0, imported.stdout + imported.stderr
    assert_printed(printed.lines, imported.stdout.splitlines())
    case_file = tmp_path / "cases" / "imported" / "boiling.yaml"
    assert case_file.read_text(encoding="utf-8") == shown
    # The review the page asks for: the uncited sentence is general phrasing.
    assert "change it to `general: true`" in readme_section(FLOW, PAGE)
    case_file.write_text(shown.replace("general: false", "general: true"), encoding="utf-8")

    with emulators(tmp_path) as web:
        recorded = run_readme_command(recording, env=web.env, cwd=tmp_path)
    assert web.crawlbase.crawl_count > 0
    assert web.judge.call_count > 0
    cassettes = tmp_path / "cassettes" / "cases" / "imported"
    assert sorted(path.name for path in cassettes.iterdir()) == ["boiling.yaml", "mountains.yaml"]
    # Offline now: no emulator, no token. The gate replays the cassettes.
    gate = run_readme_command(gating, env=base_env(tmp_path), cwd=tmp_path)
    # The pull-request workflow's gate step, replaying (no token) against an empty base.
    runner = tmp_path.parent / f"{tmp_path.name}-runner"
    runner.mkdir()
    (tmp_path / ".citations-base").mkdir()
    (tmp_path / ".citations-base" / "base.json").write_text('{"cases": []}', encoding="utf-8")
    ci = run_step("gate", "gate", tmp_path, runner, replay_env(runner, "cases/"))

    for run in (recorded, gate, ci):
        assert run.returncode in (0, 1), run.stdout + run.stderr
        assert "1 failed, 4 passed" in run.stdout, run.stdout
        assert "FAILED cases/imported/mountains.yaml::mountains::claim-1" in run.stdout
        assert "request_refused" not in run.stdout  # every request came from a cassette
    assert recorded.returncode == gate.returncode == 1  # the contradicted claim fails the gate
    assert ci.returncode == 0  # the shard leaves the decision to the merge
    assert (
        json.loads((runner / "reports" / "shard-1.json").read_text("utf-8"))["run"]["decision"]
        == "fail"
    )

    # The next export: the review is kept, the changed answer shown, and recording it judges
    # only the changed claim, its page replayed from the cassette.
    next_blocks = code_blocks(readme_section(NEXT_EXPORT, PAGE))
    [next_answers] = [block.text for block in next_blocks if block.language == "jsonl"]
    [next_printed] = [block for block in next_blocks if block.language == ""]
    [reimporting] = commands(next_blocks)
    (tmp_path / "answers.jsonl").write_text(next_answers, encoding="utf-8")
    reviewed = case_file.read_bytes()
    reimported = run_readme_command(reimporting, env=base_env(tmp_path), cwd=tmp_path)
    assert reimported.returncode == 0, reimported.stdout + reimported.stderr
    assert_printed(next_printed.lines, reimported.stdout.splitlines())
    assert case_file.read_bytes() == reviewed
    with emulators(tmp_path) as web:
        rerecorded = run_readme_command(recording, env=web.env, cwd=tmp_path)
    assert "request_refused" not in rerecorded.stdout, rerecorded.stdout
    assert (web.crawlbase.crawl_count, web.judge.call_count) == (0, 1)


def test_an_answer_log_cannot_tag_its_case_with_a_mark_that_silences_it(tmp_path: Path) -> None:
    """An application's own logs reach the gate through import: a record tagged ``xfail`` or
    ``skip`` would turn its contradicted claims green, so it is skipped with its line."""
    generic = (ANSWERS / "generic.jsonl").read_text(encoding="utf-8").splitlines()
    answer = json.loads(generic[1])
    silenced = {"id": "q-7", "question": answer.pop("question"), "tags": ["smoke", "xfail"],
                "response": answer}  # fmt: skip
    source = tmp_path / "answers.jsonl"
    source.write_text(generic[0] + "\n" + json.dumps(silenced) + "\n", encoding="utf-8")
    out = tmp_path / "cases"

    run = run_cli("import", str(source), "--out", str(out), env=base_env(tmp_path))

    assert run.returncode == 1, run.stdout + run.stderr
    skipped = [line for line in run.stdout.splitlines() if line.startswith("Skipped ")]
    assert skipped == [
        f"Skipped {source}:2: tag 'xfail' is pytest's own xfail mark: a case's tags may not "
        "decide whether its checks run or count (choose another name)"
    ]
    written = list(out.iterdir())
    assert len(written) == 1
    assert "xfail" not in written[0].read_text(encoding="utf-8")
