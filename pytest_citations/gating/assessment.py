"""A case file assessed, in one pure function: from its cases, their verdicts, the run's
criteria and the baseline, to every claim's record and what its item reports, and every
case's decision and what its precision item reports. No pytest, no I/O: the plugin, the
command line's batch and the merge of shard reports all call :func:`assess_file`.

Each case's criteria are worked out once (the run's, with the case's ``criteria:`` and
``min_precision:`` over them), each claim record is built once with its text already safe to
show, and decisions are values (:class:`~pytest_citations.gating.criteria.Decision`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from ..cases import Case, Claim
from ..sanitize import clean
from ..verdicts import ClaimVerdict
from .baseline import Baseline, side_by_side
from .criteria import ClaimAssessment, ClaimFacts, Criteria, assess_claim
from .decisions import CaseDecision, decide_case
from .messages import case_messages, claim_explanation, claim_failure, unchecked_message
from .records import BaselineChange, CaseInfo, CaseOutcome, ClaimRecord


@dataclass(frozen=True)
class ClaimOutcome:
    """One claim, assessed: its record, and what its item reports (an error when it could
    not be checked, a failure when it missed a criterion or regressed)."""

    record: ClaimRecord
    error: str | None = None
    failure: str | None = None


@dataclass(frozen=True)
class CaseResult:
    """One case, decided: its outcome, and what its precision item reports."""

    outcome: CaseOutcome
    error: str | None = None
    failure: str | None = None


@dataclass(frozen=True)
class FileAssessment:
    """Every claim (by case id and claim index) and every case (by id) of a case file."""

    claims: dict[tuple[str, int], ClaimOutcome]
    cases: dict[str, CaseResult]


@dataclass(frozen=True)
class BaselineRef:
    """The baseline claims are compared with, and its name in messages."""

    baseline: Baseline
    shown: str = ""


def case_info(file: str, case: Case) -> CaseInfo:
    """Where a case is and what it asks (``file`` as node ids name it)."""
    return CaseInfo(file, case.id, case.question, case.min_precision, dict(case.criteria))


def case_criteria(case: Case, criteria: Criteria) -> Criteria:
    """The run's criteria with the case's ``criteria:`` and ``min_precision:`` applied."""
    return case_info("", case).rules(criteria)


def assess_file(
    file: str,
    cases: Sequence[Case],
    verdicts: Sequence[ClaimVerdict],
    criteria: Criteria,
    baseline: BaselineRef | None = None,
) -> FileAssessment:
    """Assess every claim and case of a case file (``file`` as node ids name it);
    ``verdicts`` are the claims' verdicts in file order."""
    pairs = [(case, claim) for case in cases for claim in case.claims]
    if len(pairs) != len(verdicts):
        raise ValueError(f"{file}: {len(pairs)} claims but {len(verdicts)} verdicts")
    found = iter(verdicts)
    claims: dict[tuple[str, int], ClaimOutcome] = {}
    decided: dict[str, CaseResult] = {}
    for case in cases:
        info = case_info(file, case)
        rules = info.rules(criteria)
        assessed = [(claim, _assess(case, claim, next(found), rules)) for claim in case.claims]
        for claim, assessment in assessed:
            claims[(case.id, claim.index)] = _claim_outcome(
                info, case, claim, assessment, rules, baseline
            )
        decided[case.id] = _case_result(info, case, assessed, rules)
    return FileAssessment(claims, decided)


def _assess(case: Case, claim: Claim, verdict: ClaimVerdict, rules: Criteria) -> ClaimAssessment:
    markers = {case.citations[m]: m for m in reversed(claim.markers) if m in case.citations}
    facts = ClaimFacts(topic=claim.topic, general=claim.general, markers=tuple(markers.items()))
    return assess_claim(verdict, facts, rules)


def claim_record(info: CaseInfo, claim: Claim, assessment: ClaimAssessment) -> ClaimRecord:
    """A claim's record, with terminal control sequences removed from everything a page or
    an answer could have put there."""
    verdict = clean(assessment.verdict)
    return ClaimRecord(
        nodeid=f"{info.key}::{claim.name}",
        info=clean(info),
        index=claim.index,
        line=claim.line,
        claim=verdict.claim,
        label=verdict.label.value,
        citations=verdict.citations,
        markers=clean(claim.markers),
        problems=verdict.problems,
        failures=clean(tuple(str(failure) for failure in assessment.failures)),
        decision=assessment.decision,
        unchecked=clean(assessment.unchecked),
        topic=clean(claim.topic),
        general=claim.general,
        expect=claim.expect,
        derived=claim.derived,
        joint_support=verdict.joint_support,
        misattributed_to=verdict.misattributed_to,
        evidence=verdict.evidence,
        unrecorded=verdict.lacks_recording,
        over_budget=bool(verdict.over_budget),
    )


def _claim_outcome(
    info: CaseInfo,
    case: Case,
    claim: Claim,
    assessment: ClaimAssessment,
    rules: Criteria,
    baseline: BaselineRef | None,
) -> ClaimOutcome:
    record = claim_record(info, claim, assessment)
    regression: str | None = None
    if baseline is not None and not assessment.incomplete:
        change = baseline.baseline.compare(record)
        record = replace(record, baseline=BaselineChange(change.kind, change.old_label))
        if change.kind == "regression":
            regression = (
                f"claim regressed against the baseline {baseline.shown}\n{side_by_side(change)}"
            )
    explanation = claim_explanation(case, assessment.verdict, claim.markers)
    if assessment.incomplete:
        message = unchecked_message(assessment.verdict, assessment.unchecked, explanation)
        return ClaimOutcome(record, error=message)
    return ClaimOutcome(record, failure=claim_failure(assessment, rules, regression, explanation))


def _case_result(
    info: CaseInfo, case: Case, assessed: list[tuple[Claim, ClaimAssessment]], rules: Criteria
) -> CaseResult:
    names = [claim.name for claim, _ in assessed]
    assessments = [assessment for _, assessment in assessed]
    decision: CaseDecision = decide_case(
        assessments, names, [claim.general for claim, _ in assessed], rules
    )
    error, failure = case_messages(case, names, assessments, decision.failures, decision.undecided)
    return CaseResult(case_outcome(info, decision), error=error, failure=failure)


def case_outcome(info: CaseInfo, decision: CaseDecision) -> CaseOutcome:
    """A case's decided outcome as every output reads it, its text safe to show."""
    return CaseOutcome(
        clean(info),
        decision.decision,
        decision.precision,
        clean(tuple(str(failure) for failure in decision.failures)),
        clean(tuple(decision.incomplete_reasons())),
        decision.item,
    )


def while_updating(outcome: ClaimOutcome) -> ClaimOutcome:
    """A claim under ``--citations-update-baseline``: a label that only regressed against
    the baseline is being written into it, so it does not fail the claim (as syrupy's
    ``--snapshot-update`` does not fail a changed snapshot). A criterion it misses still does."""
    change = outcome.record.baseline
    regressed_only = change is not None and change.kind == "regression" and not (
        outcome.record.failures or outcome.error)  # fmt: skip
    return replace(outcome, failure=None) if regressed_only else outcome


__all__ = [
    "BaselineRef",
    "CaseResult",
    "ClaimOutcome",
    "FileAssessment",
    "assess_file",
    "case_criteria",
    "case_outcome",
    "claim_record",
    "while_updating",
]
