"""A run that cannot find its cassette folder (issue 24): a mistyped
``--citations-cassette-dir`` read "57 claims are new since the recording: record them with …",
and a CI run with secrets in ``new_episodes`` would have recorded the whole suite again. A
replay (``none``) and ``new_episodes`` are a usage error naming the folder's absolute path,
before anything is sent (``new_episodes`` starts the default ``cassettes/``, which cannot be
mistyped); ``once``, ``all`` and ``rewrite``, which record every cassette they lack, start
the folder (a first recording). Gate: ``contradicted`` where a run gets that far (named in
each run)."""

from __future__ import annotations

import pytest
from plugin_helpers import BOILING_URL, SUPPORTED_CLAIM, Citations, single_claim_case

WATER = single_claim_case("water", SUPPORTED_CLAIM, BOILING_URL)
GATE = "--citations-fail-on=contradicted"


@pytest.fixture
def recorded(citations: Citations) -> Citations:
    citations.write("cases/water.yaml", WATER)
    citations.record("cases/", gate="default")[0].assert_outcomes(passed=2)
    return citations


def test_a_replay_from_a_mistyped_folder_names_its_absolute_path(recorded: Citations) -> None:
    result = recorded.run("cases/", GATE, "--citations-cassette-dir=casettes", gate="args")

    assert result.ret == pytest.ExitCode.USAGE_ERROR
    folder = (recorded.path / "casettes").resolve()
    output = result.stdout.str() + result.stderr.str()
    assert f"the cassette folder {folder} does not exist: a replay has no recording" in output
    assert "new since the recording" not in output
    assert not (recorded.path / "casettes").exists()


def test_new_episodes_into_a_missing_folder_sends_nothing(recorded: Citations) -> None:
    with recorded.web() as web:
        result = recorded.run(
            "cases/", GATE, "--citations-record=new_episodes", "--citations-cassette-dir=casettes",
            gate="args"
        )

    assert result.ret == pytest.ExitCode.USAGE_ERROR
    folder = (recorded.path / "casettes").resolve()
    result.stderr.fnmatch_lines([
        f"*the cassette folder {folder} does not exist: --citations-record=new_episodes "
        "records only what a recording lacks*"
    ])  # fmt: skip
    assert web.requests == 0
    assert not folder.exists()


def test_an_ordinary_test_replaying_from_a_missing_folder_is_an_error(
    citations: Citations,
) -> None:
    citations.write(
        "test_answers.py",
        """
        def test_boils(citation_verifier):
            citation_verifier.verify("Water boils at 100 °C.", ["https://example.org/x"])
        """,
    )

    result = citations.run_tests("test_answers.py", "--citations-cassette-dir=nowhere")

    output = result.stdout.str() + result.stderr.str()
    assert f"the cassette folder {(citations.path / 'nowhere').resolve()} does not exist" in (
        output
    )
    assert result.ret != 0


@pytest.mark.parametrize("mode", ["once", "rewrite"])
def test_a_first_recording_starts_the_folder(citations: Citations, mode: str) -> None:
    citations.write("cases/water.yaml", WATER)

    result, _ = citations.record("cases/", GATE, "--citations-cassette-dir=recordings", mode=mode,
                                 gate="args")

    result.assert_outcomes(passed=2)
    assert (citations.path / "recordings" / "cases" / "water.yaml").is_file()


def test_new_episodes_starts_the_default_folder(citations: Citations) -> None:
    (citations.path / "cassettes").rmdir()
    citations.write("cases/water.yaml", WATER)

    result, _ = citations.record("cases/", GATE, mode="new_episodes", gate="args")

    result.assert_outcomes(passed=2)
    assert citations.cassette("cases/water.yaml").is_file()
