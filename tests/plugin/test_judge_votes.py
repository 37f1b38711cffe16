"""``--citations-judge-votes N`` (ini ``citations_judge_votes``): each claim–URL pair is
judged N times when recording, every call is recorded, and a replay gives each vote the
answer it had, offline; a replay asked for another N than the recording holds is an error
naming both."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from light_env import strip_choices
from ops_support import base_env, run_cli
from plugin_helpers import (
    BOILING_URL,
    REFUNDS_CLAIM,
    REFUNDS_URL,
    SUPPORTED_CLAIM,
    Citations,
    claims_by_nodeid,
    interactions,
    load_report,
    single_claim_case,
)
from test_readme import DOCS, ELISION, assert_printed, code_blocks, readme_section

WATER = single_claim_case("water", SUPPORTED_CLAIM, BOILING_URL)
VOTES = ["supported", "contradicted", "supported"]
NODE = "cases/water.yaml::water::claim-1"


def judge_calls(cassette: Path) -> list[dict[str, Any]]:
    """The judge interactions of a cassette, in the order they were recorded."""
    return [i for i in interactions(cassette) if i["request"]["method"] == "POST"]


def answered(interaction: dict[str, Any]) -> str:
    """The label a recorded OpenAI answer carries."""
    body = json.loads(interaction["response"]["body"]["string"])
    label: str = json.loads(body["choices"][0]["message"]["content"])["label"]
    return label


def citation_of(report: Path, node: str = NODE) -> dict[str, Any]:
    found: dict[str, Any] = claims_by_nodeid(load_report(report))[node]["citations"][0]
    return found


def record(
    citations: Citations, labels: list[str], *args: str, claim: str = SUPPORTED_CLAIM
) -> tuple[pytest.RunResult, Any]:
    """Record ``cases/`` with the judge answering ``claim`` with ``labels`` in turn."""
    with citations.web() as web:
        web.judge.rule(claim, labels=labels)
        result = citations.run("cases/", *args, gate="default")
    return result, web


@pytest.fixture
def recorded(citations: Citations) -> Citations:
    """``cases/water.yaml`` recorded with three votes: supported, contradicted, supported."""
    citations.write("cases/water.yaml", WATER)
    result, web = record(
        citations,
        VOTES,
        "--citations-record=once",
        "--citations-judge-votes",
        "3",
        "--citations-report",
        "recorded.json",
    )
    result.assert_outcomes(passed=2)
    assert [call.label for call in web.judge.calls] == VOTES
    return citations


def test_every_vote_is_recorded_in_call_order(recorded: Citations) -> None:
    cassette = recorded.cassette("cases/water.yaml")

    calls = judge_calls(cassette)

    assert len(calls) == 3
    assert len({call["request"]["body"] for call in calls}) == 1  # identical requests
    assert [answered(call) for call in calls] == VOTES
    # The retrieval section notes the votes beside the passages they were asked about.
    section = yaml.safe_load(cassette.read_text(encoding="utf-8"))["retrieval"]
    assert [entry.get("votes") for entry in section] == [3]
    citation = citation_of(recorded.path / "recorded.json")
    assert (citation["label"], citation["votes"], citation["agreed"]) == ("supported", VOTES, False)


def test_a_replay_gives_each_vote_its_recorded_answer_offline(recorded: Citations) -> None:
    # No emulator runs and no token is set: a request would fail the claim.
    result = recorded.run("cases/", "--citations-report", "replayed.json", gate="default")

    result.assert_outcomes(passed=2)
    assert citation_of(recorded.path / "replayed.json") == citation_of(
        recorded.path / "recorded.json"
    )
    assert "replayed: 1 crawl (1.5 credits saved), 3 judge calls" in result.stdout.str()


def test_the_reports_show_the_votes_and_flag_a_split_judge(recorded: Citations) -> None:
    result = recorded.run("cases/", "--citations-html", "report.html", gate="default")

    result.stdout.fnmatch_lines(
        [
            "judge disagreed with itself on 1 citation:",
            f"  {NODE}: supported (votes supported, contradicted, supported) {BOILING_URL}",
        ]
    )
    # The CI gate's page shows these lines.
    [shown] = [
        block
        for block in code_blocks(readme_section("Release gating", DOCS / "ci-gate.md"))
        if block.text.startswith("judge disagreed")
    ]
    assert_printed([ELISION, *shown.lines, ELISION], result.outlines)
    page = (recorded.path / "report.html").read_text(encoding="utf-8")
    assert "votes supported, contradicted, supported (the judge disagreed with itself)" in page


def test_votes_that_agree_are_not_flagged(citations: Citations) -> None:
    citations.write("cases/water.yaml", WATER)

    result, _ = record(
        citations,
        ["supported"],
        "--citations-record=once",
        "--citations-judge-votes=3",
        "--citations-report=out.json",
    )

    result.assert_outcomes(passed=2)
    assert "disagreed" not in result.stdout.str()
    citation = citation_of(citations.path / "out.json")
    assert (citation["votes"], citation["agreed"]) == (["supported"] * 3, True)


@pytest.mark.parametrize("asked", ["1", "5"])
def test_a_replay_asked_for_another_number_of_votes_names_both(
    recorded: Citations, asked: str
) -> None:
    result = recorded.run("cases/", "-rE", "--citations-judge-votes", asked, gate="default")

    result.assert_outcomes(passed=1, errors=1)
    result.stdout.fnmatch_lines(
        [
            "*it asked the judge with --citations-judge-votes 3, and this run asks for "
            f"{asked}: drop the option*record it with: *--citations-record=new_episodes*"
        ]
    )


def test_the_recorded_number_given_explicitly_replays(recorded: Citations) -> None:
    recorded.pytester.makeini("[pytest]\ncitations_judge_votes = 3\n")

    result = recorded.run("cases/", gate="default")

    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(["citations: * judge_votes=3*"])


def test_a_tie_goes_to_the_stricter_label(citations: Citations) -> None:
    citations.write("cases/water.yaml", WATER)

    result, web = record(
        citations,
        ["supported", "contradicted"],
        "--citations-record=once",
        "--citations-judge-votes",
        "2",
        "--citations-report",
        "out.json",
    )

    assert web.judge.call_count == 2
    result.assert_outcomes(passed=1, failed=1)
    citation = citation_of(citations.path / "out.json")
    assert (citation["label"], citation["votes"]) == ("contradicted", ["supported", "contradicted"])


def test_one_vote_by_default_records_one_call(citations: Citations) -> None:
    citations.write("cases/water.yaml", WATER)

    result, web = record(citations, VOTES, "--citations-record=once", "--citations-report=o.json")

    result.assert_outcomes(passed=2)
    assert web.judge.call_count == 1
    assert len(judge_calls(citations.cassette("cases/water.yaml"))) == 1
    assert "votes" not in citations.cassette("cases/water.yaml").read_text(encoding="utf-8")
    citation = citation_of(citations.path / "o.json")
    assert "votes" not in citation
    assert "agreed" not in citation


def test_new_episodes_records_every_vote_of_a_new_claim(recorded: Citations) -> None:
    """Identical requests recorded in this run are not replayed to the next vote: each is
    sent, and recorded, in turn."""
    recorded.write(
        "cases/water.yaml",
        WATER.replace("claims:", f"  2: {REFUNDS_URL}\nclaims:")
        + f"  - text: {REFUNDS_CLAIM}\n    cites: [2]\n",
    )
    cassette = recorded.cassette("cases/water.yaml")

    result, web = record(
        recorded,
        VOTES,
        "--citations-record=new_episodes",
        "--citations-judge-votes",
        "3",
        claim=REFUNDS_CLAIM,
    )

    result.assert_outcomes(passed=3)
    assert [call.claim for call in web.judge.calls] == [REFUNDS_CLAIM] * 3
    assert [call.label for call in web.judge.calls] == VOTES
    refunds = [call for call in judge_calls(cassette) if REFUNDS_CLAIM in call["request"]["body"]]
    assert [answered(call) for call in refunds] == VOTES
    replayed = recorded.run("cases/", "--citations-report", "replayed.json", gate="default")
    replayed.assert_outcomes(passed=3)
    citation = citation_of(recorded.path / "replayed.json", "cases/water.yaml::water::claim-2")
    assert citation["votes"] == VOTES


def test_votes_shared_by_two_case_files_are_written_into_both(citations: Citations) -> None:
    """One claim–URL pair in two case files is judged once per vote in the run, and each
    cassette holds every vote, so that each file replays alone."""
    citations.write("cases/a.yaml", WATER.replace("id: water", "id: a"))
    citations.write("cases/b.yaml", WATER.replace("id: water", "id: b"))

    result, web = record(citations, VOTES, "--citations-record=once", "--citations-judge-votes=3")

    result.assert_outcomes(passed=4)
    assert web.judge.call_count == 3
    for name in ("a", "b"):
        calls = judge_calls(citations.cassette(f"cases/{name}.yaml"))
        assert [answered(call) for call in calls] == VOTES, name
        alone = citations.run(f"cases/{name}.yaml", "--citations-report", f"{name}.json",
                              gate="default")
        alone.assert_outcomes(passed=2)
        node = f"cases/{name}.yaml::{name}::claim-1"
        assert citation_of(citations.path / f"{name}.json", node)["votes"] == VOTES


@pytest.mark.parametrize("value", ["0", "two"])
def test_judge_votes_must_be_a_whole_number_of_at_least_one(
    citations: Citations, value: str
) -> None:
    citations.write("cases/water.yaml", WATER)

    result = citations.run("cases/", "--citations-judge-votes", value, gate="default")

    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--citations-judge-votes must be*"])


# A replay is the recording, all of it (issue 24) ------------------------------------------
SPLIT = ["supported", "contradicted", "contradicted"]


@pytest.fixture
def split(citations: Citations) -> Citations:
    """``cases/water.yaml`` recorded with three votes: supported, contradicted, contradicted
    (the claim is contradicted)."""
    citations.write("cases/water.yaml", WATER)
    result, _ = record(citations, SPLIT, "--citations-record=once", "--citations-judge-votes=3")
    result.assert_outcomes(passed=1, failed=1)
    return citations


def edit_cassette(citations: Citations, old: str, new: str) -> None:
    cassette = citations.cassette("cases/water.yaml")
    text = cassette.read_text(encoding="utf-8")
    assert text.count(old) == 1, old
    cassette.write_text(text.replace(old, new), encoding="utf-8")


def test_without_its_votes_field_a_replay_still_plays_every_recorded_vote(split: Citations) -> None:
    edit_cassette(split, "  votes: 3\n", "")

    result = split.run("cases/", "--citations-fail-on=contradicted", "--citations-report=r.json",
                       gate="args")

    result.assert_outcomes(passed=1, failed=1)  # contradicted, as recorded: never a pass
    citation = citation_of(split.path / "r.json")
    assert (citation["label"], citation["votes"]) == ("contradicted", SPLIT)


def test_a_votes_field_that_disagrees_with_the_recording_is_an_error(split: Citations) -> None:
    edit_cassette(split, "  votes: 3\n", "  votes: 1\n")

    result = split.run(
        "cases/", "-rE", "--citations-fail-on=contradicted", "--citations-report=r.json",
        gate="args"
    )

    result.assert_outcomes(passed=1, errors=1)
    result.stdout.fnmatch_lines([
        f"*cassettes/cases/water.yaml cannot replay the claim {SUPPORTED_CLAIM!r} against "
        f"{BOILING_URL}: its retrieval entry says votes: 1, and the recording holds 3 judge "
        "calls for it*"
    ])  # fmt: skip
    citation = citation_of(split.path / "r.json")
    assert citation["reason"] == "request_refused"
    assert "votes" not in citation


def test_a_duplicate_votes_key_is_an_error_naming_the_file_and_line(split: Citations) -> None:
    edit_cassette(split, "  votes: 3\n", "  votes: 3\n  votes: 1\n")

    result = split.run("cases/", "--citations-fail-on=contradicted", gate="args")

    assert result.ret != 0
    result.stdout.fnmatch_lines([
        "*cassette cassettes/cases/water.yaml cannot be read: the key 'votes' at line * is "
        "given twice in one mapping*"
    ])  # fmt: skip
    assert "passed" not in result.stdout.lines[-1]


def test_a_second_entry_for_the_same_claim_is_an_error(split: Citations) -> None:
    cassette = split.cassette("cases/water.yaml")
    data = yaml.safe_load(cassette.read_text(encoding="utf-8"))
    entry = copy.deepcopy(data["retrieval"][0])
    entry.pop("votes")
    data["retrieval"].append(entry)
    cassette.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")

    result = split.run("cases/", "--citations-fail-on=contradicted", gate="args")

    assert result.ret != 0
    result.stdout.fnmatch_lines([
        "*cassette cassettes/cases/water.yaml cannot be read: retrieval choices 1 and 2 are "
        f"both for the claim {SUPPORTED_CLAIM!r} against {BOILING_URL}*"
    ])  # fmt: skip


def test_recorded_votes_left_unplayed_are_an_error(split: Citations) -> None:
    """The first recorded answer made unusable: the asking stops there, and the two calls
    after it must not be silently left over."""
    cassette = split.cassette("cases/water.yaml")
    data = yaml.safe_load(cassette.read_text(encoding="utf-8"))
    first = judge_calls(cassette)[0]
    at = data["interactions"].index(first)
    data["interactions"][at]["response"]["body"]["string"] = '{"choices": []}'
    cassette.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")

    result = split.run("cases/", "-rE", "--citations-fail-on=contradicted", gate="args")

    result.assert_outcomes(passed=1, errors=1)
    result.stdout.fnmatch_lines([
        f"*cassettes/cases/water.yaml cannot replay the claim {SUPPORTED_CLAIM!r} against "
        f"{BOILING_URL}: the recording holds 3 judge calls for it, and 2 of them were left "
        "unplayed*"
    ])  # fmt: skip


def test_an_upgrade_of_a_voted_cassette_without_its_section_keeps_every_vote(
    citations: Citations,
) -> None:
    citations.write("cases/water.yaml", WATER)
    record(citations, SPLIT, "--citations-record=once", "--citations-judge-votes=3")
    cassette = citations.cassette("cases/water.yaml")
    strip_choices(cassette)

    run = run_cli("cassettes", "upgrade", "cassettes/", env=base_env(citations.path),
                  cwd=citations.path)  # fmt: skip

    assert run.returncode == 0, run.stdout + run.stderr
    section = yaml.safe_load(cassette.read_text(encoding="utf-8"))["retrieval"]
    assert [entry.get("votes") for entry in section] == [3]
    result = citations.run(
        "cases/", "--citations-fail-on=contradicted", "--citations-report=r.json", gate="args"
    )
    result.assert_outcomes(passed=1, failed=1)
    assert citation_of(citations.path / "r.json")["votes"] == SPLIT
