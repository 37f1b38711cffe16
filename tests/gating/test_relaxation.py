"""Criteria laxer than the base's (issue 24: what a pull request can edit never turns the gate
green by itself; C7: criteria are agreed before the scores are seen). Case criteria stay a
feature, but a pull request cannot relax them unseen: the comparison with the base names
each relaxed criterion once, on the typed result (``CaseDiff.relaxed``,
``RunComparison.relaxed``), and ``--citations-fail-on-regression`` fails the run on it as on
a regressed claim. The rule on each criterion, a stricter change (no relaxation), the run's
own gates, a new case, and a base that stores no criteria (not compared, said once)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from pytest_citations.errors import CitationsError
from pytest_citations.gating.base_report import read_base
from pytest_citations.gating.comparison import Relaxation
from pytest_citations.gating.criteria import Criteria, Decision
from pytest_citations.gating.precision import Precision
from pytest_citations.gating.regression_lines import (
    NOT_COMPARED,
    comparison_lines,
    relaxation_lines,
)
from pytest_citations.gating.regressions import CaseState, ClaimState, compare_runs
from pytest_citations.gating.relaxation import relaxed_criteria, relaxed_gates
from pytest_citations.gating.result import Location
from pytest_citations.gating.run_result import RunGates

DEFAULT = Criteria()
BOILING = "cases/boiling-point.yaml::boiling-point"


# -- the rule, criterion by criterion ---------------------------------------------------------


@pytest.mark.parametrize(
    ("before", "after", "said"),
    [
        (DEFAULT, Criteria(fail_on=()),
         "fail_on lost contradicted, partial, not_found, misattributed, unreachable"),
        (DEFAULT, Criteria(fail_on=("contradicted", "not_found")),
         "fail_on lost partial, misattributed, unreachable"),
        (Criteria(forbid_contradicted_topics=("leave", "pay")),
         Criteria(forbid_contradicted_topics=("pay",)), "forbid_contradicted_topics lost leave"),
        (Criteria(numbers_traceable=True), DEFAULT, "numbers_traceable true -> false"),
        (Criteria(uncited_allowed=False), DEFAULT, "uncited_allowed false -> true"),
        (DEFAULT, Criteria(allow_unchecked=True), "allow_unchecked false -> true"),
        (Criteria(min_precision=0.8), Criteria(min_precision=0.5), "min_precision 0.8 -> 0.5"),
        (Criteria(min_precision=0.8), DEFAULT, "min_precision 0.8 -> none"),
        (Criteria(min_supported_share=0.9), Criteria(min_supported_share=0.75),
         "min_supported_share 0.9 -> 0.75"),
        (Criteria(min_supported_share=0.9), DEFAULT, "min_supported_share 0.9 -> none"),
    ],
)  # fmt: skip
def test_each_criterion_made_laxer_is_a_relaxation_named_with_before_and_after(
    before: Criteria, after: Criteria, said: str
) -> None:
    [relaxation] = relaxed_criteria(before, after)

    assert str(relaxation) == said


@pytest.mark.parametrize(
    ("before", "after"),
    [
        (DEFAULT, DEFAULT),
        (Criteria(fail_on=("contradicted",)), DEFAULT),  # a label added
        (DEFAULT, Criteria(fail_on=(*DEFAULT.fail_on, "uncited"))),
        (Criteria(forbid_contradicted_topics=("pay",)),
         Criteria(forbid_contradicted_topics=("pay", "leave"))),
        (DEFAULT, Criteria(numbers_traceable=True)),
        (DEFAULT, Criteria(uncited_allowed=False)),
        (Criteria(allow_unchecked=True), DEFAULT),
        (DEFAULT, Criteria(min_precision=0.5)),  # a threshold set where there was none
        (Criteria(min_precision=0.5), Criteria(min_precision=0.8)),
        (Criteria(min_supported_share=0.5), Criteria(min_supported_share=0.5)),
    ],
)  # fmt: skip
def test_a_stricter_or_equal_criterion_is_no_relaxation(before: Criteria, after: Criteria) -> None:
    assert relaxed_criteria(before, after) == ()


def test_every_relaxed_criterion_is_named_each_once() -> None:
    before = Criteria(numbers_traceable=True, min_precision=0.8, uncited_allowed=False)
    after = Criteria(fail_on=("contradicted",), min_precision=0.7)

    assert [r.criterion for r in relaxed_criteria(before, after)] == [
        "fail_on", "numbers_traceable", "uncited_allowed", "min_precision",
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("before", "after", "said"),
    [
        (("cohen_kappa", 0.6), ("cohen_kappa", 0.4),
         "min_agreement cohen_kappa 0.6 -> cohen_kappa 0.4"),
        (("cohen_kappa", 0.6), None, "min_agreement cohen_kappa 0.6 -> none"),
        # Another metric cannot be ranked against the first: never silently accepted.
        (("cohen_kappa", 0.6), ("accuracy", 0.9), "min_agreement cohen_kappa 0.6 -> accuracy 0.9"),
    ],
)  # fmt: skip
def test_the_runs_calibration_gate_made_laxer_is_a_relaxation(
    before: tuple[str, float], after: tuple[str, float] | None, said: str
) -> None:
    relaxed = relaxed_gates(RunGates(min_agreement=before), RunGates(min_agreement=after))

    assert [str(r) for r in relaxed] == [said]
    assert relaxed_gates(RunGates(min_agreement=before), RunGates(min_agreement=before)) == ()
    assert relaxed_gates(RunGates(), RunGates(min_agreement=before)) == ()


# -- decided once, in the comparison ---------------------------------------------------------


def state(key: str, criteria: dict[str, Any] | None) -> CaseState:
    """A case of one supported claim, with its own ``criteria`` (None: the side does not
    say)."""
    file, _, name = key.rpartition("::")
    claim = ClaimState(Location(file, name, "claim-1", 11, 1), "A.", "supported", Decision.PASS)
    return CaseState(file, name, f"{name}?", (claim,), Precision(1, 1, 1), criteria)


def test_a_case_that_dropped_its_failing_labels_is_relaxed_and_fails_under_the_gate() -> None:
    """The red team's edit: ``criteria: {fail_on: []}`` added to the case file."""
    before, after = (state(BOILING, {}),), (state(BOILING, {"fail_on": ()}),)

    gated = compare_runs(before, after, base="base.json", fail_on_regression=True,
                         gates=RunGates(), base_gates=RunGates())  # fmt: skip

    [case] = gated.cases
    assert [str(r) for r in case.relaxed] == [
        "fail_on lost contradicted, partial, not_found, misattributed, unreachable"
    ]
    assert case.relaxation_fails
    assert case.changed
    assert gated.criteria_compared is True
    assert [str(f) for f in gated.failures] == [
        f"fail_on_regression: {BOILING} relaxed its criteria against base.json: fail_on lost "
        "contradicted, partial, not_found, misattributed, unreachable"
    ]
    assert comparison_lines(gated)[1:3] == [
        f"  {BOILING}: citation precision 1.0000 (1/1) -> 1.0000 (1/1)",
        "    criteria relaxed: fail_on lost contradicted, partial, not_found, misattributed, "
        "unreachable (fails the run)",
    ]
    # Without the gate it is shown, and fails nothing.
    shown = compare_runs(before, after, base="base.json", gates=RunGates(), base_gates=RunGates())
    [case] = shown.cases
    assert case.relaxed == gated.cases[0].relaxed
    assert not case.relaxation_fails
    assert shown.failures == ()
    assert relaxation_lines(shown) == [
        f"{BOILING}: criteria relaxed: fail_on lost contradicted, partial, not_found, "
        "misattributed, unreachable"
    ]


def test_the_json_comparison_carries_the_relaxation_typed() -> None:
    comparison = compare_runs(
        (state(BOILING, {"min_precision": 0.8}),), (state(BOILING, {}),), base="base.json",
        fail_on_regression=True, gates=RunGates(), base_gates=RunGates(),
    )  # fmt: skip

    data = json.loads(json.dumps(comparison.to_dict()))

    assert data["criteria_compared"] is True
    assert data["relaxed"] == []
    [case] = data["cases"]
    assert case["relaxed"] == [{"criterion": "min_precision", "before": 0.8, "after": None,
                                "lost": [], "said": "min_precision 0.8 -> none"}]  # fmt: skip
    assert case["relaxation_fails"] is True


def test_a_stricter_case_is_not_relaxed_and_changes_nothing() -> None:
    before = (state(BOILING, {"fail_on": ("contradicted",)}),)
    after = (state(BOILING, {"numbers_traceable": True}),)  # the run's default fail_on: more

    comparison = compare_runs(before, after, base="base.json", fail_on_regression=True,
                              gates=RunGates(), base_gates=RunGates())  # fmt: skip

    assert comparison.relaxed_cases == ()
    assert comparison.failures == ()


def test_the_runs_gates_relaxed_are_named_once_for_the_run_not_on_every_case() -> None:
    """``citations_fail_on`` cut in the pull request's ini file: the cases' own criteria did
    not change, the run's gates did."""
    cases = (state(BOILING, {}), state("cases/returns.yaml::returns", {}))
    lax = RunGates(criteria=Criteria(fail_on=("contradicted",)))

    comparison = compare_runs(cases, cases, base="base.json", fail_on_regression=True,
                              gates=lax, base_gates=RunGates())  # fmt: skip

    assert comparison.relaxed_cases == ()
    assert [str(r) for r in comparison.relaxed] == [
        "fail_on lost partial, not_found, misattributed, unreachable"
    ]
    assert comparison.relaxation_fails
    assert [str(f) for f in comparison.failures] == [
        "fail_on_regression: the run relaxed its gates against base.json: fail_on lost "
        "partial, not_found, misattributed, unreachable"
    ]
    assert comparison_lines(comparison)[1] == (
        "  the run's criteria relaxed: fail_on lost partial, not_found, misattributed, "
        "unreachable (fails the run)"
    )


def test_a_new_case_is_held_to_the_runs_gates_so_a_rename_relaxes_nothing_unseen() -> None:
    """A case renamed out of its match (file, id and question) is a new case: its own
    criteria laxer than the run's are a relaxation too."""
    renamed = CaseState("cases/other.yaml", "other", "Another question?", (),
                        Precision(0, 0, 0), {"fail_on": ()})  # fmt: skip

    comparison = compare_runs((state(BOILING, {}),), (renamed,), base="base.json",
                              fail_on_regression=True, gates=RunGates(),
                              base_gates=RunGates())  # fmt: skip

    [added] = comparison.relaxed_cases
    assert added.status == "added"
    assert [str(f) for f in comparison.failures] == [
        "fail_on_regression: cases/other.yaml::other is new, with criteria laxer than the "
        "run's: fail_on lost contradicted, partial, not_found, misattributed, unreachable"
    ]


def test_a_base_without_criteria_compares_none_and_says_so_once() -> None:
    """A baseline file stores labels only: nothing is guessed, nothing fails for it."""
    before = (state(BOILING, None), state("cases/returns.yaml::returns", None))
    after = (state(BOILING, {"fail_on": ()}), state("cases/returns.yaml::returns", {}))

    comparison = compare_runs(before, after, base="baseline.json", fail_on_regression=True,
                              gates=RunGates(), base_gates=None)  # fmt: skip

    assert comparison.criteria_compared is False
    assert comparison.relaxed_cases == ()
    assert comparison.failures == ()
    assert comparison_lines(comparison).count(f"  {NOT_COMPARED}") == 1
    assert relaxation_lines(comparison) == [NOT_COMPARED]


def test_a_base_of_no_run_holds_no_new_case_to_anything_either() -> None:
    """A base branch that could not be replayed leaves ``{"cases": []}``: every case is new,
    and none is held to criteria nobody compared (the calibration set's ``fail_on: []``)."""
    calibration = CaseState("cases/calibration/rail.yaml", "rail", "Q?", (),
                            Precision(0, 0, 0), {"fail_on": ()})  # fmt: skip

    comparison = compare_runs((), (calibration,), base="base.json", fail_on_regression=True,
                              gates=RunGates(), base_gates=None)  # fmt: skip

    assert comparison.criteria_compared is False
    assert comparison.relaxed_cases == ()
    assert comparison.failures == ()


def test_a_report_case_that_stores_no_criteria_is_not_compared() -> None:
    comparison = compare_runs((state(BOILING, None),), (state(BOILING, {"fail_on": ()}),),
                              base="old.json", fail_on_regression=True, gates=RunGates(),
                              base_gates=RunGates())  # fmt: skip

    assert comparison.criteria_compared is False
    assert comparison.relaxed_cases == ()
    assert comparison.failures == ()


def test_without_the_runs_gates_no_criteria_are_looked_for() -> None:
    comparison = compare_runs((state(BOILING, {}),), (state(BOILING, {"fail_on": ()}),),
                              base="base.json", fail_on_regression=True)  # fmt: skip

    assert comparison.criteria_compared is None
    assert comparison.relaxed_cases == ()
    assert comparison_lines(comparison)[1:2] != [f"  {NOT_COMPARED}"]


# -- the base, read -----------------------------------------------------------------------------


def report(**case: Any) -> dict[str, Any]:
    return {
        "run": {"gates": {"criteria": {"fail_on": ["contradicted"]}}},
        "cases": [{"file": "cases/boiling-point.yaml", "id": "boiling-point", "question": "Q?",
                   "claims": [], **case}],
    }  # fmt: skip


def test_the_base_report_gives_its_gates_and_each_cases_own_criteria(tmp_path: Path) -> None:
    path = tmp_path / "base.json"
    path.write_text(json.dumps(report(criteria={"fail_on": []}, min_precision=0.5)))

    base = read_base(path, "base.json")

    assert base.gates is not None
    assert base.gates.criteria.fail_on == ("contradicted",)
    [case] = base.cases
    assert case.criteria == {"fail_on": (), "min_precision": 0.5}


def test_a_report_case_without_criteria_and_a_baseline_say_they_store_none(
    tmp_path: Path,
) -> None:
    old = tmp_path / "old.json"
    old.write_text(json.dumps({"cases": report()["cases"]}))
    baseline = tmp_path / "baseline.json"
    stored = {"claim": "A.", "label": "supported", "citations": []}
    baseline.write_text(json.dumps({"version": 1, "claims": {f"{BOILING}::claim-1": stored}}))

    for path in (old, baseline):
        base = read_base(path, path.name)
        assert base.gates is None
        assert [case.criteria for case in base.cases] == [None]


@pytest.mark.parametrize(
    ("data", "said"),
    [
        (report(criteria={"fail_on": ["nonsense"]}), "its case 1"),
        (report(criteria=["fail_on"]), "its criteria are not an object"),
        (report(criteria={"min_precision": float("nan")}), "not a fraction"),
        ({**report(), "run": {"gates": {"criteria": {"fail_on": "contradicted"}}}},
         "its run's gates"),
        ({**report(), "run": {"gates": ["criteria"]}}, "its run's gates"),
    ],
)  # fmt: skip
def test_criteria_in_the_base_that_are_none_are_an_error_naming_it(
    tmp_path: Path, data: dict[str, Any], said: str
) -> None:
    path = tmp_path / "base.json"
    path.write_text(json.dumps(data))

    with pytest.raises(CitationsError, match=said) as raised:
        read_base(path, "base.json")

    assert str(path) in str(raised.value)


def test_a_relaxation_reads_plainly_in_every_shape() -> None:
    assert str(Relaxation("fail_on", ("partial",), (), ("partial",))) == "fail_on lost partial"
    assert str(Relaxation("min_precision", 1, None)) == "min_precision 1 -> none"


# -- a claim that passes on its own keys -----------------------------------------------------


def one_claim(key: str, label: str, decision: Decision, text: str = "A.") -> CaseState:
    """A case of one claim with ``label`` and ``decision``, its criteria unchanged ({})."""
    file, _, name = key.rpartition("::")
    claim = ClaimState(Location(file, name, "claim-1", 11, 1), text, label, decision)
    return CaseState(file, name, f"{name}?", (claim,), Precision(0, 1, 1), {})


def test_a_claim_that_passes_with_the_label_it_failed_with_is_a_relaxation() -> None:
    """The second red team's finding: under a run that fails contradicted claims of a
    forbidden topic only, the claim's ``topic: medical`` edited to ``Medical`` (or
    ``general: true`` added to an uncited claim) passes it with the same label. No
    criterion changed, so only the claim's own decision shows it: same text, same label,
    failed in the base, passes now."""
    before = (one_claim(BOILING, "contradicted", Decision.FAIL),)
    after = (one_claim(BOILING, "contradicted", Decision.PASS),)

    gated = compare_runs(before, after, base="base.json", fail_on_regression=True,
                         gates=RunGates(), base_gates=RunGates())  # fmt: skip

    [case] = gated.cases
    assert [str(r) for r in case.relaxed] == ["claim-1 (contradicted) fail -> pass"]
    assert [str(f) for f in gated.failures] == [
        f"fail_on_regression: {BOILING} relaxed its criteria against base.json: "
        "claim-1 (contradicted) fail -> pass"
    ]


@pytest.mark.parametrize(
    ("before", "after"),
    [
        # Better evidence: the label changed.
        (("contradicted", Decision.FAIL, "A."), ("supported", Decision.PASS, "A.")),
        # Another claim: the text changed.
        (("contradicted", Decision.FAIL, "A."), ("contradicted", Decision.PASS, "B.")),
        # Stricter, or unchanged.
        (("contradicted", Decision.PASS, "A."), ("contradicted", Decision.FAIL, "A.")),
        (("contradicted", Decision.FAIL, "A."), ("contradicted", Decision.FAIL, "A.")),
    ],
)
def test_a_claim_whose_evidence_or_text_changed_is_no_relaxation(
    before: tuple[str, Decision, str], after: tuple[str, Decision, str]
) -> None:
    comparison = compare_runs(
        (one_claim(BOILING, *before),), (one_claim(BOILING, *after),), base="base.json",
        fail_on_regression=True, gates=RunGates(), base_gates=RunGates(),
    )  # fmt: skip

    assert comparison.cases[0].relaxed == ()
    assert not any("relaxed" in str(f) for f in comparison.failures)


def test_a_claim_passing_because_its_case_relaxed_is_named_by_the_criterion_alone() -> None:
    """``criteria: {fail_on: []}`` also passes the claim: the criterion names the cause, once."""
    before = (one_claim(BOILING, "contradicted", Decision.FAIL),)
    relaxed = replace(one_claim(BOILING, "contradicted", Decision.PASS), criteria={"fail_on": ()})

    comparison = compare_runs(before, (relaxed,), base="base.json", fail_on_regression=True,
                              gates=RunGates(), base_gates=RunGates())  # fmt: skip

    assert [str(r) for r in comparison.cases[0].relaxed] == [
        "fail_on lost contradicted, partial, not_found, misattributed, unreachable"
    ]


def test_a_failing_claim_removed_while_the_answer_still_says_it_is_a_relaxation() -> None:
    """The second red team's other finding: deleting a failing claim from ``claims:`` turned
    the gate green. Removed with its sentence, it is the answer's change (shown as removed);
    removed while the answer still says it, the answer asserts it unchecked."""
    said = "Water boils at 50 °C on mountains."
    before = (one_claim(BOILING, "contradicted", Decision.FAIL, said),)
    base_claim = before[0].claims[0]
    kept = replace(before[0], claims=(), precision=Precision(0, 0, 0))

    still = replace(kept, answer="Water boils at 50 °C on mountains [1]. It is cold there.")
    gone = replace(kept, answer="It is cold there.")

    gated = compare_runs(before, (still,), base="base.json", fail_on_regression=True,
                         gates=RunGates(), base_gates=RunGates())  # fmt: skip
    assert [str(r) for r in gated.cases[0].relaxed] == [
        "claim-1 (contradicted) fail -> removed, still in the answer"
    ]
    assert len(gated.failures) == 1
    fine = compare_runs(before, (gone,), base="base.json", fail_on_regression=True,
                        gates=RunGates(), base_gates=RunGates())  # fmt: skip
    assert fine.cases[0].relaxed == ()
    assert [change.kind.value for change in fine.cases[0].changes] == ["removed"]
    # A passing claim removed is less checked, never greener: not a relaxation.
    passed = (replace(before[0], claims=(replace(base_claim, decision=Decision.PASS),)),)
    assert compare_runs(passed, (still,), base="base.json", fail_on_regression=True,
                        gates=RunGates(), base_gates=RunGates()).cases[0].relaxed == ()  # fmt: skip
