"""What JUnit XML shows of a claim and a case: flat, readable properties a CI page shows as
they are (the plugin puts them on each case item, and pytest's ``--junitxml`` writes them;
``pytest-citations merge`` writes them from the result). A claim that could not be checked
has no label: its ``status`` says so, and a citation not checked shows ``unchecked``."""

from __future__ import annotations

from ..gating.result import CaseResult, ClaimResult


def claim_properties(claim: ClaimResult) -> list[tuple[str, object]]:
    """``claim``, ``label`` (or ``status: unchecked``), then ``citation.1.url``,
    ``citation.1.label``, ``.reason``, ``.quote``, ``.confidence`` per citation. The
    passages the judge saw stay in the JSON report."""
    properties: list[tuple[str, object]] = [("claim", claim.text)]
    if claim.label is not None:
        properties.append(("label", claim.label.value))
    else:
        properties.append(("status", claim.status.value))
    for number, citation in enumerate(claim.citations, start=1):
        properties += [
            (f"citation.{number}.url", citation.url),
            (f"citation.{number}.label", claim.shown_label(citation)),
            (f"citation.{number}.reason", citation.reason or ""),
            (f"citation.{number}.quote", " ".join((citation.evidence_quote or "").split())),
            (f"citation.{number}.confidence", f"{citation.confidence:.2f}"),
        ]
    return properties


def case_properties(case: CaseResult) -> list[tuple[str, object]]:
    """``precision`` (supported/checked citations, and the unchecked when there are) and
    ``decision``."""
    precision = case.precision
    shown = f"{precision.supported}/{precision.total}"
    if precision.unchecked:
        shown += f" ({precision.total} of {precision.total + precision.unchecked} checked)"
    return [("precision", shown), ("decision", str(case.decision or "not decided"))]
