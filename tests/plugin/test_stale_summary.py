"""A run's summary says how many recordings no case file needs any more, and names the
command that lists them (issue 27), in a run that covers every case file: not under a
selection (``-k``), not in one shard of several; under xdist once, from the controller.
Every run here replays with the gate named (``--citations-fail-on=contradicted``)."""

from __future__ import annotations

import re

import pytest
from ops_support import base_env, run_cli
from plugin_helpers import BOILING_URL, CONTRADICTED_CLAIM, RETURNS_URL, SUPPORTED_CLAIM, Citations

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


# The figure is prune's, or nothing (issue 25): the summary counts what the replay left
# unplayed, by the rules prune lists by, and says nothing where the replay cannot vouch.


def pruned(citations: Citations) -> str:
    """``cassettes prune``'s last line: its tally of the cassette folder."""
    done = run_cli("cassettes", "prune", "cassettes/", env=base_env(citations.path),
                   cwd=citations.path)  # fmt: skip
    return done.stdout.splitlines()[-1]


def figure(line: str) -> tuple[str, str]:
    """(recordings, size) of a summary's or a listing's tally."""
    found = re.search(r"(\d+) stale recordings? in (\d+) .*?\((\d+(?:\.\d)? (?:B|KB))\)", line)
    assert found is not None, line
    return found.group(1), found.group(3)


def test_the_figure_is_the_one_prune_lists(pruned_claim: Citations) -> None:
    pruned_claim.write("cases/gone.yaml", ONE_CLAIM.replace("id: water", "id: gone"))
    pruned_claim.record("cases/gone.yaml", GATE, gate="args")
    (pruned_claim.path / "cases/gone.yaml").unlink()

    lines = stale_lines(pruned_claim.run("cases/", GATE, gate="args"))

    assert len(lines) == 1
    assert lines[0].startswith("5 stale recordings in 2 cassettes (")
    assert figure(lines[0]) == figure(pruned(pruned_claim))


def test_a_claim_that_dropped_one_of_its_urls_leaves_the_figure_untold(
    citations: Citations,
) -> None:
    # Which of the claim's judge calls carry the dropped page's passages takes the recorded
    # pages to tell: prune reads them, the replay does not, and says nothing.
    two_urls = ONE_CLAIM.replace(f"  1: {BOILING_URL}", f"  1: {BOILING_URL}\n  2: {RETURNS_URL}")
    citations.write("cases/water.yaml", two_urls.replace("cites: [1]", "cites: [1, 2]"))
    citations.record("cases/", GATE, gate="args")
    citations.write("cases/water.yaml", ONE_CLAIM)

    result = citations.run("cases/", GATE, gate="args")

    assert result.ret == 0
    assert stale_lines(result) == []
    assert "stale recording" in pruned(citations)


def test_a_case_file_the_run_did_not_replay_is_told_from_its_files_as_prune_tells_it(
    pruned_claim: Citations,
) -> None:
    # Another case file of the folder, recorded with two claims, now holding one.
    pruned_claim.write("cases/more.yaml", TWO_CLAIMS.replace("id: water", "id: more"))
    pruned_claim.record("cases/more.yaml", GATE, gate="args")
    pruned_claim.write("cases/more.yaml", ONE_CLAIM.replace("id: water", "id: more"))

    alone = stale_lines(pruned_claim.run("cases/water.yaml", GATE, gate="args"))
    listed = pruned(pruned_claim)
    pruned_claim.write("cases/more.yaml", "id: more\nclaims: [\n")  # prune cannot read it
    broken = pruned_claim.run("cases/", GATE, gate="args")

    assert alone[0].startswith("4 stale recordings in 2 cassettes (")
    assert figure(alone[0]) == figure(listed)
    assert broken.ret != 0
    assert stale_lines(broken)[0].startswith("2 stale recordings in 1 cassette (")
    assert figure(stale_lines(broken)[0]) == figure(pruned(pruned_claim))


def test_extra_votes_a_replay_does_not_ask_are_not_stale(citations: Citations) -> None:
    # Identical calls: prune keeps them with the claim's other votes; the summary agrees.
    citations.write("cases/water.yaml", ONE_CLAIM)
    citations.record("cases/", GATE, "--citations-judge-votes=3", gate="args")

    result = citations.run("cases/", GATE, gate="args")

    assert result.ret == 0
    assert stale_lines(result) == []
    assert pruned(citations).endswith("nothing stale")


def test_a_recording_run_counts_what_it_did_not_play_unless_it_records_everything_anew(
    pruned_claim: Citations,
) -> None:
    # new_episodes keeps every recording it did not play where it was: counted, as prune
    # lists them; "all" writes the file anew from what it sent and what it kept, which is
    # not what it read, and says nothing.
    episodes, _ = pruned_claim.record("cases/", GATE, gate="args", mode="new_episodes")
    again, _ = pruned_claim.record("cases/", GATE, gate="args", mode="all")

    assert LINE.match(stale_lines(episodes)[0])
    assert stale_lines(again) == []
    assert "stale recording" in pruned(pruned_claim)


def test_a_cassette_at_the_top_of_the_folder_without_a_case_file_counts_whole(
    citations: Citations,
) -> None:
    # The cassette of a deleted case file that sat at the project's top (water.yaml records
    # into cassettes/water.yaml): stale whole, as prune lists it; the summary and the listing
    # once failed on it with a traceback (a top-level file has no test module to mirror).
    citations.write("cases/water.yaml", ONE_CLAIM)
    citations.record("cases/", GATE, gate="args")
    recorded = citations.path / "cassettes/cases/water.yaml"
    (citations.path / "cassettes/water.yaml").write_bytes(recorded.read_bytes())

    result = citations.run("cases/", GATE, gate="args")

    assert result.ret == 0
    assert "INTERNALERROR" not in result.stdout.str() + result.stderr.str()
    lines = stale_lines(result)
    assert len(lines) == 1
    assert lines[0].startswith("3 stale recordings in 1 cassette (")
    assert figure(lines[0]) == figure(pruned(citations))


def test_a_recording_played_for_another_claim_is_not_counted_as_unplayed(
    citations: Citations,
) -> None:
    # A conftest that stops matching judge requests on their body (test_hooks): an edited
    # claim replays the recorded call of the claim it was, which prune lists stale by its
    # name. The replay played it, so what it left unplayed is not prune's figure: the
    # summary says nothing rather than a smaller count.
    citations.pytester.makeconftest(
        """
        def pytest_citations_vcr(config, vcr):
            vcr.match_on = tuple(name for name in vcr.match_on if name != "body")
        """
    )
    citations.write("cases/water.yaml", TWO_CLAIMS)
    citations.record("cases/", GATE, gate="args")
    citations.write("cases/water.yaml", TWO_CLAIMS.replace(CONTRADICTED_CLAIM, "Water boils."))

    result = citations.run("cases/", GATE, gate="args")
    listed = pruned(citations)

    assert "request_refused" not in result.stdout.str()
    assert "stale recording" in listed
    lines = stale_lines(result)
    assert lines == [] or figure(lines[0]) == figure(listed), (lines, listed)


def test_a_hook_that_rewrites_what_requests_say_leaves_the_figure_untold(
    citations: Citations,
) -> None:
    # A conftest that scrubs a figure out of every request body as it is recorded (and as
    # each request is matched on replay): the recorded call of a claim the file holds names
    # the scrubbed claim, which prune, reading the file without the hook, tells stale by
    # name. The replay played it; the summary cannot give prune's figure, and says nothing.
    citations.pytester.makeconftest(
        """
        def pytest_citations_vcr(config, vcr):
            def scrub(request):
                if isinstance(request.body, bytes):
                    request.body = request.body.replace(b"100", b"[N]")
                return request
            vcr.before_record_request = scrub
        """
    )
    citations.write("cases/water.yaml", TWO_CLAIMS)
    citations.record("cases/", GATE, gate="args")
    citations.write("cases/water.yaml", ONE_CLAIM)

    result = citations.run("cases/", GATE, gate="args")
    listed = pruned(citations)

    assert result.ret == 0
    assert "stale recording" in listed
    lines = stale_lines(result)
    assert lines == [] or figure(lines[0]) == figure(listed), (lines, listed)


def test_a_case_file_with_a_number_too_long_to_read_is_an_error_not_a_traceback(
    pruned_claim: Citations,
) -> None:
    # A pull request can edit a case file whose cassette exists: an integer of 5,000 digits
    # is past what Python converts, and PyYAML raised ValueError. The run's stale count,
    # which reads the case files the run did not replay, failed with an INTERNALERROR, and
    # prune with a traceback; the file is a collection error with its line instead.
    pruned_claim.write("cases/more.yaml", ONE_CLAIM.replace("id: water", "id: more"))
    pruned_claim.record("cases/more.yaml", GATE, gate="args")
    pruned_claim.write("cases/more.yaml", "id: 1" + "0" * 5000 + "\nclaims: []\n")

    result = pruned_claim.run("cases/", GATE, gate="args")

    assert result.ret not in (0, pytest.ExitCode.INTERNAL_ERROR)
    assert result.parseoutcomes()["errors"] == 1  # the run's last line, which it reached
    result.stdout.fnmatch_lines(["*cases/more.yaml:1: a number this long cannot be read*"])
    assert figure(stale_lines(result)[0]) == figure(pruned(pruned_claim))
