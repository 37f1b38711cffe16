"""A run's summary says how many recordings no case file needs any more, and names the
command that lists them (issue 27), in a run that covers every case file: not under a
selection (``-k``), not in one shard of several; under xdist once, from the controller.
Every run here replays with the gate named (``--citations-fail-on=contradicted``)."""

from __future__ import annotations

import re

import pytest
from plugin_helpers import BOILING_URL, CONTRADICTED_CLAIM, SUPPORTED_CLAIM, Citations

TWO_CLAIMS = f"""\
id: water
citations:
  1: {BOILING_URL}
claims:
  - text: {SUPPORTED_CLAIM}
    cites: [1]
  - text: {CONTRADICTED_CLAIM}
    cites: [1]
"""
ONE_CLAIM = TWO_CLAIMS.split(f"  - text: {CONTRADICTED_CLAIM}")[0]
GATE = "--citations-fail-on=contradicted"
LINE = re.compile(
    r"^2 stale recordings in 1 cassette \(\d+\.\d KB\): "
    r"pytest-citations cassettes prune cassettes/ lists them$"
)


def stale_lines(result: pytest.RunResult) -> list[str]:
    return [line for line in result.outlines if "stale recording" in line]


@pytest.fixture
def pruned_claim(citations: Citations) -> Citations:
    """A case file recorded with two claims, one of which it no longer holds."""
    citations.write("cases/water.yaml", TWO_CLAIMS)
    result, _ = citations.record("cases/", GATE, gate="args")
    assert result.ret == 1  # the contradicted claim fails the gate named
    citations.write("cases/water.yaml", ONE_CLAIM)
    return citations


def test_a_full_run_counts_the_stale_recordings_and_names_the_command(
    pruned_claim: Citations,
) -> None:
    result = pruned_claim.run("cases/", GATE, gate="args")

    assert result.ret == 0
    lines = stale_lines(result)
    assert len(lines) == 1
    assert LINE.match(lines[0]), lines[0]
    # It comes after the release decision, with the summary's next steps.
    assert result.outlines.index(lines[0]) > result.outlines.index("Release decision: pass")


def test_a_selection_or_one_shard_of_several_says_nothing(pruned_claim: Citations) -> None:
    # A second case file, so that each of two shards runs one.
    pruned_claim.write("cases/more.yaml", ONE_CLAIM.replace("id: water", "id: more"))
    pruned_claim.record("cases/more.yaml", GATE, gate="args")
    selected = pruned_claim.run("cases/", GATE, "-k", "claim-1", gate="args")
    shard = pruned_claim.run("cases/", GATE, "--citations-shard", "1/2", gate="args")
    whole = pruned_claim.run("cases/", GATE, "--citations-shard", "1/1", gate="args")

    assert stale_lines(selected) == []
    assert stale_lines(shard) == []
    assert LINE.match(stale_lines(whole)[0])


def test_under_xdist_the_controller_counts_once(pruned_claim: Citations) -> None:
    result = pruned_claim.run("cases/", GATE, "-n", "2", gate="args")

    assert result.ret == 0
    assert [bool(LINE.match(line)) for line in stale_lines(result)] == [True]


def test_nothing_stale_says_nothing_and_a_deleted_case_files_cassette_counts(
    citations: Citations,
) -> None:
    citations.write("cases/water.yaml", ONE_CLAIM)
    citations.write("cases/gone.yaml", ONE_CLAIM.replace("id: water", "id: gone"))
    citations.record("cases/", GATE, gate="args")

    assert stale_lines(citations.run("cases/", GATE, gate="args")) == []

    (citations.path / "cases/gone.yaml").unlink()
    lines = stale_lines(citations.run("cases/", GATE, gate="args"))
    assert len(lines) == 1
    assert lines[0].startswith("3 stale recordings in 1 cassette (")


def test_another_cassette_folder_is_named_in_the_command(citations: Citations) -> None:
    citations.write("cases/water.yaml", TWO_CLAIMS)
    citations.record("cases/", GATE, "--citations-cassette-dir=recordings", gate="args")
    citations.write("cases/water.yaml", ONE_CLAIM)

    lines = stale_lines(citations.run("cases/", GATE, "--citations-cassette-dir=recordings",
                                      gate="args"))

    assert lines[0].endswith(
        ": pytest-citations cassettes prune recordings/ --cassette-dir recordings lists them"
    )
