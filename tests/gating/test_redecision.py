"""A shard's report decided again from its claims (issue 24): what a claim's checks found
(its label, its citations' labels and reasons) is the shard's; its status, decision and
failures, and its case's decision, precision and precision item, are decided again with the
run's criteria and the case's own over them, and a report that states otherwise is named."""

from __future__ import annotations

from dataclasses import replace

from pytest_citations.gating.build import Findings, build_run
from pytest_citations.gating.criteria import Criteria, Decision, Failure
from pytest_citations.gating.precision import Precision
from pytest_citations.gating.redecision import StatedCase, decide_again
from pytest_citations.gating.result import (
    PRECISION_ITEM,
    CaseInfo,
    ClaimResult,
    ClaimStatus,
    Location,
)
from pytest_citations.gating.run_result import RunGates
from pytest_citations.labels import Label, Reason
from pytest_citations.verdicts import CitationVerdict

URL = "https://example.org/physics/boiling"
RUN = RunGates(Criteria())  # the default gate: every label but supported fails a claim


def stated(info: CaseInfo, index: int, found_label: str, **changes: object) -> ClaimResult:
    """A claim as a shard states it: checked and passed, whatever its label."""
    citation = CitationVerdict(URL, Label(found_label), confidence=0.9)
    where = Location(info.file, info.case, f"claim-{index}", index + 3, index)
    found = ClaimResult(where, f"Claim {index}.", ClaimStatus.CHECKED, Label(found_label),
                        Decision.PASS, (citation,), markers=("1",))  # fmt: skip
    return replace(found, **changes)  # type: ignore[arg-type]


def again(*cases: StatedCase, found: Findings | None = None) -> tuple[Findings, tuple[str, ...]]:
    """The cases decided again, and what they state otherwise."""
    found = found if found is not None else Findings()
    return found, decide_again(cases, found, RUN)


def test_a_claim_and_case_stated_pass_are_decided_from_the_label() -> None:
    info = CaseInfo("cases/m.yaml", "m")
    case = StatedCase(info, (stated(info, 1, "contradicted"),), Decision.PASS, Precision(0, 1, 1),
                      Decision.PASS)  # fmt: skip

    found, said = again(case)

    [claim] = found.claims.values()
    assert claim.decision is Decision.FAIL
    assert claim.failures == (Failure("fail_on", "the claim is contradicted"),)
    [decided] = build_run(found, RUN).cases
    assert decided.decision is Decision.FAIL
    assert said == (
        "cases/m.yaml::m::claim-1 says pass, its label and checks decide fail",
        "cases/m.yaml::m says pass (0.0000 (0/1)), its claims decide fail (0.0000 (0/1))",
    )


def test_the_case_s_own_criteria_are_the_ones_its_claims_meet() -> None:
    """A case whose file fails only contradicted claims passes its partial claim: the
    merge reads the case's criteria from the report, as the run applied them."""
    info = CaseInfo("cases/p.yaml", "p", criteria={"fail_on": ["contradicted"]})
    case = StatedCase(info, (stated(info, 1, "partial"),), Decision.PASS, Precision(0, 1, 1),
                      Decision.PASS)  # fmt: skip

    found, said = again(case)

    assert said == ()
    [decided] = build_run(found, RUN).cases
    assert (decided.decision, decided.precision) == (Decision.PASS, Precision(0, 1, 1))


def test_a_threshold_of_the_case_is_decided_from_its_claims_counts() -> None:
    """The stated counts said 1 of 1 supported; the claims hold 0 of 1."""
    info = CaseInfo("cases/p.yaml", "p", min_precision=0.5,
                    criteria={"fail_on": ["contradicted"]})  # fmt: skip
    case = StatedCase(info, (stated(info, 1, "partial"),), Decision.PASS, Precision(1, 1, 1),
                      Decision.PASS)  # fmt: skip

    found, said = again(case)

    [decided] = build_run(found, RUN).cases
    assert (decided.decision, decided.precision, decided.item) == (
        Decision.FAIL, Precision(0, 1, 1), Decision.FAIL)  # fmt: skip
    assert [str(f) for f in decided.failures] == [
        "min_precision: citation precision 0.0000 (0/1) below 0.5"
    ]
    assert len(said) == 1


def test_an_unchecked_citation_leaves_the_claim_unchecked_whatever_the_report_says() -> None:
    info = CaseInfo("cases/u.yaml", "u")
    unchecked = CitationVerdict(URL, Label.NOT_FOUND, reason=Reason.JUDGE_ERROR)
    claim = stated(info, 1, "not_found", citations=(unchecked,))
    case = StatedCase(info, (claim,), Decision.PASS, Precision(0, 1, 1), Decision.PASS)

    found, said = again(case)

    [decided] = found.claims.values()
    assert (decided.decision, decided.status, decided.label) == (
        Decision.INCOMPLETE, ClaimStatus.UNCHECKED, None)  # fmt: skip
    assert [(u.url, u.reason) for u in decided.unchecked] == [(URL, Reason.JUDGE_ERROR)]
    assert (
        said[0] == "cases/u.yaml::u::claim-1 says checked, its checks decide unchecked (incomplete)"
    )
    run = build_run(found, RUN)
    assert (run.precision, run.share.unchecked) == (Precision(0, 0, 0, 1), 1)


def test_a_claim_stated_unchecked_whose_checks_were_all_made_is_named() -> None:
    """A report that calls a failing claim unchecked (no label, ``incomplete``) would make
    the run incomplete rather than failed: its citation was checked, and contradicts it."""
    info = CaseInfo("cases/c.yaml", "c")
    claim = stated(info, 1, "contradicted", status=ClaimStatus.UNCHECKED, label=None,
                   decision=Decision.INCOMPLETE)  # fmt: skip
    case = StatedCase(info, (claim,), Decision.INCOMPLETE, Precision(0, 0, 0, 1))

    found, said = again(case)

    [decided] = found.claims.values()
    assert (decided.status, decided.label, decided.decision) == (
        ClaimStatus.CHECKED, Label.CONTRADICTED, Decision.FAIL)  # fmt: skip
    assert said[0] == "cases/c.yaml::c::claim-1 says unchecked, its checks decide checked (fail)"


def test_a_case_whose_precision_item_did_not_run_stays_undecided() -> None:
    info = CaseInfo("cases/s.yaml", "s")
    left_out = Findings()
    left_out.add_deselected([Location(info.file, info.case, PRECISION_ITEM)])
    case = StatedCase(info, (stated(info, 1, "supported"),))

    found, said = again(case, found=left_out)

    assert said == ()
    assert build_run(found, RUN).cases[0].decision is None
    # ... and one that says it was decided is named.
    decided = replace(case, decision=Decision.PASS, precision=Precision(1, 1, 1))
    assert again(decided, found=left_out)[1] == (
        "cases/s.yaml::s has a decision, though its precision item did not run",
    )
