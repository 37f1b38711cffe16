"""The run's result as one tree (issue 25), stated on plain values, no pytest run: a claim
that could not be checked is a state in every output and never a label; a comparison never
reads an unchecked claim as changed; a regression fails the run only when its gate says so,
decided once; shard reports merged (written as JSON, read back, decided again) are the
serial run; and a claim's item ends as its decision says, whatever the claim."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from tree_helpers import LENIENT, cited, claim, run_of

from pytest_citations.cases import Case, Claim
from pytest_citations.gating.baseline import Baseline
from pytest_citations.gating.build import Findings, build_run
from pytest_citations.gating.comparison import CaseState, ChangeKind, ClaimState
from pytest_citations.gating.criteria import Criteria, Decision
from pytest_citations.gating.deciding import BaselineRef, decide_file
from pytest_citations.gating.messages import case_message, claim_message
from pytest_citations.gating.precision import Precision, Share
from pytest_citations.gating.redecision import decide_again
from pytest_citations.gating.result import CaseInfo, ClaimResult, ClaimStatus, Location
from pytest_citations.gating.run_result import Base, BaselineFacts, RunGates, RunResult
from pytest_citations.labels import Label, Reason
from pytest_citations.reports import RENDERERS, RunInfo, junit_report
from pytest_citations.reports.github import annotations_of
from pytest_citations.reports.json_reader import read_report
from pytest_citations.reports.json_report import document
from pytest_citations.reports.junit_report import claim_properties
from pytest_citations.reports.terminal import summary_lines
from pytest_citations.verdicts import ClaimVerdict

WATER = CaseInfo("cases/water.yaml", "water", line=1, question="When does water boil?")
SEA = CaseInfo("cases/sea.yaml", "sea", line=1, question="Is sea water salty?")
A, B = "https://example.org/a", "https://example.org/b"

SUPPORTED = claim(WATER, 1, "Water boils at 100 °C.", cited(A, Label.SUPPORTED))
#: The judge could not be reached for its one citation: no label, whatever it would say.
UNCHECKED = claim(WATER, 2, "Water boils at 50 °C.", cited(B, Label.NOT_FOUND, Reason.OVER_BUDGET))


def test_an_unchecked_claim_has_a_status_and_no_label() -> None:
    assert (UNCHECKED.status, UNCHECKED.label, UNCHECKED.decision) == (
        ClaimStatus.UNCHECKED,
        None,
        Decision.INCOMPLETE,
    )
    assert [(u.url, u.reason) for u in UNCHECKED.unchecked] == [(B, Reason.OVER_BUDGET)]


def test_unchecked_is_a_state_in_every_output_and_counts_in_no_precision() -> None:
    """It was a not_found column in the table, a miss in precision (0.0000 (0/3) for a case
    whose claims were never checked), ``not_found (over_budget)`` among the citations not
    verified, and ``label: not_found`` in its explanation."""
    result = run_of([(WATER, SUPPORTED), (WATER, UNCHECKED)])
    info = RunInfo(files=(("json", "r.json"),))
    [case] = result.cases

    assert (case.precision, case.share) == (Precision(1, 1, 1, 1), Share(1, 1, 1))
    assert case.label_counts == {**dict.fromkeys(case.label_counts, 0), "supported": 1,
                                   "unchecked": 1}  # fmt: skip
    lines = [line.text for line in summary_lines(result, info)]
    header, row = lines[0].split(), lines[1].split()
    counts = dict(zip(header[2:10], row[2:10], strict=True))  # the labels, then unchecked
    assert (counts["not_found"], counts["unchecked"]) == ("0", "1")
    assert " ".join(row[10:16]) == "1.0000 (1/1, 1 of 2 checked)"
    assert f"  {UNCHECKED.nodeid}: unchecked (over_budget) {B}" in lines
    assert "citation_precision=1.0000 (1/1, 1 of 2 checked)" in lines
    assert "supported_share=1.0000 (1/1, 1 of 2 checked)" in lines
    data = document(result, info)
    [_, said] = data["cases"][0]["claims"]
    assert (said["status"], said["label"], said["decision"]) == ("unchecked", None, "incomplete")
    assert data["summary"]["unchecked"] == data["summary"]["claims_unchecked"] == 1
    rows = list(csv.DictReader(io.StringIO(RENDERERS["csv"](result, info))))
    assert [(r["label"], r["claim_label"]) for r in rows] == [
        ("supported", "supported"),
        ("unchecked", "unchecked"),
    ]
    page = RENDERERS["html"](result, info)
    assert f'data-label="unchecked" id="{UNCHECKED.nodeid}"' in page
    assert '<span class="badge unchecked">unchecked</span>' in page
    markdown = RENDERERS["markdown"](result, info)
    assert "| cases/water.yaml::water | 2 | 1 | 0 | 1 | 1.0000 (1/1, 1 of 2 checked) |" in markdown
    assert dict(claim_properties(UNCHECKED))["status"] == "unchecked"
    assert "label" not in dict(claim_properties(UNCHECKED))
    assert dict(claim_properties(UNCHECKED))["citation.1.label"] == "unchecked"
    assert 'value="unchecked"' in junit_report.render(result)
    [annotation] = annotations_of(result, str)
    assert annotation.title == "citations: water::claim-2 could not be checked"
    assert "status: unchecked (no label)" in annotation.message
    assert "label:" not in annotation.message


def test_a_claim_unchecked_on_either_side_is_never_changed() -> None:
    """--citations-compare reported "claim-2 changed: supported -> not_found" and a
    precision drop for a claim that was only unchecked."""
    stored = (
        ClaimState(SUPPORTED.where, SUPPORTED.text, "supported", Decision.PASS),
        ClaimState(UNCHECKED.where, UNCHECKED.text, "supported", Decision.PASS),
    )
    base = Base((CaseState(WATER.file, WATER.case, None, stored, Precision(2, 2, 2)),), "b.json")

    result = run_of([(WATER, SUPPORTED), (WATER, UNCHECKED)], base=base, max_precision_drop=0.2)

    assert result.comparison is not None
    [change] = result.comparison.changes
    assert (change.kind, change.before, change.after, change.regressed) == (
        ChangeKind.NOT_COMPARED, "supported", "unchecked", False)  # fmt: skip
    assert result.claims[1].change == change
    # 2/2 before; now 1/1 with one unchecked: anything from 1/2 to 2/2, so a drop of more
    # than 0.2 is undecided (the run incomplete), never a failure.
    assert result.decision.failures == ()
    assert [f.criterion for f in result.decision.undecided] == ["max_precision_drop"] * 2
    assert result.release.verdict is Decision.INCOMPLETE


@pytest.mark.parametrize(("gate", "verdict"), [(True, Decision.FAIL), (False, Decision.PASS)])
def test_a_regression_fails_the_run_only_under_its_gate(gate: bool, verdict: Decision) -> None:
    partial = claim(WATER, 1, SUPPORTED.text, cited(A, Label.PARTIAL))  # passes the lenient gate
    stored = (ClaimState(partial.where, partial.text, "supported", Decision.PASS),)
    base = Base((CaseState(WATER.file, WATER.case, None, stored, Precision(1, 1, 1)),), "b.json")

    result = run_of([(WATER, partial)], base=base, fail_on_regression=gate)

    assert result.comparison is not None
    [change] = result.comparison.regressions
    assert (change.regressed, change.fails) == (True, gate)
    assert result.release.verdict is verdict
    assert result.claims[0].decision is Decision.PASS  # the claim meets its own criteria
    [annotation] = annotations_of(result, str)
    assert annotation.level == ("error" if gate else "warning")


def test_a_baseline_regression_fails_the_claim_its_case_and_the_run() -> None:
    """The claim's decision said pass while its item failed, and the release said pass."""
    stored = {"claim": "x", "label": "supported",
              "citations": [{"url": A, "label": "supported", "reason": None}]}  # fmt: skip
    baseline = BaselineRef(Baseline({f"{WATER.key}::claim-1": stored}), "base.json")
    regressed = claim(WATER, 1, "Claim.", cited(A, Label.PARTIAL), baseline=baseline)

    result = run_of([(WATER, regressed)])

    assert regressed.decision is Decision.FAIL
    assert result.cases[0].decision is Decision.FAIL
    assert result.release.failed
    assert result.failed


def shard_report(path: Path, result: RunResult, gates: Criteria) -> Path:
    """The JSON report of one shard's run."""
    info = RunInfo(identity={"case_files": "sha256:the-same"})
    path.write_text(RENDERERS["json"](result, info), encoding="utf-8")
    return path


def test_shards_merged_are_the_serial_run(tmp_path: Path) -> None:
    """The merge's path from shard reports (written as JSON, read back, each claim and case
    decided again) builds the same result as the serial run, with the same function."""
    rules = LENIENT.merged({"min_precision": 0.5})
    water = [(WATER, SUPPORTED), (WATER, UNCHECKED)]
    sea = [(SEA, claim(SEA, 1, "Sea water is salty.", cited(A, Label.CONTRADICTED)))]
    serial = run_of([*water, *sea], rules=rules, calibrate=True)
    reports = [
        shard_report(tmp_path / f"shard-{n}.json", run_of(part, rules=rules), rules)
        for n, part in enumerate((water, sea), start=1)
    ]

    merged = Findings()
    for path in reports:
        read = read_report(path)
        assert decide_again(read.cases, read.found, read.gates) == ()
        merged.absorb(read.found)
    result = build_run(merged, serial.gates)

    assert document(result, RunInfo()) == document(serial, RunInfo())
    assert result.release == serial.release
    assert result.release.verdict is Decision.FAIL


def outcome(found: ClaimResult, info: CaseInfo = WATER) -> str:
    """How the claim's item ends: an error in setup, a failure, or a pass (the plugin's
    items raise the claim's message as the decision says)."""
    [case] = run_of([(info, found)]).cases
    message = claim_message(found, case)
    if found.decision is Decision.INCOMPLETE:
        return "error" if message else "NO MESSAGE"
    if found.decision is Decision.FAIL:
        return "failed" if message else "NO MESSAGE"
    return "passed" if message is None else "A MESSAGE"


CLAIMS = {
    "supported": SUPPORTED,
    "unchecked": UNCHECKED,
    "contradicted": claim(WATER, 3, "C.", cited(A, Label.CONTRADICTED)),
    "partial": claim(WATER, 4, "P.", cited(A, Label.PARTIAL)),
    "contradicted-beside-unchecked": claim(
        WATER, 5, "C.", cited(A, Label.CONTRADICTED), cited(B, Label.NOT_FOUND, Reason.FETCH_ERROR)
    ),
    "counted-as-label": claim(
        WATER, 6, "S.", cited(A, Label.SUPPORTED), cited(B, Label.NOT_FOUND, Reason.JUDGE_ERROR),
        rules=LENIENT.merged({"allow_unchecked": True}),
    ),
    "new-since-the-recording": claim(
        WATER, 7, "N.", cited(A, Label.NOT_FOUND, Reason.REQUEST_REFUSED),
        rules=LENIENT.merged({"allow_unchecked": True}),
    ),
    "uncited-not-general": claim(WATER, 8, "U.", label=Label.UNCITED,
                                 rules=LENIENT.merged({"uncited_allowed": False})),
}  # fmt: skip
EXPECTED = {
    "supported": ("passed", ClaimStatus.CHECKED),
    "unchecked": ("error", ClaimStatus.UNCHECKED),
    "contradicted": ("failed", ClaimStatus.CHECKED),
    "partial": ("passed", ClaimStatus.CHECKED),
    "contradicted-beside-unchecked": ("failed", ClaimStatus.CHECKED),
    "counted-as-label": ("passed", ClaimStatus.CHECKED),
    "new-since-the-recording": ("error", ClaimStatus.UNCHECKED),
    "uncited-not-general": ("failed", ClaimStatus.CHECKED),
}


@pytest.mark.parametrize("name", sorted(CLAIMS))
def test_the_items_outcome_is_the_claims_decision(name: str) -> None:
    found = CLAIMS[name]
    assert (outcome(found), found.status) == EXPECTED[name]
    assert (found.label is None) is (found.status is ClaimStatus.UNCHECKED)
    if found.status is ClaimStatus.UNCHECKED:
        assert found.decision is Decision.INCOMPLETE


def test_a_case_items_message_follows_its_decision() -> None:
    below = run_of([(WATER, claim(WATER, 1, "P.", cited(A, Label.PARTIAL)))],
                   rules=LENIENT.merged({"min_precision": 0.5}))  # fmt: skip
    [case] = below.cases
    assert (case.decision, case.item) == (Decision.FAIL, Decision.FAIL)
    assert case_message(case) is not None
    undecided = run_of([(WATER, SUPPORTED), (WATER, UNCHECKED)],
                       rules=LENIENT.merged({"min_precision": 0.9}))  # fmt: skip
    assert (undecided.cases[0].item, undecided.cases[0].decision) == (
        Decision.INCOMPLETE, Decision.INCOMPLETE)  # fmt: skip
    passing = run_of([(WATER, SUPPORTED)])
    assert passing.cases[0].item is Decision.PASS
    assert case_message(passing.cases[0]) is None


def test_the_json_form_carries_a_claim_whole(tmp_path: Path) -> None:
    """What an xdist worker and a shard report hand over reads back as it was made."""
    path = shard_report(tmp_path / "r.json", run_of([(WATER, SUPPORTED), (WATER, UNCHECKED)]),
                        LENIENT)  # fmt: skip
    read = read_report(path)
    [case] = read.cases
    assert case.claims == (SUPPORTED, UNCHECKED)
    assert case.info == WATER
    assert json.loads(path.read_text(encoding="utf-8"))["run"]["report_version"] == 2
    assert Location.from_dict(SUPPORTED.where.to_dict()) == SUPPORTED.where.__class__(
        WATER.file, WATER.case, "claim-1", SUPPORTED.where.line
    )


def water_file(
    *labels: Label, min_precision: float | None = None
) -> tuple[Case, list[ClaimVerdict]]:
    """The case ``water`` with one claim per label, each citing A, and their verdicts."""
    claims = tuple(Claim(n, f"C{n}.", (A,), ("1",), 3 + n) for n in range(1, len(labels) + 1))
    water = Case("water", Path(WATER.file), 1, None, None, {"1": A}, claims, min_precision)
    reasons = {Label.NOT_FOUND: Reason.JUDGE_ERROR}  # not_found: a judge that did not answer
    verdicts = [ClaimVerdict(f"C{n}.", label, (cited(A, label, reasons.get(label)),))
                for n, label in enumerate(labels, start=1)]  # fmt: skip
    return water, verdicts


FILES = {
    "passing": water_file(Label.SUPPORTED, Label.PARTIAL),
    "a claim fails": water_file(Label.SUPPORTED, Label.CONTRADICTED),
    "below its precision": water_file(Label.SUPPORTED, Label.PARTIAL, min_precision=0.9),
    "a claim unchecked": water_file(Label.SUPPORTED, Label.NOT_FOUND),
    "its precision undecided": water_file(Label.SUPPORTED, Label.NOT_FOUND, min_precision=0.9),
}


@pytest.mark.parametrize("name", sorted(FILES))
def test_a_serial_run_decides_each_case_once(name: str) -> None:
    """The case as its own item decided it (plugin/session's decide_file) is the tree's
    case itself, not decided again (issue 25); its item's outcome is the tree's decision."""
    water, verdicts = FILES[name]
    decided = decide_file(WATER.file, [water], verdicts, LENIENT)
    case = decided.cases["water"]
    found = Findings()
    for claim_result in decided.claims.values():  # as the reporter gathers the items
        found.add_claim(case.info, claim_result)
    found.add_case(case.info, case)

    result = build_run(found, RunGates(LENIENT))

    [tree] = result.cases
    assert tree is case
    assert (case_message(case) is None) is (case.item is Decision.PASS)
    on_its_own = build_run(Findings(found.cases, found.claims, {WATER.key: None}),
                           RunGates(LENIENT))  # fmt: skip
    assert on_its_own.cases == (case,)  # xdist's controller decides it from its claims alike


def test_a_case_is_decided_again_over_the_claims_that_ran() -> None:
    """A claim decided with its file whose item did not run (a conftest's skip): the tree's
    case is decided from the claims that ran, as an xdist controller decides it."""
    water, verdicts = FILES["a claim fails"]
    decided = decide_file(WATER.file, [water], verdicts, LENIENT)
    case = decided.cases["water"]
    found = Findings()
    found.add_claim(case.info, decided.claims[("water", 1)])
    found.add_case(case.info, case)

    [tree] = build_run(found, RunGates(LENIENT)).cases

    assert (case.decision, tree.decision) == (Decision.FAIL, Decision.PASS)
    assert tree.claims == (decided.claims[("water", 1)],)


def test_what_every_output_shows_of_a_claim_is_a_value_on_the_tree() -> None:
    """A claim's shown label (its label, or ``unchecked``), whether it is failing, and the
    run's unchecked claims are made once on the tree; the writers read them (issue 25)."""
    result = run_of([(WATER, SUPPORTED), (WATER, UNCHECKED)])
    assert [(c.label_shown, c.failing) for c in result.claims] == [
        ("supported", False),
        ("unchecked", True),
    ]
    assert result.unchecked_claims == (UNCHECKED,)
    assert result.label_counts["unchecked"] == 1


def test_the_baselines_precision_over_the_run_is_a_value_on_the_tree() -> None:
    """The precision the baseline stored over the run's cases, made once; the JSON summary
    and the HTML cards both read it."""
    stored = {WATER.key: Precision(1, 2, 2), "cases/gone.yaml::gone": Precision(0, 5, 5)}
    result = run_of([(WATER, SUPPORTED)], baseline=BaselineFacts("baseline.json", stored))
    assert result.baseline_precision == Precision(1, 2, 2)
    assert document(result, RunInfo())["summary"]["baseline"]["citation_precision"] == 0.5
    assert 'data-baseline="0.5000"' in RENDERERS["html"](result, RunInfo())


def test_a_claims_disagreement_with_its_human_label_is_a_value_on_the_tree() -> None:
    """Whether the judge's label is not the human's, made once: the HTML filter counts it
    and each claim's tag shows it."""
    agreed = claim(WATER, 1, "A.", cited(A, Label.SUPPORTED), expect="supported")
    differs = claim(WATER, 3, "B.", cited(A, Label.CONTRADICTED), expect="supported")
    result = run_of([(WATER, agreed), (WATER, differs), (WATER, UNCHECKED)], calibrate=True)
    assert [c.differs_from_human for c in result.claims] == [False, False, True]
    page = RENDERERS["html"](result, RunInfo())
    assert "judge ≠ human (1)" in page
    assert page.count('class="claim failed disagrees"') == 1
