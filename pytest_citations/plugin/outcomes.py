"""What a claim's and a case's items report, made from their assessments: the typed
record every output reads, and the error or failure text pytest prints."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from ..cases import Case, Claim
from ..gating.criteria import ClaimAssessment, Criteria, decide_case
from ..labels import Label
from ..reports import BaselineChange, CaseOutcome, ClaimRecord
from ..sanitize import clean
from ..verdicts import ClaimVerdict

#: The next step after an unchecked citation, in every message that reports one.
ALLOW_UNCHECKED_HINT = (
    "Fix the cause and run again; to count unchecked citations as their labels instead, "
    "pass --citations-allow-unchecked (ini: citations_allow_unchecked = true)."
)


#: The next step when what is missing is a recording, which the opt-out never counts.
MISSING_RECORDING_HINT = (
    "Record what is missing with the command above (--citations-allow-unchecked never "
    "counts a missing recording as a label)."
)


@dataclass(frozen=True)
class ClaimOutcome:
    """One claim, assessed: its record, and what its item reports (an error when it could
    not be checked, a failure when it missed a criterion or regressed)."""

    record: ClaimRecord
    error: str | None = None
    failure: str | None = None


@dataclass(frozen=True)
class CaseResult:
    """One case, decided: its outcome, its precision, and what its item reports."""

    outcome: CaseOutcome
    precision: str
    error: str | None = None
    failure: str | None = None


def claim_record(file: str, case: Case, claim: Claim, assessment: ClaimAssessment) -> ClaimRecord:
    """A claim's record, with terminal control sequences removed from everything a page or
    an answer could have put there."""
    verdict = assessment.verdict
    record = ClaimRecord(
        nodeid=f"{file}::{case.id}::{claim.name}",
        file=file,
        case=case.id,
        index=claim.index,
        line=claim.line,
        claim=verdict.claim,
        label=verdict.label.value,
        citations=verdict.citations,
        question=case.question,
        min_precision=case.min_precision,
        markers=claim.markers,
        problems=verdict.problems,
        failures=tuple(str(failure) for failure in assessment.failures),
        decision=assessment.decision,
        unchecked=assessment.unchecked,
        topic=claim.topic,
        general=claim.general,
        expect=claim.expect,
        derived=claim.derived,
        joint_support=verdict.joint_support,
        misattributed_to=verdict.misattributed_to,
        evidence=verdict.evidence,
    )
    return ClaimRecord.from_dict(clean(record.to_dict()))


def junit_properties(record: ClaimRecord) -> list[tuple[str, object]]:
    """What ``--junitxml`` shows of a claim: flat, readable properties (``label``, then
    ``citation.1.url``, ``citation.1.label``, ``.reason``, ``.quote``, ``.confidence`` per
    citation). The passages the judge saw stay in the JSON report."""
    properties: list[tuple[str, object]] = [("claim", record.claim), ("label", record.label)]
    for number, citation in enumerate(record.citations, start=1):
        properties += [
            (f"citation.{number}.url", citation.url),
            (f"citation.{number}.label", citation.label.value),
            (f"citation.{number}.reason", citation.reason or ""),
            (f"citation.{number}.quote", " ".join((citation.evidence_quote or "").split())),
            (f"citation.{number}.confidence", f"{citation.confidence:.2f}"),
        ]
    return properties


def while_updating(outcome: ClaimOutcome) -> ClaimOutcome:
    """A claim under ``--citations-update-baseline``: a label that only regressed against
    the baseline is being written into it, so it does not fail the claim (as syrupy's
    ``--snapshot-update`` does not fail a changed snapshot). A criterion it misses still does."""
    change = outcome.record.baseline
    regressed_only = change is not None and change.kind == "regression" and not (
        outcome.record.failures or outcome.error)  # fmt: skip
    return replace(outcome, failure=None) if regressed_only else outcome


def with_baseline(record: ClaimRecord, change: BaselineChange) -> ClaimRecord:
    return ClaimRecord.from_dict({**record.to_dict(), "baseline": {
        "change": change.kind, "old_label": change.old_label}})  # fmt: skip


def notes(case: Case, verdict: ClaimVerdict) -> str:
    extra = ""
    if verdict.joint_support:
        extra += "\n  supported jointly by: " + ", ".join(verdict.joint_support)
    if verdict.misattributed_to:
        markers = case.retrieved_markers
        extra += "\n  supported instead by the uncited source: " + ", ".join(
            (f"[{markers[url]}] " if url in markers else "") + url
            for url in verdict.misattributed_to
        )
    return extra


def unchecked_message(verdict: ClaimVerdict, unchecked: Sequence[str], explanation: str) -> str:
    """The message of a claim that could not be checked: which citations and why (one line
    each, see :func:`~pytest_citations.gating.criteria.describe_unchecked`), the verdict as
    far as it got, and the opt-out."""
    if verdict.unchecked:
        count = len(verdict.unchecked)
        what = f"{count} of {len(verdict.citations)} citations unchecked"
    elif verdict.lacks_recording:  # the joint or misattribution check (retrieved sources)
        what = "a request it needs is missing from the recording"
    else:
        what = "a check beyond its own citations could not run"
    lines = [
        f"claim could not be checked: {what}",
        *(f"  {line}" for line in unchecked),
        explanation,
        MISSING_RECORDING_HINT if verdict.lacks_recording else ALLOW_UNCHECKED_HINT,
    ]
    return "\n".join(lines)


def case_result(
    file: str, case: Case, assessed: list[tuple[Claim, ClaimAssessment]], criteria: Criteria
) -> CaseResult:
    """A case's decision, and what its precision item reports."""
    assessments = [assessment for _, assessment in assessed]
    decision = decide_case(
        assessments,
        [claim.name for claim, _ in assessed],
        [claim.general for claim, _ in assessed],
        criteria,
    )
    outcome = CaseOutcome(
        file,
        case.id,
        decision.decision,
        tuple(str(failure) for failure in decision.failures),
        tuple(decision.incomplete_reasons()),
    )
    precision = f"{decision.precision.supported}/{decision.precision.total}"
    thresholds = ("min_precision", "min_supported_share")
    missed = [f for f in decision.failures if f.criterion in thresholds]
    if missed:
        lines = [f"case {case.id!r} fails {failure}" for failure in missed]
        if any(f.criterion == "min_precision" for f in missed):
            lines += _not_supported(assessed)
        return CaseResult(outcome, precision, failure="\n".join(lines))
    if decision.undecided:
        lines = [f"case {case.id!r} could not be decided: {f}" for f in decision.undecided]
        lines += [*_not_supported(assessed), ALLOW_UNCHECKED_HINT]
        return CaseResult(outcome, precision, error="\n".join(lines))
    return CaseResult(outcome, precision)


def _not_supported(assessed: list[tuple[Claim, ClaimAssessment]]) -> list[str]:
    lines = []
    for claim, assessment in assessed:
        for citation in assessment.verdict.citations:
            if citation.label is not Label.SUPPORTED:
                reason = f" ({citation.reason})" if citation.reason else ""
                lines.append(f"  {claim.name}: {citation.label.value:<12} {citation.url}{reason}")
    return lines


__all__ = ["ALLOW_UNCHECKED_HINT", "CaseResult", "ClaimOutcome"]
