"""Judge calibration (004, C5; issue 4): claims carrying a human label (``expect:``) measure
how often the judge agrees (accuracy, balanced accuracy, Cohen's kappa, confusion matrix per
label); ``--citations-calibrate`` prints it and ``citations_min_agreement`` gates the run."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from plugin_helpers import (
    NOT_FOUND_CLAIM,
    PARTIAL_CLAIM,
    REFUNDS_CLAIM,
    REFUNDS_URL,
    RETURNS_URL,
    Citations,
    single_claim_case,
)

from pytest_citations.cases import iter_claims, load_cases
from pytest_citations.gating.calibration import CALIBRATION_LABELS, Agreement, as_judge_label


def pairs(*counts: tuple[str, str, int]) -> list[tuple[str, str]]:
    return [(human, judge) for human, judge, n in counts for _ in range(n)]


# -- Agreement, against figures computed by hand ------------------------------------------------


def test_the_classic_two_by_two_kappa() -> None:
    # Two raters, 50 items: yes/yes 20, yes/no 5, no/yes 10, no/no 15.
    # p_o = 35/50 = 0.7; p_e = 0.5 * 0.6 + 0.5 * 0.4 = 0.5; kappa = (0.7 - 0.5) / 0.5 = 0.4.
    agreement = Agreement.of(
        pairs(
            ("supported", "supported", 20),
            ("supported", "not_found", 5),
            ("not_found", "supported", 10),
            ("not_found", "not_found", 15),
        )
    )
    assert agreement.total == 50
    assert agreement.accuracy == pytest.approx(0.7)
    assert agreement.kappa == pytest.approx(0.4)
    assert agreement.balanced_accuracy == pytest.approx((20 / 25 + 15 / 25) / 2)


def test_unbalanced_two_by_two() -> None:
    # yes/yes 45, yes/no 15, no/yes 25, no/no 15: p_o = 0.6, p_e = 0.6 * 0.7 + 0.4 * 0.3
    # = 0.54, kappa = 0.06 / 0.46; balanced accuracy = (45/60 + 15/40) / 2 = 0.5625.
    agreement = Agreement.of(
        pairs(
            ("supported", "supported", 45),
            ("supported", "contradicted", 15),
            ("contradicted", "supported", 25),
            ("contradicted", "contradicted", 15),
        )
    )
    assert agreement.accuracy == pytest.approx(0.6)
    assert agreement.kappa == pytest.approx(0.06 / 0.46)
    assert agreement.balanced_accuracy == pytest.approx(0.5625)
    assert agreement.recall("supported") == pytest.approx(0.75)
    assert agreement.precision("supported") == pytest.approx(45 / 70)
    assert agreement.recall("partial") is None  # no human gave it
    assert agreement.precision("partial") is None  # the judge never gave it


THREE_LABELS = pairs(
    ("supported", "supported", 4),
    ("supported", "partial", 1),
    ("partial", "partial", 2),
    ("partial", "not_found", 1),
    ("not_found", "not_found", 2),
)


def test_three_labels() -> None:
    # p_o = 8/10; human s5 p3 n2, judge s4 p3 n3: p_e = (20 + 9 + 6) / 100 = 0.35;
    # kappa = 0.45 / 0.65; balanced accuracy = (4/5 + 2/3 + 2/2) / 3.
    agreement = Agreement.of(THREE_LABELS)
    assert agreement.accuracy == pytest.approx(0.8)
    assert agreement.kappa == pytest.approx(0.45 / 0.65)
    assert agreement.balanced_accuracy == pytest.approx((4 / 5 + 2 / 3 + 1) / 3)


def test_confusion_matrix_rows_human_columns_judge() -> None:
    matrix = Agreement.of(THREE_LABELS).confusion()
    assert matrix == {
        "supported": {"supported": 4, "partial": 1, "contradicted": 0, "not_found": 0},
        "partial": {"supported": 0, "partial": 2, "contradicted": 0, "not_found": 1},
        "contradicted": {"supported": 0, "partial": 0, "contradicted": 0, "not_found": 0},
        "not_found": {"supported": 0, "partial": 0, "contradicted": 0, "not_found": 2},
    }


def test_the_counts_per_label_are_the_matrixs_rows_and_columns() -> None:
    """The per-label human and judge counts and the agreed claims are values every report
    reads (issue 25), the sums of the confusion matrix's rows, columns and diagonal."""
    agreement = Agreement.of(THREE_LABELS)
    matrix = agreement.confusion()
    assert agreement.human == {label: sum(row.values()) for label, row in matrix.items()}
    assert agreement.judged == {
        label: sum(row[label] for row in matrix.values()) for label in agreement.labels
    }
    assert agreement.agreed == sum(matrix[label][label] for label in agreement.labels) == 8


def test_perfect_and_chance_agreement() -> None:
    perfect = Agreement.of(pairs(("supported", "supported", 3), ("not_found", "not_found", 2)))
    assert (perfect.accuracy, perfect.balanced_accuracy, perfect.kappa) == (1.0, 1.0, 1.0)
    one_label = Agreement.of(pairs(("supported", "supported", 4)))
    assert one_label.kappa == 1.0
    # The judge says "supported" whatever the human says: right half the time, by chance.
    constant = Agreement.of(pairs(("supported", "supported", 5), ("not_found", "supported", 5)))
    assert constant.accuracy == 0.5
    assert constant.kappa == pytest.approx(0.0)
    assert constant.balanced_accuracy == 0.5


def test_claim_labels_outside_the_judges_four_count_as_not_found() -> None:
    assert [as_judge_label(x) for x in ("misattributed", "uncited", "unreachable")] == [
        "not_found"
    ] * 3
    agreement = Agreement.of([("not_found", "misattributed"), ("supported", "supported")])
    assert agreement.accuracy == 1.0


def test_no_labelled_claim_gives_no_figures() -> None:
    empty = Agreement.of([])
    assert (empty.accuracy, empty.balanced_accuracy, empty.kappa) == (None, None, None)
    assert "accuracy=n/a balanced_accuracy=n/a cohen_kappa=n/a" in empty.lines()


_PAIRS = st.lists(
    st.tuples(st.sampled_from(CALIBRATION_LABELS), st.sampled_from(CALIBRATION_LABELS)),
    min_size=1,
    max_size=60,
)


@given(_PAIRS)
def test_agreement_invariants(labelled: list[tuple[str, str]]) -> None:
    agreement = Agreement.of(labelled)
    matrix = agreement.confusion()
    assert sum(sum(row.values()) for row in matrix.values()) == len(labelled)
    diagonal = sum(matrix[label][label] for label in CALIBRATION_LABELS)
    assert agreement.accuracy == pytest.approx(diagonal / len(labelled))
    assert agreement.kappa is not None
    assert -1.0 <= agreement.kappa <= 1.0 + 1e-9
    assert agreement.balanced_accuracy is not None
    assert 0.0 <= agreement.balanced_accuracy <= 1.0
    # Swapping the raters leaves accuracy and kappa unchanged (kappa is symmetric).
    swapped = Agreement.of([(judge, human) for human, judge in labelled])
    assert swapped.accuracy == pytest.approx(agreement.accuracy)
    assert swapped.kappa == pytest.approx(agreement.kappa)


# -- the plugin ----------------------------------------------------------------------------------

#: The judge says partial, supported, not_found; the human labels agree on the first two.
LABELLED = f"""\
id: labelled
citations:
  1: {RETURNS_URL}
  2: {REFUNDS_URL}
claims:
  - text: {PARTIAL_CLAIM}
    cites: [1]
    expect: partial
  - text: {REFUNDS_CLAIM}
    cites: [2]
    expect: supported
  - text: {NOT_FOUND_CLAIM}
    cites: [1]
    expect: supported
"""


@pytest.fixture
def labelled(citations: Citations) -> Citations:
    citations.write("cases/labelled.yaml", LABELLED)
    citations.write("cases/plain.yaml", single_claim_case("plain", REFUNDS_CLAIM, REFUNDS_URL))
    result, _ = citations.record("cases/", gate="contradicted")
    result.assert_outcomes(passed=6)
    assert "calibration:" not in result.stdout.str()  # only when asked for
    return citations


def test_calibrate_reports_agreement_for_the_labelled_claims(labelled: Citations) -> None:
    result = labelled.run("cases/", "--citations-calibrate", gate="contradicted")

    assert result.ret == pytest.ExitCode.OK  # a report, not a gate
    # Pairs (partial, partial), (supported, supported), (supported, not_found):
    # accuracy 2/3; balanced (1 + 1/2) / 2; p_e = (1*1 + 2*1) / 9, kappa = (2/3 - 1/3) / (2/3).
    result.stdout.fnmatch_lines(
        [
            "calibration: 3 labelled claims",
            "accuracy=0.6667 balanced_accuracy=0.7500 cohen_kappa=0.5000",
            "label * precision * recall * human * judge",
            "supported * 1.0000 * 0.5000 * 2 * 1",
            "partial * 1.0000 * 1.0000 * 1 * 1",
            "contradicted * n/a * n/a * 0 * 0",
            "not_found * 0.0000 * n/a * 0 * 1",
            "confusion (rows human, columns judge):",
            "* supported * partial * contradicted * not_found",
            "supported * 1 * 0 * 0 * 1",
            "partial * 0 * 1 * 0 * 0",
            "contradicted * 0 * 0 * 0 * 0",
            "not_found * 0 * 0 * 0 * 0",
        ]
    )


def test_min_agreement_gate_fails_the_run_below_it(labelled: Citations) -> None:
    labelled.write("pytest.ini", "[pytest]\ncitations_min_agreement = accuracy=0.99\n")

    result = labelled.run("cases/", gate="contradicted")

    result.assert_outcomes(passed=6)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        [
            "calibration: 3 labelled claims",
            "Release decision: fail (min_agreement: judge accuracy 0.6667 below 0.99)",
            "FAIL min_agreement: judge accuracy 0.6667 below 0.99",
        ]
    )


@pytest.mark.parametrize("gate", ["0.4", "kappa=0.4", "balanced_accuracy=0.75"])
def test_min_agreement_gate_passes_at_or_above_it(labelled: Citations, gate: str) -> None:
    labelled.write("pytest.ini", f"[pytest]\ncitations_min_agreement = {gate}\n")

    result = labelled.run("cases/", gate="contradicted")

    assert result.ret == pytest.ExitCode.OK
    assert "FAIL" not in result.stdout.str()
    result.stdout.fnmatch_lines(["Release decision: pass"])


def test_an_unknown_agreement_metric_is_a_usage_error(citations: Citations) -> None:
    citations.write("cases/labelled.yaml", LABELLED)
    citations.write("pytest.ini", "[pytest]\ncitations_min_agreement = f1=0.8\n")

    result = citations.run("cases/", gate="default")

    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*citations_min_agreement: unknown metric 'f1'*"])


def test_an_expect_label_outside_the_four_is_a_collection_error(citations: Citations) -> None:
    citations.write(
        "cases/bad.yaml",
        f"""\
        id: bad
        citations: [{REFUNDS_URL}]
        claims:
          - text: {REFUNDS_CLAIM}
            cites: [1]
            expect: misattributed
        """,
    )

    result = citations.run("cases/", gate="default")

    result.stdout.fnmatch_lines(
        ["*cases/bad.yaml:6: 'expect' of claim 1 must be one of supported, partial*"]
    )


def test_the_shipped_calibration_set_holds_at_least_40_human_labels() -> None:
    """Issue 4 asks for a calibration set of at least 40 claims in ``cases/calibration/``."""
    folder = Path(__file__).resolve().parents[2] / "cases" / "calibration"
    files = sorted(folder.glob("*.yaml"))
    labelled = [
        claim for path in files for _, claim in iter_claims(load_cases(path)) if claim.expect
    ]
    assert len(labelled) >= 40, f"{len(labelled)} labelled claims in {len(files)} files"
    assert {claim.expect for claim in labelled} <= set(CALIBRATION_LABELS)


def test_min_agreement_with_nothing_to_measure_is_incomplete(citations: Citations) -> None:
    """A gate that cannot be evaluated is not a pass: without one ``expect:`` label in the
    run, the run passed with no calibration line at all."""
    citations.write("cases/plain.yaml", single_claim_case("plain", REFUNDS_CLAIM, REFUNDS_URL))
    citations.record("cases/", gate="default")
    citations.write("pytest.ini", "[pytest]\ncitations_min_agreement = 0.6\n")

    result = citations.run("cases/", gate="default")

    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        [
            "Release decision: incomplete (min_agreement: no claim in this run carries an "
            "'expect:' label, so the judge's kappa cannot be measured against 0.6)",
            "INCOMPLETE min_agreement: no claim in this run carries an 'expect:' label*",
        ]
    )
