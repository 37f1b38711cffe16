"""A shard's report decided again from its claims (``pytest-citations merge``).

What a claim's checks found is the shard's: it ran them (its label, its citations' labels
and reasons, the evidence the judge was shown). Everything derived from that is decided
here again, with the functions a run decides with (:func:`~.criteria.assess_claim`,
:func:`~.decisions.decide_case`), against the run's criteria with each case's own over
them, and never read from the report: each claim's decision and failures, each case's
decision, failures, precision and precision item. A report whose stated decisions its claims
do not make (edited after its run, or written by another version) is named, so that editing
a derived field can never turn the merged gate green.

A case is decided when its ``precision`` item ran (not left out by the selection, not
skipped), as in the run itself; a case of which the selection left out some claims is
decided from the claims the report holds, and its stated decision is not held against it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from ..labels import Label
from ..sanitize import clean
from ..verdicts import ClaimVerdict
from .assessment import case_outcome
from .criteria import ClaimAssessment, ClaimFacts, Criteria, assess_claim, describe_unchecked
from .decisions import decide_case
from .records import CaseOutcome, ClaimRecord
from .run_report import CaseRecord, RunReport


@dataclass(frozen=True)
class Redecided:
    """A report decided again, and each stated decision its claims do not make."""

    report: RunReport
    disagreements: tuple[str, ...] = ()


def verdict_of(record: ClaimRecord) -> ClaimVerdict:
    """The claim's verdict as its record states what the checks found."""
    unrecorded = (record.problems or ("unrecorded",)) if record.unrecorded else ()
    return ClaimVerdict(
        record.claim,
        Label(record.label),
        record.citations,
        record.problems,
        unrecorded=unrecorded,
        over_budget=unrecorded if record.over_budget else (),
        joint_support=record.joint_support,
        misattributed_to=record.misattributed_to,
        evidence=record.evidence,
    )


def reassessed(record: ClaimRecord, rules: Criteria) -> tuple[ClaimRecord, ClaimAssessment]:
    """A claim decided again against ``rules``: its record with the decision and failures
    the criteria give, and the assessment. The lines naming unchecked citations are the
    record's when there are as many (they name each citation by its marker, which only the
    case file knows), else the verdict's own."""
    verdict = verdict_of(record)
    facts = ClaimFacts(topic=record.topic, general=record.general)
    assessment = assess_claim(verdict, facts, rules)
    unchecked = assessment.unchecked
    if len(unchecked) == len(record.unchecked):
        unchecked = record.unchecked
    elif unchecked:
        unchecked = describe_unchecked(verdict)
    decided = replace(
        record,
        decision=assessment.decision,
        failures=clean(tuple(str(failure) for failure in assessment.failures)),
        unchecked=clean(unchecked),
    )
    return decided, assessment


def _differs(stated: CaseOutcome, decided: CaseOutcome) -> bool:
    return (stated.decision, stated.precision, stated.item) != (
        decided.decision,
        decided.precision,
        decided.item,
    )


def _left_out(report: RunReport, key: str) -> tuple[bool, bool]:
    """(the case's precision item, some claim item of it) left out or not run."""
    gone = report.deselected | set(report.skipped_items)
    precision = f"{key}::precision" in gone
    claims = any(n.startswith(f"{key}::") and not n.endswith("::precision") for n in gone)
    return precision, claims


def _case(
    report: RunReport, case: CaseRecord, run: Criteria
) -> tuple[list[ClaimRecord], CaseOutcome | None, list[str]]:
    """One case's claims and outcome decided again, and what the report says otherwise."""
    rules = case.info.rules(run)
    pairs = [reassessed(claim, rules) for claim in case.claims]
    said = [
        f"{claim.nodeid} says {claim.decision}, its label and checks decide {decided.decision}"
        for claim, (decided, _) in zip(case.claims, pairs, strict=True)
        if claim.decision != decided.decision
    ]
    precision_left_out, claims_left_out = _left_out(report, case.key)
    if precision_left_out:
        if case.outcome is not None:
            said.append(f"{case.key} has a decision, though its precision item did not run")
        return [claim for claim, _ in pairs], None, said
    if not case.claims:
        said.append(f"{case.key} has a decision but no claim")
        return [], None, said
    decision = decide_case(
        [assessment for _, assessment in pairs],
        [claim.nodeid.rsplit("::", 1)[-1] for claim in case.claims],
        [claim.general for claim in case.claims],
        rules,
    )
    outcome = case_outcome(case.info, decision)
    if case.outcome is None:
        said.append(f"{case.key} has no decision, though its precision item ran")
    elif _differs(case.outcome, outcome) and not claims_left_out:
        said.append(
            f"{case.key} says {case.outcome.decision} ({case.outcome.precision.fraction()}), "
            f"its claims decide {outcome.decision} ({outcome.precision.fraction()})"
        )
    return [claim for claim, _ in pairs], outcome, said


def decide_again(stated: RunReport, run: Criteria) -> Redecided:
    """``stated`` (a shard's report read back) with every claim and case decided again
    against the run's criteria ``run``; what it stated otherwise, one line each."""
    decided = RunReport()
    decided.absorb(stated)
    disagreements: list[str] = []
    for case in stated.cases:
        claims, outcome, said = _case(stated, case, run)
        decided.replace_case(case.info, claims, outcome)
        disagreements += said
    return Redecided(decided, tuple(disagreements))


__all__ = ["Redecided", "decide_again", "reassessed", "verdict_of"]
