"""Under GitHub Actions the runner reads workflow commands in a step's whole output, not only
in the plugin's annotations: a line that holds ``##[`` anywhere (the older syntax) or that
starts with ``::``. A claim, a cited page's quote, a URL or a log record that holds one would
add a mask, plant a warning, or (``##[stop-commands]x``) silence every ``::error`` printed
after it. Every line the plugin prints that carries data is neutralised (a zero-width space
breaks the syntax; the text reads the same), so the runner carries out the plugin's own
annotations and nothing else (issue 24). The output is read as the runner reads it
(:mod:`actions_runner`)."""

from __future__ import annotations

import pytest
from actions_runner import parsed, processed
from ops_support import base_env, run_cli
from plugin_helpers import (
    BOILING_CASE,
    BOILING_URL,
    SUPPORTED_CLAIM,
    Citations,
    single_claim_case,
)

from pytest_citations.reports.github import neutralise

#: A cited URL (its fragment holds the older command syntax).
HOSTILE_URL = "https://hostile.example/boiling#from=##[warning]planted-in-a-url"
#: A cited URL the emulated web does not know: listed among the citations not verified.
DEAD_URL = "https://hostile.example/gone###[add-mask]planted-in-a-dead-url"
QUOTE = "Water boils at 100 °C at sea level ##[stop-commands]halt"
PAGE = f"# Boiling\n\n{QUOTE}\n\nOn mountains it boils at a lower temperature.\n"
CLAIM = "Water boils at 50 °C at sea level ##[add-mask]Citations"
#: An application's log record under a failing item (pytest prints it with the failure).
CONFTEST = """\
import logging

def pytest_runtest_setup(item):
    logging.getLogger("assistant").warning("answer: ##[warning]planted in a log record")
"""
#: A file name that starts with a command (pytest's own lines with -q never start with it).
NAMED = "::warning::planted-in-a-file-name"
#: The gate these scenarios use: the contradicted claims fail.
GATE = "--citations-fail-on=contradicted"


@pytest.fixture
def hostile(citations: Citations) -> Citations:
    """Two case files: one whose claim, cited URL, page (its quote) and log record hold
    commands; one that fails after it (its annotation must not be silenced)."""
    case = single_claim_case("hostile", CLAIM, HOSTILE_URL, DEAD_URL)
    quoted = case.replace(CLAIM, f'"{CLAIM}"')
    citations.write("cases/hostile.yaml", quoted)
    citations.write("cases/zz-boiling.yaml", BOILING_CASE)
    # A case file whose name starts with a command: the lines that start with its node id.
    citations.write(f"{NAMED}.yaml", single_claim_case("named", SUPPORTED_CLAIM, BOILING_URL))
    citations.write("conftest.py", CONFTEST)
    return citations


def run_hostile(citations: Citations, *args: str) -> pytest.RunResult:
    with citations.web() as web:
        web.crawlbase.add(HOSTILE_URL, markdown=PAGE)
        web.crawlbase.add(HOSTILE_URL.split("#", 1)[0], markdown=PAGE)
        web.judge.rule(CLAIM, label="contradicted", quote=QUOTE)
        citations.monkeypatch.setenv("GITHUB_ACTIONS", "true")
        return citations.run("--citations-record=once", GATE, *args, gate="args")  # every case file


@pytest.mark.parametrize("workers", ["0", "2"])
def test_the_runner_carries_out_the_plugins_annotations_and_nothing_else(
    hostile: Citations, workers: str
) -> None:
    result = run_hostile(hostile, "-q", "-n", workers, "-rA", "--log-level=WARNING")

    result.assert_outcomes(passed=5, failed=2)
    output = "\n".join(result.outlines + result.errlines)
    ran = processed(output)
    assert [command.name for command in ran] == ["error", "error"], [c.line for c in ran]
    files = [command.properties["file"] for command in ran]
    assert files == ["cases/hostile.yaml", "cases/zz-boiling.yaml"]
    assert parsed(output) == ran  # not a stop, a mask or a planted warning, even unprocessed
    # The text reads the same: each hostile piece is in the log, its syntax broken (the
    # annotations carry it whole: their data is no command).
    data = "\n".join(line for line in output.splitlines() if not line.startswith("::error "))
    pieces = (CLAIM, QUOTE, HOSTILE_URL, DEAD_URL, "answer: ##[warning]planted in a log record")
    for piece in pieces:
        assert neutralise(piece) in data, piece
        assert piece not in data, piece


def test_the_merge_of_shard_reports_prints_no_command(hostile: Citations) -> None:
    # pytest-citations merge prints the same report (node ids, URLs) in the gate's merge job.
    shard = run_hostile(hostile, "--citations-shard=1/1", "--citations-report=shard-1.json")
    shard.assert_outcomes(passed=5, failed=2)
    env = {**base_env(hostile.path), "GITHUB_ACTIONS": "true"}

    done = run_cli("merge", "shard-1.json", env=env, cwd=hostile.path)

    assert done.returncode == 1, done.stdout + done.stderr
    output = done.stdout + done.stderr
    assert neutralise(f"{NAMED}.yaml::named") in output
    assert neutralise(DEAD_URL) in output
    assert parsed(output) == []


def test_without_github_actions_the_output_is_left_as_it_is(hostile: Citations) -> None:
    with hostile.web() as web:
        web.crawlbase.add(HOSTILE_URL, markdown=PAGE)
        web.crawlbase.add(HOSTILE_URL.split("#", 1)[0], markdown=PAGE)
        web.judge.rule(CLAIM, label="contradicted", quote=QUOTE)
        result = hostile.run("cases/", "--citations-record=once", GATE, gate="args")

    result.assert_outcomes(passed=3, failed=2)
    assert QUOTE in result.stdout.str()
    assert "\u200b" not in result.stdout.str()


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("a ##[add-mask]x", "a ##\u200b[add-mask]x"),
        ("###[warning]x", "###\u200b[warning]x"),
        ("::warning::x", ":\u200b:warning::x"),
        ("  \t::error file=a::x", "  \t:\u200b:error file=a::x"),
        ("\u3000::error::x", "\u3000:\u200b:error::x"),
        ("one\r::error::two\r\n##[group]three", "one\r:\u200b:error::two\r\n##\u200b[group]three"),
        ("cases/x.yaml::case::claim-1 stays", "cases/x.yaml::case::claim-1 stays"),
    ],
)
def test_neutralise_breaks_every_command_the_runner_reads(text: str, expected: str) -> None:
    assert neutralise(text) == expected
    assert parsed(neutralise(text)) == []
    assert neutralise(text).replace("\u200b", "") == text
