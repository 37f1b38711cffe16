"""Baselines (004, C4; issue 4): ``--citations-baseline PATH`` compares each claim's label with
the stored one by node id; a worse label is a regression that fails with old and new verdicts
side by side, a better one is reported; entries of claims that no longer exist are reported
as unused and removed by ``--citations-update-baseline`` only after a full run; the file is
key-sorted JSON and comes out the same under xdist."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from plugin_helpers import (
    REFUNDS_CLAIM,
    REFUNDS_URL,
    RETURNS_CASE,
    Citations,
    single_claim_case,
)

NODE = "cases/returns.yaml::returns-policy::claim-{}"
BASELINE = "baseline.json"


def load(path: Path) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return loaded


def labels(path: Path) -> dict[str, str]:
    return {node: entry["label"] for node, entry in load(path)["claims"].items()}


def set_label(path: Path, node: str, label: str) -> None:
    data = load(path)
    data["claims"][node]["label"] = label
    for citation in data["claims"][node]["citations"]:
        citation["label"], citation["reason"] = label, None
    path.write_text(json.dumps(data, indent=2), encoding="utf-8")


@pytest.fixture
def recorded(citations: Citations) -> Path:
    """The returns case (partial, supported, not_found) recorded, with a baseline written."""
    citations.write("cases/returns.yaml", RETURNS_CASE)
    result, _ = citations.record(
        "cases/", "--citations-baseline", BASELINE, "--citations-update-baseline",
        gate="contradicted"
    )
    result.assert_outcomes(passed=4)
    result.stdout.fnmatch_lines(["baseline updated: 3 claims written (3 new), 0 unused removed"])
    return citations.path / BASELINE


def test_update_writes_labels_by_node_id_and_an_unchanged_replay_passes(
    citations: Citations, recorded: Path
) -> None:
    data = load(recorded)
    assert data["version"] == 1
    assert labels(recorded) == {
        NODE.format(1): "partial",
        NODE.format(2): "supported",
        NODE.format(3): "not_found",
    }
    assert data["claims"][NODE.format(2)] == {
        "claim": REFUNDS_CLAIM,
        "label": "supported",
        "citations": [{"url": REFUNDS_URL, "label": "supported", "reason": None}],
    }
    before = recorded.read_bytes()

    result = citations.run("cases/", "--citations-baseline", BASELINE, gate="contradicted")

    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines(
        ["baseline baseline.json: 0 regressed, 0 improved, 0 new, 0 unused"]
    )
    assert recorded.read_bytes() == before  # comparing never writes


def test_a_worse_label_than_the_baseline_fails_with_old_and_new_side_by_side(
    citations: Citations, recorded: Path
) -> None:
    set_label(recorded, NODE.format(3), "supported")  # the baseline remembers it better
    set_label(recorded, NODE.format(1), "contradicted")  # ... and this one worse

    result = citations.run("-v", "cases/", "--citations-baseline", BASELINE, gate="contradicted")

    result.assert_outcomes(passed=3, failed=1)
    result.stdout.fnmatch_lines(
        [
            "*returns-policy::claim-1 PASSED [[]partial[]]*",
            "*returns-policy::claim-3 FAILED*",
        ]
    )
    result.stdout.fnmatch_lines(
        [
            "claim regressed against the baseline baseline.json",  # relative to the rootdir
            "label: supported -> not_found",
            "  https://shop.example.com/policies/returns: supported -> not_found",
        ]
    )
    result.stdout.fnmatch_lines(
        [
            "baseline baseline.json: 1 regressed, 1 improved, 0 new, 0 unused",
            f"  improved: {NODE.format(1)} (contradicted -> better)",
            f"  regressed: {NODE.format(3)}",
        ]
    )


def test_a_changed_judge_answer_is_a_regression(citations: Citations, recorded: Path) -> None:
    with citations.web() as web:
        web.judge.rule(
            REFUNDS_CLAIM,
            label="contradicted",
            quote="We do not issue refunds as store credit unless the customer asks for it.",
        )
        result = citations.run(
            "-v", "--citations-record=all", "cases/", "--citations-baseline", BASELINE,
            gate="contradicted"
        )

    result.assert_outcomes(passed=3, failed=1)
    result.stdout.fnmatch_lines(["*returns-policy::claim-2 FAILED*"])
    result.stdout.fnmatch_lines(
        [
            "claim is contradicted (failing labels: contradicted)",
            "claim regressed against the baseline baseline.json",  # relative to the rootdir
            "label: supported -> contradicted",
            f"  {REFUNDS_URL}: supported -> contradicted",
        ]
    )
    assert labels(recorded)[NODE.format(2)] == "supported"  # not updated without the flag


def test_new_claims_are_reported_and_written_on_update(
    citations: Citations, recorded: Path
) -> None:
    citations.write("cases/refunds.yaml", single_claim_case("refunds", REFUNDS_CLAIM, REFUNDS_URL))
    citations.record("cases/refunds.yaml", gate="contradicted")  # its cassette

    result = citations.run("cases/", "--citations-baseline", BASELINE, gate="contradicted")

    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines(
        ["baseline baseline.json: 0 regressed, 0 improved, 1 new, 0 unused"]
    )
    citations.run("cases/", "--citations-baseline", BASELINE, "--citations-update-baseline",
                  gate="contradicted")
    assert labels(recorded)["cases/refunds.yaml::refunds::claim-1"] == "supported"


def test_entries_of_removed_claims_are_unused_and_removed_only_after_a_full_run(
    citations: Citations, recorded: Path
) -> None:
    # Claim 3 leaves the case; claims 1 and 2 stay.
    citations.write("cases/returns.yaml", RETURNS_CASE.rsplit("  - text:", 1)[0])

    result = citations.run("cases/", "--citations-baseline", BASELINE, gate="contradicted")
    result.stdout.fnmatch_lines(
        [
            "baseline baseline.json: 0 regressed, 0 improved, 0 new, 1 unused",
            f"  unused: {NODE.format(3)}",
        ]
    )
    assert NODE.format(3) in labels(recorded)

    # A -k run sees claim 2 as unused too, but it only was not selected: nothing goes.
    selected = citations.run(
        "cases/", "-k", "claim-1", "--citations-baseline", BASELINE, "--citations-update-baseline",
        gate="contradicted"
    )
    selected.stdout.fnmatch_lines(
        ["baseline updated: 1 claims written, 0 unused removed, 2 kept (not a full run*"]
    )
    assert set(labels(recorded)) == {NODE.format(1), NODE.format(2), NODE.format(3)}

    # Nor does a run of one item by its node id.
    by_id = citations.run(
        NODE.format(1), "--citations-baseline", BASELINE, "--citations-update-baseline",
        gate="contradicted"
    )
    by_id.assert_outcomes(passed=1)
    assert set(labels(recorded)) == {NODE.format(1), NODE.format(2), NODE.format(3)}

    full = citations.run("cases/", "--citations-baseline", BASELINE, "--citations-update-baseline",
                         gate="contradicted")
    full.stdout.fnmatch_lines(["baseline updated: 2 claims written, 1 unused removed"])
    assert set(labels(recorded)) == {NODE.format(1), NODE.format(2)}


def test_a_full_run_removes_the_entries_of_a_deleted_case_file_but_not_of_one_not_run(
    citations: Citations, recorded: Path
) -> None:
    citations.write("cases/refunds.yaml", single_claim_case("refunds", REFUNDS_CLAIM, REFUNDS_URL))
    citations.record("cases/", "--citations-baseline", BASELINE, "--citations-update-baseline",
                     gate="contradicted")
    assert "cases/refunds.yaml::refunds::claim-1" in labels(recorded)

    # A run of one file keeps the other file's entries.
    citations.run(
        "cases/returns.yaml", "--citations-baseline", BASELINE, "--citations-update-baseline",
        gate="contradicted"
    )
    assert "cases/refunds.yaml::refunds::claim-1" in labels(recorded)

    # Once the file is gone, its claims no longer exist.
    (citations.path / "cases/refunds.yaml").unlink()
    result = citations.run(
        "cases/", "--citations-baseline", BASELINE, "--citations-update-baseline",
        gate="contradicted"
    )
    result.stdout.fnmatch_lines(
        [
            "  unused: cases/refunds.yaml::refunds::claim-1",
            "baseline updated: 3 claims written, 1 unused removed",
        ]
    )
    assert "cases/refunds.yaml::refunds::claim-1" not in labels(recorded)


def test_the_file_is_key_sorted_stable_json(citations: Citations, recorded: Path) -> None:
    first = recorded.read_text(encoding="utf-8")
    data = json.loads(first)
    assert first == json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
    assert list(data["claims"]) == sorted(data["claims"])

    citations.run("cases/", "--citations-baseline", BASELINE, "--citations-update-baseline",
                  gate="contradicted")
    citations.run("cases/", "--citations-baseline", BASELINE, "--citations-update-baseline",
                  gate="contradicted")

    assert recorded.read_text(encoding="utf-8") == first


def test_update_needs_a_baseline_path(citations: Citations) -> None:
    citations.write("cases/returns.yaml", RETURNS_CASE)

    result = citations.run("cases/", "--citations-update-baseline", gate="default")

    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--citations-update-baseline needs --citations-baseline PATH*"])


def test_a_baseline_that_is_not_one_is_refused(citations: Citations) -> None:
    citations.write("cases/returns.yaml", RETURNS_CASE)
    citations.write(BASELINE, '{"labels": {}}\n')

    result = citations.run("cases/", "--citations-baseline", BASELINE, gate="default")

    assert result.ret != pytest.ExitCode.OK
    assert "is not a pytest-citations baseline (no 'claims')" in result.stdout.str() + str(
        result.stderr
    )


def test_under_xdist_the_baseline_equals_the_serial_one(
    citations: Citations, recorded: Path
) -> None:
    citations.write("cases/refunds.yaml", single_claim_case("refunds", REFUNDS_CLAIM, REFUNDS_URL))
    serial, _ = citations.record(
        "cases/", "-n", "0", "--citations-baseline", BASELINE, "--citations-update-baseline",
        gate="contradicted"
    )
    serial.assert_outcomes(passed=6)
    expected = recorded.read_bytes()
    # Spoil the baseline: one entry remembered better (a regression on a worker), one entry of
    # a claim that does not exist (unused, to be removed by this full run).
    set_label(recorded, NODE.format(3), "supported")
    data = load(recorded)
    data["claims"]["cases/refunds.yaml::refunds::claim-9"] = data["claims"][NODE.format(2)]
    recorded.write_text(json.dumps(data), encoding="utf-8")

    parallel = citations.run(
        "cases/",
        "-n",
        "2",
        "--dist",
        "loadfile",
        "--citations-baseline",
        BASELINE,
        "--citations-update-baseline", gate="contradicted",
    )

    # Updating, the regression is written into the baseline rather than failed.
    parallel.assert_outcomes(passed=6)
    parallel.stdout.fnmatch_lines(
        [
            "baseline baseline.json: 1 regressed, 0 improved, 0 new, 1 unused",
            "baseline updated: 4 claims written (1 regressed), 1 unused removed",
        ]
    )
    assert recorded.read_bytes() == expected
