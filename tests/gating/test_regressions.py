"""A run against the base branch's result (``--citations-compare``), case by case, on the
pure comparison: claims added, removed and changed, labels that changed, precision before and
after; cases matched by key, then by question (a rephrased answer is the same case), then by
id; which claims regressed (got worse); a claim unchecked on either side, which is not
compared; the two gates, decided once; and the base read from a JSON report or a baseline
file."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from pytest_citations.errors import CitationsError
from pytest_citations.gating.base_report import load_base
from pytest_citations.gating.criteria import Decision
from pytest_citations.gating.precision import Precision
from pytest_citations.gating.regression_lines import comparison_lines
from pytest_citations.gating.regressions import (
    CaseState,
    ChangeKind,
    ClaimState,
    RunComparison,
    compare_runs,
)
from pytest_citations.gating.result import Location

PASS, FAIL = Decision.PASS, Decision.FAIL


def where(key: str, n: int) -> Location:
    file, _, case = key.rpartition("::")
    return Location(file, case, f"claim-{n}", 10 + n, n)


def claim(
    case: str, n: int, text: str, label: str | None, decision: Decision | None = PASS
) -> ClaimState:
    return ClaimState(where(case, n), text, label, decision)


def case(
    key: str,
    question: str | None,
    *claims: tuple[str, str | None] | tuple[str, str | None, Decision | None],
    precision: tuple[int, int] | tuple[int, int, int] = (1, 2),
) -> CaseState:
    file, _, name = key.rpartition("::")
    states = tuple(claim(key, n, *spec) for n, spec in enumerate(claims, start=1))
    supported, total, *unchecked = precision
    return CaseState(file, name, question, states, Precision(supported, total, total, *unchecked))


RETURNS = "cases/returns.yaml::returns"
BOILING = "cases/boiling.yaml::boiling"
BASE = (
    case(RETURNS, "Can business customers return opened hardware?",
         ("Customers can return hardware within 14 days.", "supported"),
         ("Refunds go to the original payment method.", "supported"),
         ("Opened software licences cannot be returned.", "not_found"),
         precision=(2, 3)),
    case(BOILING, "At what temperature does water boil?",
         ("Water boils at 100 °C at sea level.", "supported"), precision=(1, 1)),
)  # fmt: skip


def by_kind(comparison: RunComparison) -> dict[str, list[tuple[str, str | None, str | None]]]:
    found: dict[str, list[tuple[str, str | None, str | None]]] = {}
    for change in comparison.changes:
        said = (change.where.name, change.before, change.after)
        found.setdefault(change.kind.value, []).append(said)
    return found


def test_nothing_changed_is_no_change_and_no_regression() -> None:
    comparison = compare_runs(BASE, BASE, base="base.json", fail_on_regression=True, max_drop=0.0)

    assert comparison.changes == ()
    assert [c.matched_by for c in comparison.cases] == ["key", "key"]
    assert comparison.failures == comparison.undecided == ()
    assert comparison_lines(comparison) == [
        "Regressions against base.json: 0 claims regressed; no case changed; "
        "citation_precision 0.7500 (3/4) -> 0.7500 (3/4)"
    ]


def test_a_claim_whose_label_changed_to_failing_became_failing() -> None:
    now = (
        case(RETURNS, BASE[0].question,
             ("Customers can return hardware within 14 days.", "contradicted", FAIL),
             ("Refunds go to the original payment method.", "supported"),
             ("Opened software licences cannot be returned.", "not_found"),
             precision=(1, 3)),
        BASE[1],
    )  # fmt: skip

    comparison = compare_runs(BASE, now, base="base.json", fail_on_regression=True)

    assert by_kind(comparison) == {"label": [("claim-1", "supported", "contradicted")]}
    [regression] = comparison.regressions
    assert (regression.case, regression.where.nodeid, regression.where.line) == (
        RETURNS, f"{RETURNS}::claim-1", 11,
    )  # fmt: skip
    # Whether a regression fails the run is decided once, on the regression itself.
    assert regression.fails
    assert [str(f) for f in comparison.failures] == [
        f"fail_on_regression: {RETURNS}::claim-1 regressed against base.json "
        "(supported -> contradicted)"
    ]
    shown_only = compare_runs(BASE, now, base="base.json", fail_on_regression=False)
    assert [(r.regressed, r.fails) for r in shown_only.regressions] == [(True, False)]
    assert shown_only.failures == ()


def test_a_rephrased_answer_is_the_same_case_with_changed_claims_old_and_new_text() -> None:
    """The case's file and id changed too (a new export names it anew): it is matched by its
    question, and each claim by its place."""
    now = (
        case("cases/export-2.yaml::q-17", "Can business customers return opened  hardware?",
             ("Business customers have 14 days to return hardware.", "supported"),
             ("Refunds go back to the card that paid.", "supported"),
             ("Opened software licences can be returned.", "contradicted", FAIL),
             precision=(2, 3)),
        BASE[1],
    )  # fmt: skip

    comparison = compare_runs(BASE, now, base="base.json")

    [returns] = [c for c in comparison.cases if c.base_case == RETURNS]
    assert (returns.case, returns.matched_by, returns.status) == (
        "cases/export-2.yaml::q-17", "question", "matched",
    )  # fmt: skip
    assert [c.kind for c in returns.changes] == [ChangeKind.CHANGED] * 3
    third = returns.changes[2]
    assert (third.text_before, third.text_after) == (
        "Opened software licences cannot be returned.",
        "Opened software licences can be returned.",
    )
    assert third.regressed
    lines = comparison_lines(comparison)
    assert lines[0] == (
        "Regressions against base.json: 1 claim regressed; cases: 1 changed; "
        "citation_precision 0.7500 (3/4) -> 0.7500 (3/4)"
    )
    assert lines[1] == (
        f"  cases/export-2.yaml::q-17 (was {RETURNS}, same question): citation precision "
        "0.6667 (2/3) -> 0.6667 (2/3)"
    )
    assert lines[-3:] == [
        "    claim-3 changed: not_found -> contradicted (regressed)",
        "      was: Opened software licences cannot be returned.",
        "      now: Opened software licences can be returned.",
    ]


def test_added_and_removed_claims_and_cases() -> None:
    now = (
        case(RETURNS, BASE[0].question,
             ("Refunds go to the original payment method.", "supported"),
             ("Customers can return hardware within 14 days.", "supported"),
             ("Gift cards cannot be refunded.", "contradicted", FAIL),
             ("Opened software licences cannot be returned.", "not_found"),
             ("Shipping is free over 50 euros.", "supported"),
             precision=(3, 5)),
        case("cases/water.yaml::water", "Is sea water salty?",
             ("Sea water is salty.", "contradicted", FAIL), precision=(0, 1)),
    )  # fmt: skip

    comparison = compare_runs(BASE, now, base="base.json")

    # Reordered claims are matched by their text: they did not change.
    assert by_kind(comparison) == {
        "added": [("claim-3", None, "contradicted"), ("claim-5", None, "supported")],
    }
    assert {c.case: c.status for c in comparison.cases} == {
        RETURNS: "matched",
        BOILING: "removed",
        "cases/water.yaml::water": "added",
    }
    # A new failing claim in a case the base had is a regression; a supported one is not,
    # and neither is a new case's.
    assert [r.where.name for r in comparison.regressions] == ["claim-3"]
    assert comparison_lines(comparison)[1:] == [
        f"  {BOILING}: removed (1 claim)",
        f"  {RETURNS}: citation precision 0.6667 (2/3) -> 0.6000 (3/5)",
        "    claim-3 added: contradicted (regressed)",
        "      now: Gift cards cannot be refunded.",
        "    claim-5 added: supported",
        "      now: Shipping is free over 50 euros.",
        "  cases/water.yaml::water: added (1 claim)",
    ]


def test_a_removed_claim_is_listed_with_its_text() -> None:
    now = (case(RETURNS, BASE[0].question, *[(c.text, c.label) for c in BASE[0].claims[:2]],
                precision=(2, 2)), BASE[1])  # fmt: skip

    comparison = compare_runs(BASE, now, base="base.json")

    [removed] = comparison.changes
    assert (removed.kind, removed.where.name, removed.before, removed.after) == (
        ChangeKind.REMOVED, "claim-3", "not_found", None,
    )  # fmt: skip
    assert comparison_lines(comparison)[-2:] == [
        "    claim-3 removed (was not_found)",
        "      was: Opened software licences cannot be returned.",
    ]


def test_a_claim_that_was_failing_and_still_fails_is_no_regression() -> None:
    failing = (case(BOILING, None, ("Water boils at 50 °C.", "contradicted", FAIL)),)
    worse = (case(BOILING, None, ("Water boils at 50 °C.", "unreachable", FAIL)),)

    comparison = compare_runs(failing, worse, base="base.json")

    assert by_kind(comparison) == {"label": [("claim-1", "contradicted", "unreachable")]}
    assert comparison.regressions == ()


def test_a_claim_that_now_fails_a_new_criterion_changed_its_decision() -> None:
    before = (case(BOILING, None, ("It costs 5 euros.", "supported", PASS)),)
    after = (case(BOILING, None, ("It costs 5 euros.", "supported", FAIL)),)

    comparison = compare_runs(before, after, base="base.json")

    assert [(c.kind, c.regressed) for c in comparison.changes] == [(ChangeKind.DECISION, True)]


def test_a_base_without_decisions_counts_a_worse_label_that_fails_as_a_regression() -> None:
    stored = (case(BOILING, None, ("A.", "supported", None), ("B.", "contradicted", None)),)
    now = (case(BOILING, None, ("A.", "partial", FAIL), ("B.", "contradicted", FAIL)),)

    comparison = compare_runs(stored, now, base="baseline.json")

    assert [r.where.name for r in comparison.regressions] == ["claim-1"]


def test_the_precision_gate_fails_each_case_and_the_run_that_fell_by_more_than_x() -> None:
    now = (case(RETURNS, BASE[0].question, *[(c.text, c.label) for c in BASE[0].claims],
                precision=(1, 3)), BASE[1])  # fmt: skip

    def failures(limit: float) -> list[str]:
        return [str(f) for f in compare_runs(BASE, now, base="base.json", max_drop=limit).failures]

    assert failures(0.2) == [
        f"max_precision_drop: {RETURNS}: citation precision fell by 0.3333 against base.json, "
        "from 0.6667 (2/3) to 0.3333 (1/3) (more than 0.2)",
        "max_precision_drop: the run: citation precision fell by 0.2500 against base.json, "
        "from 0.7500 (3/4) to 0.5000 (2/4) (more than 0.2)",
    ]
    assert len(failures(0.3)) == 1
    assert failures(0.5) == []


def test_base_cases_out_of_scope_and_claims_left_out_are_not_removed() -> None:
    """A shard answers for its own files; a selection's deselected claims did not go."""
    now = (case(RETURNS, BASE[0].question, *[(c.text, c.label) for c in BASE[0].claims[:2]],
                precision=(2, 2)),)  # fmt: skip

    comparison = compare_runs(
        BASE,
        now,
        base="base.json",
        in_scope=lambda file: file == "cases/returns.yaml",
        left_out=frozenset({f"{RETURNS}::claim-3"}),
    )

    assert comparison.changes == ()
    assert [c.case for c in comparison.cases] == [RETURNS]
    assert comparison.precision_before == Precision(2, 3, 3)


def test_the_base_reads_a_json_report_and_a_baseline_file(tmp_path: Path) -> None:
    report = tmp_path / "base.json"
    report.write_text(json.dumps({"run": {}, "cases": [{
        "file": "cases/returns.yaml", "id": "returns", "question": "Q?",
        "counts": {"supported": 1, "citations": 2, "reachable": 2},
        "claims": [{"nodeid": f"{RETURNS}::claim-1", "claim": "A.", "label": "supported",
                    "decision": "pass", "line": 7, "citations": []}],
    }]}), encoding="utf-8")  # fmt: skip
    baseline = tmp_path / "baseline.json"
    baseline.write_text(json.dumps({"version": 1, "claims": {
        f"{RETURNS}::claim-1": {"claim": "A.", "label": "supported", "citations": [
            {"url": "https://a.example/", "label": "supported", "reason": None},
            {"url": "https://b.example/", "label": "unreachable", "reason": "http_404"}]},
    }}), encoding="utf-8")  # fmt: skip

    [from_report] = load_base(report)
    [from_baseline] = load_base(baseline)

    claim_1 = Location("cases/returns.yaml", "returns", "claim-1", 7)
    assert from_report == CaseState(
        "cases/returns.yaml", "returns", "Q?",
        (ClaimState(claim_1, "A.", "supported", PASS),),
        Precision(1, 2, 2),
    )  # fmt: skip
    assert from_baseline == CaseState(
        "cases/returns.yaml", "returns", None,
        (ClaimState(Location("cases/returns.yaml", "returns", "claim-1"), "A.", "supported",
                    None),),
        Precision(1, 2, 1),
    )  # fmt: skip


@pytest.mark.parametrize(
    ("text", "said"),
    [
        (None, "does not exist"),
        ("{not json", "cannot read the base"),
        ('{"summary": {}}', "neither a pytest-citations JSON report"),
        ('{"run": {}, "cases": [{"file": "a.yaml"}]}', "is not a pytest-citations JSON report"),
    ],
)
def test_a_base_that_is_not_one_is_an_error_naming_it(
    tmp_path: Path, text: str | None, said: str
) -> None:
    path = tmp_path / "base.json"
    if text is not None:
        path.write_text(text, encoding="utf-8")

    with pytest.raises(CitationsError, match=said) as raised:
        load_base(path)

    assert str(path) in str(raised.value)


def test_a_worse_label_that_still_passes_is_a_regression_and_a_better_one_is_not() -> None:
    before = (case(BOILING, None, ("A.", "supported"), ("B.", "not_found"), ("C.", "partial")),)
    after = (case(BOILING, None, ("A.", "partial"), ("B.", "supported"), ("C.", "not_found")),)

    comparison = compare_runs(before, after, base="base.json")

    assert [(r.where.name, r.before, r.after) for r in comparison.regressions] == [
        ("claim-1", "supported", "partial"),
        ("claim-3", "partial", "not_found"),
    ]
    assert [c.where.name for c in comparison.changes] == ["claim-1", "claim-2", "claim-3"]


def test_an_added_claim_regresses_unless_its_citations_support_it_or_it_is_general() -> None:
    before = (case(BOILING, None, ("A.", "supported")),)
    general = ClaimState(where(BOILING, 4), "Enjoy.", "uncited", PASS, True)
    after = (
        CaseState(
            "cases/boiling.yaml", "boiling", None,
            (*case(BOILING, None, ("A.", "supported"), ("B.", "supported"),
                   ("C.", "not_found")).claims, general),
            Precision(2, 3, 3),
        ),
    )  # fmt: skip

    comparison = compare_runs(before, after, base="base.json")

    assert [(c.where.name, c.regressed) for c in comparison.changes] == [
        ("claim-2", False),
        ("claim-3", True),
        ("claim-4", False),
    ]


def test_a_claim_unchecked_on_either_side_is_not_compared() -> None:
    """A claim that could not be checked was compared as a change of label
    (``supported -> not_found``): it has no label, and nothing was compared."""
    before = (case(BOILING, None, ("A.", "supported"), ("B.", None, Decision.INCOMPLETE)),)
    after = (case(BOILING, None, ("A.", None, Decision.INCOMPLETE), ("B.", "contradicted", FAIL)),)

    comparison = compare_runs(before, after, base="base.json", fail_on_regression=True)

    assert by_kind(comparison) == {
        "not_compared": [
            ("claim-1", "supported", "unchecked"),
            ("claim-2", "unchecked", "contradicted"),
        ]
    }
    assert comparison.regressions == comparison.failures == ()
    assert comparison_lines(comparison)[0].startswith(
        "Regressions against base.json: 0 claims regressed, 2 not compared (unchecked); "
    )
    assert "    claim-1 not compared: supported -> unchecked" in comparison_lines(comparison)


def test_a_precision_drop_that_unchecked_citations_could_undo_is_undecided_not_failed() -> None:
    """A fork's run replays: a new claim's citation is unchecked, so its case's precision
    counts one citation fewer. The drop gate cannot be decided (incomplete), unless the drop
    stands even with every unchecked citation supported, on either side."""
    now = (case(RETURNS, BASE[0].question, *[(c.text, c.label) for c in BASE[0].claims],
                precision=(1, 3, 1)), BASE[1])  # fmt: skip
    comparison = compare_runs(BASE, now, base="base.json", max_drop=0.2)

    assert comparison.failures == ()
    assert [str(f) for f in comparison.undecided] == [
        f"max_precision_drop: {RETURNS}: citation precision fell by 0.3333 against base.json, "
        "from 0.6667 (2/3) to 0.3333 (1/3, 3 of 4 checked) (more than 0.2) (undecided: "
        "citations unchecked)",
        "max_precision_drop: the run: citation precision fell by 0.2500 against base.json, "
        "from 0.7500 (3/4) to 0.5000 (2/4, 4 of 5 checked) (more than 0.2) (undecided: "
        "citations unchecked)",
    ]
    # A drop the unchecked citations could not undo fails.
    hopeless = (case(RETURNS, BASE[0].question, *[(c.text, c.label) for c in BASE[0].claims],
                     precision=(0, 3, 1)), BASE[1])  # fmt: skip
    failed = compare_runs(BASE, hopeless, base="base.json", max_drop=0.2)
    assert [f.message.startswith(f"{RETURNS}: ") for f in failed.failures] == [True, False]
    # The base's unchecked citations leave a drop undecided too.
    open_base = (replace(BASE[0], precision=Precision(2, 3, 3, 1)), BASE[1])
    assert compare_runs(open_base, BASE, base="base.json", max_drop=0.2).undecided == ()
    fell = (case(RETURNS, BASE[0].question, *[(c.text, c.label) for c in BASE[0].claims],
                 precision=(1, 3)), BASE[1])  # fmt: skip
    assert len(compare_runs(open_base, fell, base="base.json", max_drop=0.3).undecided) == 1
