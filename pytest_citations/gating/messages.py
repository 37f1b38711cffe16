"""What a failing or unchecked claim and case say: the text pytest prints for their items,
the GitHub annotations and the fixture's failures, rendered from the decided results (a
claim's :class:`~.result.ClaimResult`, a case's :class:`~.result.CaseResult`), never stored
as the truth. Pure functions."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ..assertions import UNCHECKED_STATE, explain
from ..labels import Label
from ..verdicts import ClaimVerdict
from .criteria import Decision, UncheckedCitation
from .decisions import THRESHOLDS
from .result import BaselineChange, CaseResult, ClaimResult

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


def notes(claim: ClaimResult, retrieved: Mapping[str, str]) -> str:
    """The lines a claim's explanation adds for joint support and misattribution
    (``retrieved``: the marker of each retrieved source the case names)."""
    extra = ""
    if claim.joint_support:
        extra += "\n  supported jointly by: " + ", ".join(claim.joint_support)
    if claim.misattributed_to:
        extra += "\n  supported instead by the uncited source: " + ", ".join(
            (f"[{retrieved[url]}] " if url in retrieved else "") + url
            for url in claim.misattributed_to
        )
    return extra


def explanation(claim: ClaimResult, verdict: ClaimVerdict, retrieved: Mapping[str, str]) -> str:
    """A claim as its item explains it from its ``verdict``: its text, its label (or that it
    has none), each citation with its marker, and the joint and misattribution notes."""
    state = None if claim.label is not None else UNCHECKED_STATE
    said = explain(verdict, claim.markers, state=state, shown=claim.shown_label)
    return said + notes(claim, retrieved)


def unchecked_message(
    verdict: ClaimVerdict, unchecked: Sequence[UncheckedCitation], explained: str
) -> str:
    """The message of a claim that could not be checked: which citations and why (one line
    each), the claim as far as it got, and the next step."""
    if verdict.unchecked:
        what = f"{len(verdict.unchecked)} of {len(verdict.citations)} citations unchecked"
    elif verdict.lacks_recording:  # the joint or misattribution check (retrieved sources)
        what = "a request it needs is missing from the recording"
    else:
        what = "a check beyond its own citations could not run"
    lines = [
        f"claim could not be checked: {what}",
        *(f"  {line}" for line in unchecked),
        explained,
        _hint(verdict),
    ]
    return "\n".join(lines)


def _hint(verdict: ClaimVerdict) -> str:
    if verdict.lacks_recording:
        return MISSING_RECORDING_HINT
    return DOCUMENT_HINT if verdict.never_a_label else ALLOW_UNCHECKED_HINT


def side_by_side(change: BaselineChange, claim: ClaimResult) -> str:
    """Old and new verdicts of a claim against the baseline, URL by URL."""
    now = claim.label.value if claim.label is not None else "-"
    lines = [f"label: {change.old_label or '-'} -> {now}"]
    old_by_url = {url: (label, reason) for url, label, reason in change.old_citations}
    for citation in claim.citations:
        before = old_by_url.get(citation.url)
        was = "-"
        if before is not None:
            was = (before[0] or "-") + (f" ({before[1]})" if before[1] else "")
        new = citation.label.value + (f" ({citation.reason})" if citation.reason else "")
        lines.append(f"  {citation.url}: {was} -> {new}")
    return "\n".join(lines)


def claim_message(claim: ClaimResult, case: CaseResult) -> str | None:
    """What a claim's item says (in its ``case``): why it fails (each criterion it missed,
    a regression against the baseline), or why it could not be checked, then its
    explanation; None when it passes."""
    if claim.decision is Decision.PASS:
        return None
    # An unchecked claim is explained under no label: the verdict's is a stand-in.
    verdict = claim.verdict(claim.label or Label.NOT_FOUND)
    explained = explanation(claim, verdict, case.info.retrieved_markers)
    if claim.decision is Decision.INCOMPLETE:
        return unchecked_message(verdict, claim.unchecked, explained)
    messages = []
    for failure in claim.failures:
        if failure.criterion == "fail_on" and claim.label is not None:
            failing = ", ".join(case.rules.fail_on)
            messages.append(f"claim is {claim.label.value} (failing labels: {failing})")
        elif failure.criterion == "baseline" and claim.baseline is not None:
            shown = claim.baseline.shown
            said = side_by_side(claim.baseline, claim)
            messages.append(f"claim regressed against the baseline {shown}\n{said}")
        else:
            messages.append(f"claim fails {failure}")
    if claim.unchecked:
        messages.append(
            f"also not checked: {claim.open_citations} of {len(claim.citations)} "
            "citations\n" + "\n".join(f"  {line}" for line in claim.unchecked)
        )
    return "\n".join([*messages, explained])


def case_message(case: CaseResult) -> str | None:
    """What a case's own item says: each threshold of the case it missed (with the
    citations that were not supported), or those that unchecked citations leave undecided
    (and the next step); None when its item passes."""
    missed = [f for f in case.failures if f.criterion in THRESHOLDS]
    if missed:
        lines = [f"case {case.info.case!r} fails {failure}" for failure in missed]
        if any(f.criterion == "min_precision" for f in missed):
            lines += _not_supported(case)
        return "\n".join(lines)
    if case.undecided:
        lines = [f"case {case.info.case!r} could not be decided: {f}" for f in case.undecided]
        return "\n".join([*lines, *_not_supported(case), ALLOW_UNCHECKED_HINT])
    return None


def _not_supported(case: CaseResult) -> list[str]:
    lines = []
    for claim in case.claims:
        for citation in claim.citations:
            if citation.label is not Label.SUPPORTED or not claim.counted(citation):
                reason = f" ({citation.reason})" if citation.reason else ""
                shown = claim.shown_label(citation)
                lines.append(f"  {claim.where.name}: {shown:<12} {citation.url}{reason}")
    return lines


__all__ = [
    "ALLOW_UNCHECKED_HINT",
    "DOCUMENT_HINT",
    "MISSING_RECORDING_HINT",
    "case_message",
    "claim_message",
    "explanation",
    "notes",
    "side_by_side",
    "unchecked_message",
]
