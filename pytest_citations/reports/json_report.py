"""The JSON report: every case, claim and citation verdict, the release decision, the run's
metadata (plugin version, judge and model, the embedders used, record mode, start time,
run id, the gates it was asked to meet, its shard, release decision), a summary of its
figures and costs and of what was not verified or did not run, and, when they were
measured, the judge's calibration, the precision of the baseline and the comparison with
the base. It holds everything ``pytest-citations merge`` needs to decide a run again from
shard reports (:mod:`.json_reader` reads it back)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..atomic import write_atomically
from ..gating.calibration import Agreement
from ..gating.decisions import RunDecision
from ..gating.release import release_of
from ..gating.run_report import CaseRecord, RunReport
from ..precision import Precision
from .info import RunInfo


def _case(case: CaseRecord, info: RunInfo) -> dict[str, Any]:
    precision = case.precision
    outcome = case.outcome
    found: dict[str, Any] = {
        "file": case.file,
        "id": case.case_id,
        "question": case.question,
        "min_precision": case.min_precision,
        "criteria": dict(case.info.criteria),
        "citation_precision": precision.citation,
        "reachable_precision": precision.reachable_precision,
        "supported_share": case.share.value,
        "counts": {
            "supported": precision.supported,
            "citations": precision.total,
            "reachable": precision.reachable,
        },
        "release": {
            "decision": outcome.decision if outcome else None,
            "failures": list(outcome.failures) if outcome else [],
            "incomplete": list(outcome.incomplete) if outcome else [],
        },
        # What the case's precision item reported (a merge writes it into JUnit).
        "precision_item": outcome.item if outcome else None,
    }
    if info.baseline is not None:
        found["baseline"] = _precision(info.baseline.precision([case.key]))
    found["claims"] = [claim.to_dict() for claim in case.claims]
    return found


def _precision(precision: Precision | None) -> dict[str, Any] | None:
    """A precision's figures, or None (nothing to compare with)."""
    if precision is None:
        return None
    return {
        "citation_precision": precision.citation,
        "reachable_precision": precision.reachable_precision,
        "supported": precision.supported,
        "citations": precision.total,
        "reachable": precision.reachable,
    }


def calibration(agreement: Agreement) -> dict[str, Any]:
    """The judge's agreement with the human labels: figures, per label, confusion matrix
    (``confusion[human][judge]``)."""
    return {
        "labelled_claims": agreement.total,
        "accuracy": agreement.accuracy,
        "balanced_accuracy": agreement.balanced_accuracy,
        "cohen_kappa": agreement.kappa,
        "labels": {
            label: {
                "precision": agreement.precision(label),
                "recall": agreement.recall(label),
                "human": sum(expected == label for expected, _ in agreement.pairs),
                "judge": sum(judged == label for _, judged in agreement.pairs),
            }
            for label in agreement.labels
        },
        "confusion": agreement.confusion(),
    }


def _run(info: RunInfo, report: RunReport) -> dict[str, Any]:
    """The run's metadata, the embedders that chose its evidence beside the setting's."""
    found = info.to_dict()
    if found.get("embedder") is not None:
        found["embedder"] = {**found["embedder"], "chose": report.chosen_by()}
    return found


def document(report: RunReport, decision: RunDecision, info: RunInfo) -> dict[str, Any]:
    """The report as JSON-ready data."""
    precision = report.precision
    release = release_of(report, decision)
    usage = report.usage
    summary: dict[str, Any] = {
        "cases": len(report.cases),
        "claims": len(report.claims),
        "citations": precision.total,
        "supported": precision.supported,
        "reachable": precision.reachable,
        "citation_precision": precision.citation,
        "reachable_precision": precision.reachable_precision,
        "supported_share": report.share.value,
        "release_decision": release.line,
        "usage": {**usage.to_dict(), "credits_by_kind": usage.credits_by_kind()},
        "budget": dict(report.spending.budget),
        "not_verified": dict(sorted(report.file_errors.items())),
        "skipped": sorted(report.skipped_items),
        "deselected": sorted(report.deselected),
        "cassette_notes": sorted(report.cassette_notes),
    }
    summary["record_variables"] = list(report.spending.record_variables)
    if report.spending.plan is not None:
        summary["plan"] = report.spending.plan.to_dict()
    if info.baseline is not None:
        stored = info.baseline.precision([case.key for case in report.cases])
        summary["baseline_file"] = info.baseline.name
        summary["baseline"] = _precision(stored)
    found: dict[str, Any] = {
        "run": {**_run(info, report), "decision": release.verdict or None},
        "summary": summary,
    }
    if info.agreement is not None:
        found["calibration"] = calibration(info.agreement)
    if info.comparison is not None:
        found["comparison"] = info.comparison.to_dict()
    found["cases"] = [_case(case, info) for case in report.cases]
    if report.drift is not None:
        found["drift"] = report.drift
    return found


def write(path: Path, report: RunReport, decision: RunDecision, info: RunInfo) -> None:
    """Write the report as indented JSON with a trailing newline, atomically."""
    text = json.dumps(document(report, decision, info), indent=2, ensure_ascii=False)
    write_atomically(path, text + "\n")
