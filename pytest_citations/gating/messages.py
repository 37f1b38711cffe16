"""What a failing or unchecked claim and case say: the text pytest prints for their items and
the fixture's failures. Pure functions of the verdicts and the decisions."""

from __future__ import annotations

from collections.abc import Sequence

from ..assertions import explain
from ..cases import Case
from ..labels import Label
from ..verdicts import ClaimVerdict
from .criteria import ClaimAssessment, Criteria, Failure
from .decisions import THRESHOLDS

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
#: The next step when a claim cites a document that has no URL, which nothing can fetch.
DOCUMENT_HINT = (
    "Give the document's URL in the case file's citations, or cite a page instead "
    "(--citations-allow-unchecked never counts a document without a URL as a label)."
)


def notes(case: Case, verdict: ClaimVerdict) -> str:
    """The lines a claim's explanation adds for joint support and misattribution."""
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
    far as it got, and the next step."""
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
        _hint(verdict),
    ]
    return "\n".join(lines)


def _hint(verdict: ClaimVerdict) -> str:
    if verdict.lacks_recording:
        return MISSING_RECORDING_HINT
    return DOCUMENT_HINT if verdict.never_a_label else ALLOW_UNCHECKED_HINT


def claim_failure(
    assessment: ClaimAssessment, criteria: Criteria, regression: str | None, explanation: str
) -> str | None:
    """Why a checked claim fails (each criterion it missed, a regression against the
    baseline), then its explanation; None when it passes."""
    verdict = assessment.verdict
    messages = []
    for failure in assessment.failures:
        if failure.criterion == "fail_on":
            failing = ", ".join(criteria.fail_on)
            messages.append(f"claim is {verdict.label.value} (failing labels: {failing})")
        else:
            messages.append(f"claim fails {failure}")
    if regression is not None:
        messages.append(regression)
    if not messages:
        return None
    if assessment.unchecked:
        messages.append(
            f"also not checked: {len(assessment.unchecked)} of {len(verdict.citations)} "
            "citations\n" + "\n".join(f"  {line}" for line in assessment.unchecked)
        )
    return "\n".join([*messages, explanation])


def claim_explanation(case: Case, verdict: ClaimVerdict, markers: Sequence[str]) -> str:
    """A claim's verdict as its item explains it: :func:`~pytest_citations.assertions.explain`
    with the case's markers, and the joint and misattribution notes."""
    return explain(verdict, markers) + notes(case, verdict)


def case_messages(
    case: Case,
    names: Sequence[str],
    assessments: Sequence[ClaimAssessment],
    failures: Sequence[Failure],
    undecided: Sequence[Failure],
) -> tuple[str | None, str | None]:
    """(error, failure) of a case's precision item: a missed threshold fails it, one that
    unchecked citations could still meet makes it an error."""
    missed = [f for f in failures if f.criterion in THRESHOLDS]
    if missed:
        lines = [f"case {case.id!r} fails {failure}" for failure in missed]
        if any(f.criterion == "min_precision" for f in missed):
            lines += _not_supported(names, assessments)
        return None, "\n".join(lines)
    if undecided:
        lines = [f"case {case.id!r} could not be decided: {f}" for f in undecided]
        lines += [*_not_supported(names, assessments), ALLOW_UNCHECKED_HINT]
        return "\n".join(lines), None
    return None, None


def _not_supported(names: Sequence[str], assessments: Sequence[ClaimAssessment]) -> list[str]:
    lines = []
    for name, assessment in zip(names, assessments, strict=True):
        for citation in assessment.verdict.citations:
            if citation.label is not Label.SUPPORTED:
                reason = f" ({citation.reason})" if citation.reason else ""
                lines.append(f"  {name}: {citation.label.value:<12} {citation.url}{reason}")
    return lines
