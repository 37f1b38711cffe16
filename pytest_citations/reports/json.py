"""The JSON report: every case, claim and citation verdict, the release decision, the run's
metadata and a summary of its figures and costs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..gating.criteria import RunDecision
from .info import RunInfo
from .record import CaseRecord, RunReport
from .terminal import decision_of, release_lines


def _case(case: CaseRecord) -> dict[str, Any]:
    precision = case.precision
    outcome = case.outcome
    return {
        "file": case.file,
        "id": case.case_id,
        "question": case.question,
        "min_precision": case.min_precision,
        "citation_precision": precision.citation,
        "reachable_precision": precision.reachable_precision,
        "supported_share": case.share.value,
        "release": {
            "decision": outcome.decision if outcome else None,
            "failures": list(outcome.failures) if outcome else [],
            "incomplete": list(outcome.incomplete) if outcome else [],
        },
        "claims": [claim.to_dict() for claim in case.claims],
    }


def document(report: RunReport, decision: RunDecision, info: RunInfo) -> dict[str, Any]:
    """The report as JSON-ready data."""
    precision = report.precision
    release = release_lines(report, decision)
    usage = report.usage
    return {
        "run": {**info.to_dict(), "decision": decision_of(release[-1]) if release else None},
        "summary": {
            "cases": len(report.cases),
            "claims": len(report.claims),
            "citations": precision.total,
            "supported": precision.supported,
            "reachable": precision.reachable,
            "citation_precision": precision.citation,
            "reachable_precision": precision.reachable_precision,
            "supported_share": report.share.value,
            "release_decision": release[-1] if release else None,
            "usage": {**usage.to_dict(), "credits_by_kind": usage.credits_by_kind()},
        },
        "cases": [_case(case) for case in report.cases],
    }


def write(path: Path, report: RunReport, decision: RunDecision, info: RunInfo) -> None:
    """Write the report as indented JSON with a trailing newline."""
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(document(report, decision, info), indent=2, ensure_ascii=False)
    path.write_text(text + "\n", encoding="utf-8")
