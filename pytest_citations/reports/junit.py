"""What ``--junitxml`` shows of a claim and a case: flat, readable properties a CI page
shows as they are."""

from __future__ import annotations

from ..gating.records import CaseOutcome, ClaimRecord


def claim_properties(record: ClaimRecord) -> list[tuple[str, object]]:
    """``claim``, ``label``, then ``citation.1.url``, ``citation.1.label``, ``.reason``,
    ``.quote``, ``.confidence`` per citation. The passages the judge saw stay in the JSON
    report."""
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


def case_properties(outcome: CaseOutcome) -> list[tuple[str, object]]:
    """``precision`` (supported/total citations) and ``decision``."""
    precision = outcome.precision
    return [
        ("precision", f"{precision.supported}/{precision.total}"),
        ("decision", outcome.decision.value),
    ]
