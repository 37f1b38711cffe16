"""The worked example of source document 004, end to end (issue 4): "Can business customers
return opened hardware?" answered in three sentences; claim 1 is partial (the page gives
30 days to consumers, 14 to businesses), claim 2 supported, claim 3 stated only in [3], which
the answer did not cite. Fully supported 1 of 3; release decision: fail.

The case file is the repository's own ``cases/returns-policy.yaml``."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from plugin_helpers import (
    REFUNDS_URL,
    RETURNS_URL,
    SOFTWARE_URL,
    Citations,
    claims_by_nodeid,
    load_report,
)

ROOT = Path(__file__).resolve().parents[2]
CASE = "cases/returns-policy.yaml"
NODE = f"{CASE}::returns-policy"


def copy_from_repository(citations: Citations, *relative: str) -> None:
    for name in relative:
        target = citations.path / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(ROOT / name, target)


def assert_worked_example(result: pytest.RunResult, report: Path) -> None:
    assert "could not be checked" not in result.stdout.str()
    result.assert_outcomes(passed=2, failed=2)
    result.stdout.fnmatch_lines(
        [
            f"{NODE}::claim-1 FAILED*",
            f"{NODE}::claim-2 PASSED [[]supported[]]*",
            f"{NODE}::claim-3 FAILED*",
            f"{NODE}::precision PASSED*",
        ]
    )
    # Claim 1: partial, with the condition it drops quoted from [1].
    result.stdout.fnmatch_lines(
        [
            "claim is partial (failing labels: contradicted, partial, misattributed)",
            "claim: Customers can return hardware within 30 days.",
            "label: partial",
            f"  [[]1[]] {RETURNS_URL}",
            "      partial, confidence *",
            '      quote: "Business customers can return hardware within 14 days of delivery,*',
        ]
    )
    # Claim 3: wrong citation, stated in [3], which the answer did not cite.
    result.stdout.fnmatch_lines(
        [
            "claim is misattributed (failing labels: contradicted, partial, misattributed)",
            "claim: Opened software licences cannot be returned.",
            "label: misattributed",
            f"  supported instead by the uncited source: [[]3[]] {SOFTWARE_URL}",
        ]
    )
    result.stdout.fnmatch_lines(
        [
            f"{NODE}  *3  *1  *1  *0  *0  *0  *0  *1  *0.3333 (1/3)*",
            "supported_share=0.3333 (1/3)",
            f"{NODE}: fully supported 1 of 3; release decision: fail "
            "(fail_on: claim-1 the claim is partial)",
            f"Release decision: fail ({NODE}: fail_on: claim-1 the claim is partial)",
        ]
    )

    loaded = load_report(report)
    (case,) = loaded["cases"]
    assert case["supported_share"] == pytest.approx(1 / 3)
    assert case["release"]["decision"] == "fail"
    assert case["release"]["failures"] == [
        "fail_on: claim-1 the claim is partial",
        "fail_on: claim-3 the claim is misattributed",
    ]
    claims = claims_by_nodeid(loaded)
    first, second, third = (claims[f"{NODE}::claim-{n}"] for n in (1, 2, 3))
    assert first["label"] == "partial"
    assert "14 days" in first["citations"][0]["evidence_quote"]
    assert second["label"] == "supported"
    assert [c["url"] for c in second["citations"]] == [REFUNDS_URL]
    assert third["label"] == "misattributed"
    assert third["misattributed_to"] == [SOFTWARE_URL]
    assert [(c["url"], c["label"]) for c in third["citations"]] == [(RETURNS_URL, "not_found")]
    assert [claim["topic"] for claim in (first, second, third)] == ["returns"] * 3


def test_the_worked_example_recorded_fresh_and_replayed_offline(citations: Citations) -> None:
    copy_from_repository(citations, CASE)
    report = citations.path / "report.json"

    recorded, web = citations.record("-v", "cases/", "--citations-report", report, gate="default")

    assert web.crawlbase.count(SOFTWARE_URL) >= 1  # [3] was looked at because [1] missed
    assert_worked_example(recorded, report)
    # The emulators are gone and no token is set: the same verdicts replay offline.
    replayed = citations.run("-v", "cases/", "--citations-report", report, gate="default")
    assert_worked_example(replayed, report)


def test_the_shipped_cassette_replays_the_worked_example(citations: Citations) -> None:
    """The repository's own cassette, replayed with no emulator running and no model: the
    passages the judge was sent come from the recording (a request it lacked would fail the
    claims as "could not be checked")."""
    copy_from_repository(citations, CASE, f"cassettes/{CASE}")
    report = citations.path / "report.json"

    result = citations.run("-v", "cases/", "--citations-report", report, lexical=False,
                           gate="default")

    assert_worked_example(result, report)
    result.stdout.fnmatch_lines(["*judge_calls=0 judge_tokens=0; replayed: *"])
