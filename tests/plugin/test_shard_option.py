"""``--citations-shard K/N``: each of N runners runs shard K, whole case files shared out by
their paths; the items of the other shards are deselected (pytest counts them, the
selection line does not); the JSON report records the shard and the run's files for a
merge; a shard with no file of its own passes with its report; bad values are usage
errors."""

from __future__ import annotations

import json

import pytest
from plugin_helpers import (
    BOILING_CASE,
    BOILING_URL,
    CONTRADICTED_CLAIM,
    NINE_CASE,
    REFUNDS_CLAIM,
    REFUNDS_URL,
    RETURNS_CASE,
    SUPPORTED_CLAIM,
    Citations,
    claims_by_nodeid,
    load_report,
    single_claim_case,
)

from pytest_citations.gating.shards import Shard, ShardPlan

CASE_FILES = {
    "cases/boiling.yaml": BOILING_CASE,
    "cases/returns.yaml": RETURNS_CASE,
    "cases/nine.yaml": NINE_CASE,
    "cases/water.yaml": single_claim_case("water", SUPPORTED_CLAIM, BOILING_URL),
    "cases/mountains.yaml": single_claim_case("mountains", CONTRADICTED_CLAIM, BOILING_URL),
    "cases/refunds.yaml": single_claim_case("refunds", REFUNDS_CLAIM, REFUNDS_URL),
}


@pytest.fixture
def project(citations: Citations) -> Citations:
    """Six case files, recorded."""
    for path, text in CASE_FILES.items():
        citations.write(path, text)
    recorded, _ = citations.record("cases/", gate="contradicted")
    assert recorded.ret == pytest.ExitCode.TESTS_FAILED  # two contradicted claims
    return citations


def shard_run(
    citations: Citations, shard: str, *args: str, gate: str
) -> tuple[pytest.RunResult, dict]:
    name = f"shard-{shard.replace('/', '-')}.json"
    result = citations.run(
        "cases/", "--citations-shard", shard, "--citations-report", name, *args, gate=gate
    )
    return result, load_report(citations.path / name)


@pytest.mark.parametrize(
    ("value", "said"),
    [
        ("0/3", "--citations-shard 0/3: K must be from 1 to N (shard K of N), got '0/3'"),
        ("4/3", "--citations-shard 4/3: K must be from 1 to N (shard K of N), got '4/3'"),
        ("x", "--citations-shard must be K/N, like 2/3 (shard K of N), got 'x'"),
        ("3", "--citations-shard must be K/N, like 2/3 (shard K of N), got '3'"),
        # Numbers past Python's 4300 digits were a traceback; a count in the billions
        # would hash every file a billion times (issue 24).
        ("1/" + "9" * 5000, "--citations-shard must be K/N, like 2/3 (shard K of N), got '1/999*"),
        ("1/1000000000", "--citations-shard 1/1000000000: N must be at most 1000*"),
    ],
    ids=["zero", "past-n", "word", "no-n", "digits", "billions"],
)
def test_a_shard_that_is_not_k_of_n_is_a_usage_error(
    citations: Citations, value: str, said: str
) -> None:
    citations.write("cases/water.yaml", CASE_FILES["cases/water.yaml"])

    result = citations.run("cases/", f"--citations-shard={value}", gate="default")

    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"ERROR: {said}"])


def test_a_shard_needs_the_plugin_turned_on(citations: Citations) -> None:
    result = citations.run_plain("--citations-shard=1/2")

    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--citations-shard needs --citations*"])


def test_every_case_file_runs_on_exactly_one_shard_and_the_others_are_deselected(
    project: Citations,
) -> None:
    serial = project.run("cases/", "--citations-report", "serial.json", gate="default")
    ran: dict[str, set[str]] = {}
    for k in (1, 2, 3):
        result, report = shard_run(project, f"{k}/3", gate="default")
        outcomes = result.parseoutcomes()
        assert outcomes.get("deselected", 0) > 0  # pytest's own count, as -m deselects
        assert "left out" not in result.stdout.str()  # not the user's selection
        result.stdout.fnmatch_lines([f"citations: *shard={k}/3*"])
        shard = report["run"]["shard"]
        assert (shard["index"], shard["count"], shard["run_files"]) == (k, 3, 6)
        assert sorted({case["file"] for case in report["cases"]}) == shard["files"]
        assert len(shard["files"]) == 2  # six files, three shards
        result.stdout.fnmatch_lines(
            [f"shard {k}/3: 2 files of 6 ran here; the decision above covers them only*"]
        )
        ran[f"{k}/3"] = set(claims_by_nodeid(report))

    every = [nodeid for claims in ran.values() for nodeid in claims]
    assert len(every) == len(set(every))  # no claim ran twice
    assert set(every) == set(claims_by_nodeid(load_report(project.path / "serial.json")))
    assert "shard" not in load_report(project.path / "serial.json")["run"]
    assert serial.ret == pytest.ExitCode.TESTS_FAILED


def test_the_shards_follow_the_documented_plan_of_the_file_paths(project: Citations) -> None:
    plan = ShardPlan.of(Shard(2, 3), CASE_FILES)

    _, report = shard_run(project, "2/3", gate="default")

    assert report["run"]["shard"]["files"] == plan.files
    assert report["run"]["shard"]["run_digest"] == plan.to_dict()["run_digest"]


def test_a_shard_with_no_file_of_its_own_passes_and_writes_its_report(
    citations: Citations,
) -> None:
    citations.write("cases/water.yaml", CASE_FILES["cases/water.yaml"])
    citations.record("cases/", gate="default")
    empty = "2/2" if ShardPlan.of(Shard(1, 2), ["cases/water.yaml"]).files else "1/2"

    result, report = shard_run(citations, empty, gate="default")

    assert result.ret == pytest.ExitCode.OK
    assert report["cases"] == []
    assert report["run"]["shard"]["files"] == []
    assert report["run"]["shard"]["run_files"] == 1
    result.stdout.fnmatch_lines([f"shard {empty}: 0 files of 1 ran here*"])


def test_a_broken_case_file_is_reported_by_the_one_shard_it_belongs_to(
    citations: Citations,
) -> None:
    citations.write("cases/water.yaml", CASE_FILES["cases/water.yaml"])
    citations.write("cases/refunds.yaml", CASE_FILES["cases/refunds.yaml"])
    citations.write("cases/broken.yaml", "id: broken\nclaims:\n  - text: [unclosed\n")
    citations.record("cases/water.yaml", "cases/refunds.yaml", gate="default")
    plan = ShardPlan.of(Shard(1, 2), ["cases/water.yaml", "cases/refunds.yaml",
                                      "cases/broken.yaml"])  # fmt: skip
    owner = 1 if plan.owns("cases/broken.yaml") else 2

    found = {k: shard_run(citations, f"{k}/2", gate="default") for k in (1, 2)}

    for k, (result, report) in found.items():
        not_verified = report["summary"]["not_verified"]
        if k == owner:
            assert list(not_verified) == ["cases/broken.yaml"]
            assert report["run"]["decision"] == "incomplete"
            assert result.ret == pytest.ExitCode.TESTS_FAILED
        else:
            assert not_verified == {}
            assert "broken" not in json.dumps(report["cases"])


def test_a_shard_lists_only_its_own_unused_baseline_entries(project: Citations) -> None:
    baseline = project.path / "baseline.json"
    project.run("cases/", "--citations-baseline", "baseline.json", "--citations-update-baseline",
                gate="default")
    data = json.loads(baseline.read_text(encoding="utf-8"))
    data["claims"]["cases/deleted.yaml::deleted::claim-1"] = {
        "claim": "Gone.",
        "label": "supported",
    }
    baseline.write_text(json.dumps(data), encoding="utf-8")

    unused = {
        k: [line for line in shard_run(project, f"{k}/3", "--citations-baseline",
                                        "baseline.json",
                                        gate="default")[0].outlines if "unused: " in line]
        for k in (1, 2, 3)
    }  # fmt: skip

    assert sorted(len(lines) for lines in unused.values()) == [0, 0, 1]
    assert [line for lines in unused.values() for line in lines] == [
        "  unused: cases/deleted.yaml::deleted::claim-1"
    ]


def test_under_xdist_a_shard_records_its_files_from_the_workers(project: Citations) -> None:
    result, report = shard_run(project, "1/2", "-n", "2", gate="contradicted")

    shard = report["run"]["shard"]
    assert shard["files"] == ShardPlan.of(Shard(1, 2), CASE_FILES).files
    assert sorted({case["file"] for case in report["cases"]}) == shard["files"]
    result.assert_outcomes(passed=8)  # claims and precision items of its three files


def test_a_shard_records_only_its_own_files(citations: Citations) -> None:
    """A runner pays for its shard only: the other shards' files are not verified ahead,
    fetched or judged."""
    for path, text in CASE_FILES.items():
        citations.write(path, text)
    plan = ShardPlan.of(Shard(1, 3), CASE_FILES)

    result, web = citations.record("cases/", "--citations-shard=1/3", gate="default")

    written = sorted(
        str(path.relative_to(citations.path / "cassettes"))
        for path in (citations.path / "cassettes").rglob("*.yaml")
    )
    assert written == plan.files
    assert web.requests > 0
    result.stdout.fnmatch_lines(["shard 1/3: 2 files of 6 ran here*"])
