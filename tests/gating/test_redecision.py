"""A shard's report decided again from its claims (issue 24): what a claim's checks found
(its label, its citations' labels and reasons) is the shard's; its decision and failures,
and its case's decision, precision and precision item, are decided again with the run's
criteria and the case's own over them, and a report that states otherwise is named."""

from __future__ import annotations

from dataclasses import replace

from pytest_citations.gating.criteria import Criteria, Decision
from pytest_citations.gating.records import CaseInfo, CaseOutcome, ClaimRecord
from pytest_citations.gating.redecision import decide_again
from pytest_citations.gating.run_report import RunReport
from pytest_citations.labels import Label, Reason
from pytest_citations.precision import Precision
from pytest_citations.verdicts import CitationVerdict

URL = "https://example.org/physics/boiling"
RUN = Criteria()  # the default gate: every label but supported fails a claim


def record(info: CaseInfo, index: int, label: str, **changes: object) -> ClaimRecord:
    """A claim record as a shard states it: passed, whatever its label."""
    citation = CitationVerdict(URL, Label(label), confidence=0.9)
    found = ClaimRecord(f"{info.key}::claim-{index}", info, index, index + 3,
                        f"Claim {index}.", label, (citation,), ("1",))  # fmt: skip
    return replace(found, **changes)  # type: ignore[arg-type]


def report_of(info: CaseInfo, claims: list[ClaimRecord], outcome: CaseOutcome | None) -> RunReport:
    report = RunReport()
    for claim in claims:
        report.add_claim(claim)
    if outcome is not None:
        report.add_case(outcome)
    return report


def passed(info: CaseInfo, precision: Precision) -> CaseOutcome:
    return CaseOutcome(info, Decision.PASS, precision)


def test_a_claim_and_case_stated_pass_are_decided_from_the_label() -> None:
    info = CaseInfo("cases/m.yaml", "m")
    stated = report_of(info, [record(info, 1, "contradicted")], passed(info, Precision(0, 1, 1)))

    again = decide_again(stated, RUN)

    [case] = again.report.cases
    assert case.claims[0].decision is Decision.FAIL
    assert case.claims[0].failures == ("fail_on: the claim is contradicted",)
    assert case.outcome is not None
    assert case.outcome.decision is Decision.FAIL
    assert again.disagreements == (
        "cases/m.yaml::m::claim-1 says pass, its label and checks decide fail",
        "cases/m.yaml::m says pass (0.0000 (0/1)), its claims decide fail (0.0000 (0/1))",
    )


def test_the_case_s_own_criteria_are_the_ones_its_claims_meet() -> None:
    """A case whose file fails only contradicted claims passes its partial claim: the
    merge reads the case's criteria from the report, as the run applied them."""
    info = CaseInfo("cases/p.yaml", "p", criteria={"fail_on": ["contradicted"]})
    stated = report_of(info, [record(info, 1, "partial")], passed(info, Precision(0, 1, 1)))

    again = decide_again(stated, RUN)

    assert again.disagreements == ()
    assert again.report.cases[0].outcome == passed(info, Precision(0, 1, 1))


def test_a_threshold_of_the_case_is_decided_from_its_claims_counts() -> None:
    """The stated counts said 1 of 1 supported; the claims hold 0 of 1."""
    info = CaseInfo("cases/p.yaml", "p", min_precision=0.5,
                    criteria={"fail_on": ["contradicted"]})  # fmt: skip
    stated = report_of(info, [record(info, 1, "partial")], passed(info, Precision(1, 1, 1)))

    again = decide_again(stated, RUN)

    outcome = again.report.cases[0].outcome
    assert outcome is not None
    assert (outcome.decision, outcome.precision, outcome.item) == (
        Decision.FAIL, Precision(0, 1, 1), Decision.FAIL)  # fmt: skip
    assert outcome.failures == ("min_precision: citation precision 0.0000 (0/1) below 0.5",)
    assert len(again.disagreements) == 1


def test_an_unchecked_citation_is_incomplete_whatever_the_report_says() -> None:
    info = CaseInfo("cases/u.yaml", "u")
    unchecked = CitationVerdict(URL, Label.NOT_FOUND, reason=Reason.JUDGE_ERROR)
    claim = record(info, 1, "not_found", citations=(unchecked,))
    stated = report_of(info, [claim], passed(info, Precision(0, 1, 1)))

    again = decide_again(stated, RUN)

    [decided] = again.report.cases[0].claims
    assert decided.decision is Decision.INCOMPLETE
    assert decided.unchecked
    assert URL in decided.unchecked[0]
    assert again.report.unchecked() == (1, 1)


def test_a_case_whose_precision_item_did_not_run_stays_undecided() -> None:
    info = CaseInfo("cases/s.yaml", "s")
    stated = report_of(info, [record(info, 1, "supported")], None)
    stated.deselected.add(f"{info.key}::precision")

    again = decide_again(stated, RUN)

    assert again.disagreements == ()
    assert again.report.cases[0].outcome is None
    # ... and one that says it was decided is named.
    stated.add_case(passed(info, Precision(1, 1, 1)))
    assert decide_again(stated, RUN).disagreements == (
        "cases/s.yaml::s has a decision, though its precision item did not run",
    )
