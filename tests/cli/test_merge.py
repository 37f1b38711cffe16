"""``pytest-citations merge REPORT.json…``: the shard reports of one run merged into one run's
reports, decided again from every claim. Three shards merged give the JSON report of one
serial run over the same cases and cassettes (its decision, precision, labels and the
regressions against a base), the same summary and the same JUnit outcomes; the run's own
gates are decided over every claim, never added up from the shards'; a missing or repeated
shard, shards of different counts and shards of runs made otherwise are errors naming the
file."""

from __future__ import annotations

import copy
import json
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
import yaml
from ops_support import COMMAND, base_env, run_cli
from plugin_helpers import (
    BOILING_CASE,
    BOILING_URL,
    CONTRADICTED_CLAIM,
    NINE_CASE,
    NOT_FOUND_CLAIM,
    REFUNDS_CLAIM,
    REFUNDS_URL,
    RETURNS_CASE,
    RETURNS_URL,
    SUPPORTED_CLAIM,
    Citations,
    load_report,
    single_claim_case,
)
from test_readme import (
    DOCS,
    ROOT,
    assert_printed,
    code_blocks,
    commands,
    readme_section,
    run_readme_command,
)
from test_workflows import commands as workflow_commands
from test_workflows import flags, help_options, pytest_arguments, spelling

from pytest_citations.cli.merge import DISAGREEING

CASE_FILES = {
    "cases/boiling.yaml": BOILING_CASE,
    "cases/returns.yaml": RETURNS_CASE,
    "cases/nine.yaml": NINE_CASE,
    "cases/water.yaml": single_claim_case("water", SUPPORTED_CLAIM, BOILING_URL),
    "cases/refunds.yaml": single_claim_case("refunds", REFUNDS_CLAIM, REFUNDS_URL),
    "cases/software.yaml": single_claim_case("software", NOT_FOUND_CLAIM, RETURNS_URL),
}
#: What differs between one run's report and another's of the same results.
RUN_OF_ITS_OWN = ("run_id", "started", "shard", "merged")
GATES = ("--citations-compare", "base.json", "--citations-fail-on-regression",
         "--citations-max-precision-drop", "0.05")  # fmt: skip


def without_identity(report: dict[str, Any]) -> dict[str, Any]:
    found = copy.deepcopy(report)
    for key in RUN_OF_ITS_OWN:
        found["run"].pop(key, None)
    return found


def merge(citations: Citations, *args: str) -> Any:
    return run_cli("merge", *args, env=base_env(citations.path), cwd=citations.path)


def shards(citations: Citations, count: int, *args: str, gate: str) -> list[pytest.RunResult]:
    return [
        citations.run("cases/", f"--citations-shard={k}/{count}", "--citations-report",
                      f"shard-{k}.json", *args, gate=gate)
        for k in range(1, count + 1)
    ]  # fmt: skip


@pytest.fixture
def changed(citations: Citations) -> Citations:
    """Six case files recorded and run once for a base report; then the pull request: the
    water case now says the contradicted thing, the returns case lost its last claim, and a
    new case came: recorded again (only what is new)."""
    for path, text in CASE_FILES.items():
        citations.write(path, text)
    citations.record("cases/", gate="default")
    citations.run("cases/", "--citations-report", "base.json", gate="default")
    citations.write("cases/water.yaml", single_claim_case("water", CONTRADICTED_CLAIM,
                                                          BOILING_URL))  # fmt: skip
    citations.write("cases/returns.yaml", RETURNS_CASE[: RETURNS_CASE.index("  - text: Opened")])
    citations.write("cases/mountains.yaml", single_claim_case("mountains", SUPPORTED_CLAIM,
                                                              BOILING_URL))  # fmt: skip
    citations.record("cases/", mode="new_episodes", gate="default")
    return citations


def test_three_shards_merged_are_the_serial_run(changed: Citations) -> None:
    serial = changed.run("cases/", "--citations-report", "serial.json", "--junitxml",
                         "serial.xml", *GATES, gate="default")  # fmt: skip
    results = shards(changed, 3, *GATES, gate="default")

    merged = merge(changed, "shard-1.json", "shard-2.json", "shard-3.json", "--report",
                   "merged.json", "--junitxml", "merged.xml", "--html", "merged.html",
                   "--compare", "base.json")  # fmt: skip

    expected = load_report(changed.path / "serial.json")
    found = load_report(changed.path / "merged.json")
    assert without_identity(found) == without_identity(expected)
    # ... the decision, precision, labels and regressions among them:
    assert found["run"]["decision"] == expected["run"]["decision"] == "fail"
    assert found["summary"]["citation_precision"] == expected["summary"]["citation_precision"]
    assert [r["nodeid"] for r in found["comparison"]["regressions"]] == [
        "cases/water.yaml::water::claim-1"
    ]
    assert merged.returncode == serial.ret == pytest.ExitCode.TESTS_FAILED
    assert [shard["index"] for shard in found["run"]["merged"]] == [1, 2, 3]
    assert {shard["run_id"] for shard in found["run"]["merged"]} == {
        load_report(changed.path / f"shard-{k}.json")["run"]["run_id"] for k in (1, 2, 3)
    }
    assert all(result.ret in (0, 1) for result in results)
    printed = merged.stdout.splitlines()[1:]
    assert section(serial.outlines) == [line for line in printed if "citations report" not in line]
    assert merged.stdout.splitlines()[0] == "merged 3 shard reports of one run (3 shards, 7 files)"
    assert outcomes(changed.path / "merged.xml") == outcomes(changed.path / "serial.xml")
    assert "Regressions against base.json" in (changed.path / "merged.html").read_text("utf-8")


def section(lines: list[str]) -> list[str]:
    """The ``citations`` section of a pytest run, without the line naming its report, nor
    the one counting the checkout's stale recordings (its cassette folder's upkeep, which a
    merge of reports cannot see, issue 27)."""
    start = next(n for n, line in enumerate(lines) if "= citations =" in line) + 1
    end = next(n for n, line in enumerate(lines) if line.startswith(("=", "_")) and n >= start)
    return [
        line
        for line in lines[start:end]
        if not line.startswith("citations report: ") and " stale recording" not in line
    ]


def outcomes(path: Path) -> dict[tuple[str, str], str]:
    """Each JUnit test case's outcome (``passed``, ``failure``, ``error``, ``skipped``)."""
    found = {}
    for case in ET.parse(path).getroot().iter("testcase"):
        tags = [child.tag for child in case if child.tag in ("failure", "error", "skipped")]
        found[(case.get("classname") or "", case.get("name") or "")] = (tags or ["passed"])[0]
    return found


def test_the_runs_gate_is_decided_over_every_claim_not_added_up(citations: Citations) -> None:
    """Each case waives the precision gate for itself; the run's is 0.5: one shard alone
    has 1/1, the other 0/1, the run 1/2, which meets it."""
    citations.write("cases/water.yaml", single_claim_case("water", SUPPORTED_CLAIM, BOILING_URL)
                    + "min_precision: 0\n")  # fmt: skip
    citations.write(
        "cases/software.yaml",
        single_claim_case("software", NOT_FOUND_CLAIM, RETURNS_URL) + "min_precision: 0\n",
    )
    citations.record("cases/", gate="contradicted")
    results = shards(citations, 2, "--citations-min-precision", "0.5", gate="contradicted")

    merged = merge(citations, "shard-1.json", "shard-2.json", "--report", "merged.json")

    assert sorted(result.ret for result in results) == [0, 1]  # one shard fails alone
    assert merged.returncode == 0, merged.stdout + merged.stderr
    assert load_report(citations.path / "merged.json")["run"]["decision"] == "pass"
    assert "Release decision: pass" in merged.stdout.splitlines()


@pytest.fixture
def three(citations: Citations) -> Citations:
    """The six case files recorded, and the reports of their three shards."""
    for path, text in CASE_FILES.items():
        citations.write(path, text)
    citations.record("cases/", gate="default")
    shards(citations, 3, gate="default")
    return citations


def test_a_missing_shard_is_an_error(three: Citations) -> None:
    run = merge(three, "shard-1.json", "shard-3.json", "--report", "merged.json")

    assert run.returncode == 2
    assert run.stderr == "pytest-citations: shard 2/3 is missing: no report given holds it\n"
    assert not (three.path / "merged.json").exists()


def test_a_shard_given_twice_is_an_error_naming_both(three: Citations) -> None:
    (three.path / "again").mkdir()
    (three.path / "again" / "shard-2.json").write_bytes((three.path / "shard-2.json").read_bytes())

    run = merge(three, "shard-1.json", "shard-2.json", "again/shard-2.json", "shard-3.json")

    assert run.returncode == 2
    assert "again/shard-2.json is shard 2/3 again (so is shard-2.json)" in run.stderr


def test_shards_of_different_counts_are_an_error(three: Citations) -> None:
    three.run("cases/", "--citations-shard=2/2", "--citations-report", "half.json", gate="default")

    run = merge(three, "shard-1.json", "half.json", "shard-3.json")

    assert run.returncode == 2
    assert "the reports are shards of different counts" in run.stderr
    assert "half.json is 2/2" in run.stderr


def test_shards_of_a_run_made_otherwise_are_an_error_naming_the_file(three: Citations) -> None:
    three.run("cases/", "--citations-shard=2/3", "--citations-report", "other.json",
              "--citations-fail-on", "contradicted,partial", gate="args")  # fmt: skip
    report = json.loads((three.path / "shard-3.json").read_text(encoding="utf-8"))
    report["run"]["judge"] = "anthropic"
    (three.path / "judged.json").write_text(json.dumps(report), encoding="utf-8")

    run = merge(three, "shard-1.json", "other.json", "judged.json")

    assert run.returncode == 2
    # Issue 24: the keys that differ, by name; each line was two ~600-character dicts.
    assert run.stderr.splitlines() == [
        "pytest-citations: other.json and shard-1.json are not shards of one run: they differ "
        "in fail_on",
        "pytest-citations: judged.json and shard-1.json are not shards of one run: they differ "
        "in judge",
    ]


def test_a_report_that_is_no_shard_or_no_report_is_an_error(three: Citations) -> None:
    three.run("cases/", "--citations-report", "serial.json", gate="default")
    (three.path / "notes.json").write_text('{"hello": 1}', encoding="utf-8")

    serial = merge(three, "shard-1.json", "serial.json")
    other = merge(three, "notes.json")
    missing = merge(three, "nowhere.json")

    assert (serial.returncode, other.returncode, missing.returncode) == (2, 2, 2)
    assert "serial.json is not a shard's report (run pytest with --citations-shard K/N)" in (
        serial.stderr
    )
    assert "notes.json is not a pytest-citations JSON report" in other.stderr
    assert "cannot read the report nowhere.json" in missing.stderr


def test_shards_compared_with_a_base_need_it_for_the_merge(citations: Citations) -> None:
    citations.write("cases/water.yaml", CASE_FILES["cases/water.yaml"])
    citations.record("cases/", gate="default")
    citations.run("cases/", "--citations-report", "base.json", gate="default")
    shards(citations, 2, "--citations-compare", "base.json", gate="default")

    run = merge(citations, "shard-1.json", "shard-2.json")

    assert run.returncode == 2
    assert run.stderr == (
        "pytest-citations: the shards were compared with base.json: give it to the merge "
        "with --compare base.json\n"
    )


# -- the CI gate's page ------------------------------------------------------------------------


def test_the_documented_merge_of_the_examples_prints_what_it_shows(tmp_path: Path) -> None:
    """The shipped examples, sharded in three and merged, as the CI gate page's commands run them:
    a replay of the committed cassettes (no model, no network)."""
    section = readme_section("Sharded runs across machines", DOCS / "ci-gate.md")
    blocks = code_blocks(section)
    [commands_block] = [b for b in blocks if b.language == "bash"]
    shown = blocks[blocks.index(commands_block) + 1]
    shutil.copytree(ROOT / "cases", tmp_path / "cases")
    shutil.copytree(ROOT / "cassettes", tmp_path / "cassettes")
    env = base_env(tmp_path, lexical=False)
    lines = commands([commands_block])
    assert len(lines) == 4

    runs = [run_readme_command(line, env=env, cwd=tmp_path) for line in lines]

    *shard_runs, merged = runs
    assert [run.returncode for run in shard_runs] == [1, 1, 0]  # as their own cases decide
    assert merged.returncode == 1, merged.stderr
    assert_printed(shown.lines, merged.stdout.splitlines())
    serial = subprocess.run(
        [sys.executable, "-m", "pytest", "--citations", "cases/", "--citations-report",
         "serial.json", "-p", "no:cacheprovider"],
        cwd=tmp_path, env=env, capture_output=True, timeout=300, check=False,
    )  # fmt: skip
    assert serial.returncode == merged.returncode
    assert without_identity(load_report(tmp_path / "citations.json")) == without_identity(
        load_report(tmp_path / "serial.json")
    )


def test_the_documented_matrix_runs_only_commands_and_options_that_exist() -> None:
    section = readme_section("Sharded runs across machines", DOCS / "ci-gate.md")
    [workflow] = [b for b in code_blocks(section) if b.language == "yaml"]
    jobs = yaml.safe_load(workflow.text)["jobs"]
    pytest_known = {spelling(option) for option in help_options(sys.executable, "-m", "pytest")}
    merge_known = help_options(*COMMAND) | help_options(*COMMAND, "merge")
    ran = []
    for job in jobs.values():
        for step in job["steps"]:
            for words in workflow_commands(step.get("run", "")):
                arguments = pytest_arguments(words)
                if arguments is not None:
                    assert {spelling(f) for f in flags(arguments)} <= pytest_known, words
                    ran.append("pytest")
                elif words[0] == "pytest-citations":
                    assert words[1] == "merge"
                    assert set(flags(words[2:])) <= merge_known, words
                    ran.append("merge")
    assert ran == ["pytest", "merge"]
    assert jobs["citations"]["strategy"]["matrix"]["shard"] == [1, 2, 3]
    assert jobs["merge"]["needs"] == "citations"


# -- shard reports that are no honest record (issue 24) ----------------------------------------


def spoil(citations: Citations, name: str, change: Any) -> None:
    """Rewrite the shard report ``name`` through ``change(report)`` (which edits it in
    place), as a hostile pull request's code or a broken artifact could leave it."""
    path = citations.path / name
    report = json.loads(path.read_text(encoding="utf-8"))
    change(report)
    path.write_text(json.dumps(report), encoding="utf-8")


def first_claim(report: dict[str, Any]) -> dict[str, Any]:
    return next(case for case in report["cases"] if case["claims"])["claims"][0]


@pytest.mark.parametrize(
    ("change", "said"),
    [
        (lambda report: first_claim(report).update(label="great"), "'great'"),
        (lambda report: first_claim(report).update(expect="great"), "'great'"),
        (lambda report: report["cases"][0]["counts"].update(supported=float("inf")),
         "supported is inf"),
        (lambda report: report["cases"][0]["counts"].update(citations=10**400),
         "citations is a number of 401 digits"),
        (lambda report: report["summary"]["usage"].update(prompt_tokens=-5),
         "prompt_tokens is -5"),
        (lambda report: report["summary"]["usage"].update(replayed_credits=float("nan")),
         "replayed_credits is nan"),
        (lambda report: report["run"]["gates"]["criteria"].update(min_precision=float("nan")),
         "criterion min_precision is nan"),
        (lambda report: report["cases"][0].update(criteria={"fail_on": "everything"}),
         "criterion fail_on is 'everything'"),
        (lambda report: first_claim(report).update(nodeid="cases/other.yaml::x::claim-1"),
         "the claim cases/other.yaml::x::claim-1 is not one of"),
    ],
    ids=["claim-label", "expect-label", "infinite-count", "huge-count", "negative-tokens",
         "nan-credits", "nan-threshold", "case-criteria", "claim-of-another-case"],
)  # fmt: skip
def test_a_shard_report_with_a_value_no_run_writes_is_refused(
    three: Citations, change: Any, said: str
) -> None:
    """An unknown label was exit 1 (a traceback of the merge's own), an infinite count an
    OverflowError: each is a refused input (exit 2) naming the report, within seconds."""
    spoil(three, "shard-2.json", change)

    run = merge(three, "shard-1.json", "shard-2.json", "shard-3.json", "--report", "merged.json")

    assert run.returncode == 2, run.stdout + run.stderr
    assert "shard-2.json" in run.stderr
    assert said in run.stderr
    assert "Traceback" not in run.stderr
    assert not (three.path / "merged.json").exists()


def test_a_base_with_infinite_counts_is_refused_by_the_merge(three: Citations) -> None:
    three.write("base.json", '{"run": {}, "cases": [{"file": "cases/water.yaml", "id": "water", '
                '"counts": {"supported": Infinity, "citations": 1, "reachable": 1}}]}')  # fmt: skip

    run = merge(three, "shard-1.json", "shard-2.json", "shard-3.json", "--compare", "base.json")

    assert run.returncode == 2, run.stdout + run.stderr
    assert "base.json" in run.stderr
    assert "Traceback" not in run.stderr


# -- the merge decides from the claims (issue 24) ----------------------------------------------

TWO_FILES = {
    "cases/water.yaml": single_claim_case("water", SUPPORTED_CLAIM, BOILING_URL),
    "cases/mountains.yaml": single_claim_case("mountains", CONTRADICTED_CLAIM, BOILING_URL),
}
MOUNTAINS = "cases/mountains.yaml::mountains"


@pytest.fixture
def two(citations: Citations) -> Citations:
    """A supported case and a contradicted one, recorded, and the reports of two shards
    (one file each), gated on contradicted claims: the run fails on the mountains case
    alone."""
    for path, text in TWO_FILES.items():
        citations.write(path, text)
    citations.record("cases/", gate="default")
    shards(citations, 2, "--citations-fail-on=contradicted", gate="args")
    return citations


def holder(citations: Citations, file: str) -> str:
    """The shard report whose shard ran ``file``."""
    return next(
        f"shard-{k}.json"
        for k in (1, 2)
        if file in load_report(citations.path / f"shard-{k}.json")["run"]["shard"]["files"]
    )


def merge_two(citations: Citations) -> Any:
    return merge(citations, "shard-1.json", "shard-2.json", "--report", "merged.json")


def test_two_honest_shards_merge_to_the_failing_run(two: Citations) -> None:
    run = merge_two(two)

    assert run.returncode == 1, run.stdout + run.stderr
    assert load_report(two.path / "merged.json")["run"]["decision"] == "fail"


def passing(report: dict[str, Any]) -> None:
    """Every decision the report states made ``pass``, its claims' labels left as they are."""
    report["run"]["decision"] = "pass"
    report["summary"]["release_decision"] = "Release decision: pass"
    for case in report["cases"]:
        case["release"] = {"decision": "pass", "failures": [], "incomplete": []}
        case["precision_item"] = "pass"
        for claim in case["claims"]:
            claim.update(decision="pass", failures=[])


def test_a_case_that_says_pass_while_its_claims_fail_is_refused(two: Citations) -> None:
    """The merge trusted ``release.decision``: the shard's case said pass, its contradicted
    claim was not looked at, and the merge exited 0."""
    spoil(two, holder(two, "cases/mountains.yaml"), passing)

    run = merge_two(two)

    assert run.returncode == 2, run.stdout + run.stderr
    assert f"{MOUNTAINS}::claim-1 says pass, its label and checks decide fail" in run.stderr
    assert f"{MOUNTAINS} says pass (0.0000 (0/1)), its claims decide fail" in run.stderr
    assert run.stderr.splitlines()[-1] == f"pytest-citations: {DISAGREEING}"
    assert not (two.path / "merged.json").exists()


def test_a_case_whose_decision_was_taken_out_is_decided_from_its_claims(two: Citations) -> None:
    """A case with no ``release.decision`` counted as undecided, and a run of undecided
    cases passed."""

    def undecided(report: dict[str, Any]) -> None:
        passing(report)
        for case in report["cases"]:
            case["release"] = {"decision": None, "failures": [], "incomplete": []}

    spoil(two, holder(two, "cases/mountains.yaml"), undecided)

    run = merge_two(two)

    assert run.returncode == 2, run.stdout + run.stderr
    assert f"{MOUNTAINS} has no decision, though its precision item ran" in run.stderr


def test_a_failing_case_taken_out_of_its_shard_is_refused(two: Citations) -> None:
    """The case was dropped from ``cases[]`` while its file stayed among the shard's files:
    the merge passed."""
    name = holder(two, "cases/mountains.yaml")
    spoil(two, name, lambda report: report["cases"].clear())

    run = merge_two(two)

    assert run.returncode == 2, run.stdout + run.stderr
    assert (
        f"pytest-citations: {name} ran cases/mountains.yaml but holds no case of it, nor why "
        "it has none"
    ) in run.stderr.splitlines()


@pytest.mark.parametrize("edit", ["case_files", "cassettes"])
def test_shards_of_different_case_files_or_recordings_are_refused(
    citations: Citations, edit: str
) -> None:
    """Shards of two runs merged as one: the second shard ran after a case file (or the
    cassettes) changed."""
    for path, text in TWO_FILES.items():
        citations.write(path, text)
    citations.record("cases/", gate="default")
    args = ("--citations-fail-on=contradicted", "--citations-report")
    citations.run("cases/", "--citations-shard=1/2", *args, "shard-1.json", gate="args")
    if edit == "case_files":
        citations.write("cases/water.yaml", TWO_FILES["cases/water.yaml"].replace(
            "id: water", "id: water\nquestion: Asked again?"))  # fmt: skip
    else:
        citations.write("cassettes/notes.txt", "re-recorded since\n")
    citations.run("cases/", "--citations-shard=2/2", *args, "shard-2.json", gate="args")

    run = merge_two(citations)

    assert run.returncode == 2, run.stdout + run.stderr
    assert run.stderr.splitlines() == [
        f"pytest-citations: shard-2.json and shard-1.json are not shards of one run: they "
        f"differ in {edit}"
    ]
