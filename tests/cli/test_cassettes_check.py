"""``pytest-citations cassettes check`` is an integrity check (issue 24): fast, without a
model, it finds with the file and the retrieval entry everything a replay refuses, and exits
1 on any finding. Before, it re-ran retrieval with the model and said of every edit below
that nothing would change (exit 0). Re-retrieval stays available as ``--retrieval``. The
real console script on copies of the shipped examples; nothing is sent."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
import yaml
from light_env import light_cli
from ops_support import base_env, copy_examples, run_cli

RETURNS = "cassettes/cases/returns-policy.yaml"
BOILING = "cassettes/cases/boiling-point.yaml"


def check(project: Path, *args: str) -> tuple[int, list[str]]:
    run = run_cli("cassettes", "check", *args, env=base_env(project), cwd=project)
    run.assert_no_secret()
    return run.returncode, run.stdout.splitlines()


def edit(project: Path, cassette: str, change: object) -> dict[str, object]:
    """Load a cassette, let ``change`` edit its data, write it back (a value met twice
    written twice, not as a YAML alias: a JSON round trip unshares it)."""
    path = project / cassette
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    change(data)  # type: ignore[operator]
    unshared = json.loads(json.dumps(data))
    path.write_text(yaml.safe_dump(unshared, allow_unicode=True), encoding="utf-8")
    return data  # type: ignore[no-any-return]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    copy_examples(tmp_path)
    return tmp_path


def test_the_shipped_cassettes_are_sound(project: Path) -> None:
    code, lines = check(project, "cassettes/")

    assert code == 0
    assert lines == [
        f"{BOILING}: 2 choices, 2 judge calls, sound",
        "cassettes/cases/fetch-rules.yaml: 1 choice, 1 judge call, sound",
        f"{RETURNS}: 5 choices, 5 judge calls, sound",
        "cassettes check: 3 cassettes, no problem",
    ]


def test_it_needs_no_model_and_takes_seconds(project: Path, light: Path) -> None:
    started = time.perf_counter()

    run = light_cli(light, project, "cassettes", "check", "cassettes/")

    assert run.returncode == 0, run.stdout + run.stderr
    assert run.stdout.splitlines()[-1] == "cassettes check: 3 cassettes, no problem"
    assert time.perf_counter() - started < 30


def test_forged_pieces_are_named_with_their_entry(project: Path) -> None:
    def forge(data: dict[str, list[dict[str, object]]]) -> None:
        data["retrieval"][2]["shown"] = [{"pieces": "172-244, 11-170", "score": 1.0}]

    claim = edit(project, RETURNS, forge)["retrieval"][2]["claim"]  # type: ignore[index]

    code, lines = check(project, RETURNS)

    assert code == 1
    assert lines[0] == f"{RETURNS}: 5 choices, 5 judge calls, 2 problems:"
    assert lines[1].startswith(f"  retrieval entry 3 ({claim!r} against https://")
    assert lines[1].endswith(
        "not a choice retrieval makes from the recorded page: the pieces of text 1 are not "
        "in page order"
    )
    # Its judge call now carries passages no entry names.
    assert lines[2] == (
        "  1 recorded judge call with passages no retrieval entry names (a replay would "
        "choose them again with the model)"
    )
    assert lines[-1] == "cassettes check: 2 problems in 1 cassette"


def test_votes_that_disagree_with_the_recorded_calls_are_named(project: Path) -> None:
    edit(project, BOILING, lambda data: data["retrieval"][0].update(votes=3))

    code, lines = check(project, BOILING)

    assert code == 1
    assert lines[1].startswith("  retrieval entry 1 ('Water boils at 100 °C at sea level.'")
    assert lines[1].endswith(
        "it says votes: 3, and the recording holds 1 judge call with its passages"
    )


def test_a_second_entry_for_one_claim_and_a_key_given_twice_are_named(project: Path) -> None:
    edit(project, BOILING, lambda data: data["retrieval"].append(data["retrieval"][0]))
    path = project / RETURNS
    twice = path.read_text(encoding="utf-8").replace(
        "    top_k: 3\n", "    top_k: 3\n    top_k: 1\n", 1
    )
    path.write_text(twice, encoding="utf-8")

    code, lines = check(project, "cassettes/")

    assert code == 1
    assert lines[0].startswith(
        f"{BOILING}: not checked: retrieval choices 1 and 3 are both for the claim "
        "'Water boils at 100 °C at sea level.'"
    )
    returns = next(line for line in lines if line.startswith(f"{RETURNS}: "))
    assert returns.startswith(f"{RETURNS}: not checked: the key 'top_k' at line ")
    assert lines[-1] == "cassettes check: 2 problems in 3 cassettes"


def test_an_entry_removed_leaves_its_call_named(project: Path) -> None:
    edit(project, RETURNS, lambda data: data["retrieval"].pop(1))

    code, lines = check(project, RETURNS)

    assert code == 1
    assert lines == [
        f"{RETURNS}: 4 choices, 5 judge calls, 1 problem:",
        "  1 recorded judge call with passages no retrieval entry names (a replay would "
        "choose them again with the model)",
        "cassettes check: 1 problem in 1 cassette",
    ]


def test_a_cassette_without_choices_is_named_not_upgraded(project: Path) -> None:
    edit(project, BOILING, lambda data: data.pop("retrieval"))

    code, lines = check(project, BOILING)

    assert code == 1
    assert lines == [
        f"{BOILING}: not upgraded: run pytest-citations cassettes upgrade {BOILING}",
        "cassettes check: 1 cassette, no problem; 1 not upgraded",
    ]
