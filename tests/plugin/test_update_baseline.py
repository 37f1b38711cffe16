"""``--citations-update-baseline`` behaves like syrupy's ``--snapshot-update`` (issue 11): an
update run whose claims only differ from the baseline passes and says what it wrote; entries
of claims that no longer exist are reported as unused, and
``--citations-baseline-fail-unused`` (ini ``citations_baseline_fail_unused``) fails a run that
leaves them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from plugin_helpers import RETURNS_CASE, Citations

NODE = "cases/returns.yaml::returns-policy::claim-{}"
BASELINE = "baseline.json"
UPDATE = ("--citations-baseline", BASELINE, "--citations-update-baseline")


def labels(path: Path) -> dict[str, str]:
    data = json.loads(path.read_text(encoding="utf-8"))
    return {node: entry["label"] for node, entry in data["claims"].items()}


def remember(path: Path, node: str, label: str) -> None:
    """Make the baseline remember ``node`` with ``label`` (and each of its citations too)."""
    data = json.loads(path.read_text(encoding="utf-8"))
    entry = data["claims"].setdefault(node, {"claim": "gone", "citations": []})
    entry["label"] = label
    for citation in entry["citations"]:
        citation["label"], citation["reason"] = label, None
    path.write_text(json.dumps(data, indent=2), encoding="utf-8")


@pytest.fixture
def baseline(citations: Citations) -> Path:
    """The returns case (partial, supported, not_found) recorded, its baseline written, then
    claim 3 remembered as supported: a replay finds it regressed."""
    citations.write("cases/returns.yaml", RETURNS_CASE)
    citations.record("cases/", *UPDATE, gate="contradicted")[0].assert_outcomes(passed=4)
    path = citations.path / BASELINE
    remember(path, NODE.format(3), "supported")
    return path


def test_without_update_a_regression_fails_and_the_summary_says_how_to_accept_it(
    citations: Citations, baseline: Path
) -> None:
    result = citations.run("cases/", "--citations-baseline", BASELINE, gate="contradicted")

    result.assert_outcomes(passed=3, failed=1)
    result.stdout.fnmatch_lines(
        [
            "baseline baseline.json: 1 regressed, 0 improved, 0 new, 0 unused",
            f"  regressed: {NODE.format(3)}",
            "Re-run with --citations-update-baseline to write this run's labels into the baseline.",
        ]
    )
    assert labels(baseline)[NODE.format(3)] == "supported"


def test_an_update_run_that_only_differs_from_the_baseline_passes(
    citations: Citations, baseline: Path
) -> None:
    result = citations.run("-v", "cases/", *UPDATE, gate="contradicted")

    assert result.ret == pytest.ExitCode.OK
    result.assert_outcomes(passed=4)
    result.stdout.fnmatch_lines(["*returns-policy::claim-3 PASSED [[]not_found[]]*"])
    result.stdout.fnmatch_lines(
        [
            "baseline baseline.json: 1 regressed, 0 improved, 0 new, 0 unused",
            f"  regressed: {NODE.format(3)} (written into the baseline)",
            "baseline updated: 3 claims written (1 regressed), 0 unused removed",
        ]
    )
    assert "Re-run with" not in result.stdout.str()
    assert labels(baseline)[NODE.format(3)] == "not_found"
    again = citations.run("cases/", "--citations-baseline", BASELINE, gate="contradicted")
    assert again.ret == pytest.ExitCode.OK
    again.stdout.fnmatch_lines(["baseline baseline.json: 0 regressed, 0 improved, 0 new, 0 unused"])


def test_an_update_run_still_fails_a_claim_on_its_criteria(
    citations: Citations, baseline: Path
) -> None:
    result = citations.run("cases/", *UPDATE, "--citations-fail-on", "not_found", gate="args")

    result.assert_outcomes(passed=3, failed=1)
    result.stdout.fnmatch_lines(["claim is not_found (failing labels: not_found)"])
    assert labels(baseline)[NODE.format(3)] == "not_found"  # written all the same


@pytest.fixture
def unused(citations: Citations, baseline: Path) -> Path:
    """The baseline, agreeing with the run again, plus an entry of a claim that is gone."""
    remember(baseline, NODE.format(3), "not_found")
    remember(baseline, NODE.format(9), "supported")
    return baseline


def test_unused_entries_are_reported_and_do_not_fail_by_default(
    citations: Citations, unused: Path
) -> None:
    result = citations.run("cases/", "--citations-baseline", BASELINE, gate="contradicted")

    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines(
        [
            "baseline baseline.json: 0 regressed, 0 improved, 0 new, 1 unused",
            f"  unused: {NODE.format(9)}",
            "Re-run with --citations-update-baseline to write this run's labels into the "
            "baseline, removing the 1 unused.",
        ]
    )


@pytest.mark.parametrize("how", ["flag", "ini"])
def test_fail_unused_fails_the_run_until_an_update_removes_them(
    citations: Citations, unused: Path, how: str
) -> None:
    if how == "ini":
        citations.pytester.makeini("[pytest]\ncitations_baseline_fail_unused = true\n")
        extra: tuple[str, ...] = ()
    else:
        extra = ("--citations-baseline-fail-unused",)

    failed = citations.run("cases/", "--citations-baseline", BASELINE, *extra, gate="contradicted")
    updated = citations.run("cases/", *UPDATE, *extra, gate="contradicted")
    clean = citations.run("cases/", "--citations-baseline", BASELINE, *extra, gate="contradicted")

    failed.assert_outcomes(passed=4)  # every item passes; the run does not
    assert failed.ret == pytest.ExitCode.TESTS_FAILED
    failed.stdout.fnmatch_lines(
        [
            f"  unused: {NODE.format(9)}",
            "FAIL 1 baseline entry unused (--citations-baseline-fail-unused)",
            "Re-run with --citations-update-baseline *removing the 1 unused.",
        ]
    )
    assert updated.ret == pytest.ExitCode.OK
    updated.stdout.fnmatch_lines(["baseline updated: 3 claims written, 1 unused removed"])
    assert NODE.format(9) not in labels(unused)
    assert clean.ret == pytest.ExitCode.OK


def test_fail_unused_leaves_a_narrowed_run_alone(citations: Citations, unused: Path) -> None:
    # With -k, entries of claims that were not selected only look unused.
    result = citations.run(
        "cases/",
        "-k",
        "claim-1",
        "--citations-baseline",
        BASELINE,
        "--citations-baseline-fail-unused", gate="contradicted",
    )

    assert result.ret == pytest.ExitCode.OK
    assert "FAIL" not in result.stdout.str()
