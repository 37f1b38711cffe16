"""The JSON report: every case, claim and citation verdict, the release decision, the run's
metadata (plugin version, judge and model, the embedders used, record mode, start time,
run id, the gates it was asked to meet, its shard, release decision), a summary of its
figures and costs and of what was not verified or did not run, and, when they were
measured, the judge's calibration, the precision of the baseline and the comparison with
the base. It holds everything ``pytest-citations merge`` needs to decide a run again from
shard reports (:mod:`.json_reader` reads it back). A claim that could not be checked has
``status: unchecked`` and no label; precision and share count what was checked, with the
unchecked counted beside them."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from ..gating.precision import Precision
from ..gating.result import CaseResult
from ..gating.run_result import RunResult
from ..gating.serial import claim_to_dict, info_to_dict
from .info import RunInfo
from .spending import against_plan

if TYPE_CHECKING:
    from ..gating.calibration import Agreement

#: The shape of the report: a reader of another version's report knows it by this.
REPORT_VERSION = 2


def _counts(precision: Precision) -> dict[str, int]:
    return {
        "supported": precision.supported,
        "citations": precision.total,
        "reachable": precision.reachable,
        "unchecked": precision.unchecked,
    }


def _case(case: CaseResult, result: RunResult, info: RunInfo) -> dict[str, Any]:
    precision = case.precision
    found: dict[str, Any] = {
        **info_to_dict(case.info),
        "citation_precision": precision.citation,
        "reachable_precision": precision.reachable_precision,
        "supported_share": case.share.value,
        "counts": _counts(precision),
        "claims_checked": case.share.total,
        "claims_unchecked": case.share.unchecked,
        "release": {
            "decision": case.decision,
            "failures": [str(failure) for failure in case.failures],
            "incomplete": list(case.incomplete) if case.decision is not None else [],
        },
        # What the case's precision item reported (a merge writes it into JUnit).
        "precision_item": case.item,
    }
    if result.baseline is not None:
        found["baseline"] = _precision(result.baseline.precision([case.key]))
    found["claims"] = [
        {**claim_to_dict(claim), "link": info.links.of(claim.where)} for claim in case.claims
    ]
    return found


def _precision(precision: Precision | None) -> dict[str, Any] | None:
    """A precision's figures, or None (nothing to compare with)."""
    if precision is None:
        return None
    return {
        "citation_precision": precision.citation,
        "reachable_precision": precision.reachable_precision,
        **_counts(precision),
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
                "human": agreement.human[label],
                "judge": agreement.judged[label],
            }
            for label in agreement.labels
        },
        "confusion": agreement.confusion(),
    }


def _run(result: RunResult, info: RunInfo) -> dict[str, Any]:
    """The run's metadata, the embedders that chose its evidence beside the setting's."""
    found = {"report_version": REPORT_VERSION, **info.to_dict()}
    if found.get("embedder") is not None:
        found["embedder"] = {**found["embedder"], "chose": result.chosen_by()}
    found["gates"] = result.gates.to_dict()
    return {**found, "decision": result.release.verdict or None}


def _summary(result: RunResult) -> dict[str, Any]:
    precision, usage = result.precision, result.usage
    summary: dict[str, Any] = {
        "cases": len(result.cases),
        "claims": len(result.claims),
        "citations": precision.total,
        "supported": precision.supported,
        "reachable": precision.reachable,
        "unchecked": precision.unchecked,
        "citation_precision": precision.citation,
        "reachable_precision": precision.reachable_precision,
        "supported_share": result.share.value,
        "claims_unchecked": result.share.unchecked,
        "release_decision": result.release.line,
        "usage": {**usage.to_dict(), "credits_by_kind": usage.credits_by_kind()},
        "budget": dict(result.spending.budget),
        "not_verified": {error.file: error.reason for error in result.file_errors},
        "skipped": [item.to_dict() for item in result.skipped],
        "deselected": [item.to_dict() for item in result.deselected],
        "cassette_notes": sorted(result.cassette_notes),
        "record_variables": list(result.spending.record_variables),
    }
    if result.spending.plan is not None:
        summary["plan"] = result.spending.plan.to_dict()
        summary["recording"] = against_plan(result.spending.plan, result.usage)
    if result.baseline is not None:
        summary["baseline_file"] = result.baseline.name
        summary["baseline"] = _precision(result.baseline_precision)
    return summary


def document(result: RunResult, info: RunInfo) -> dict[str, Any]:
    """The report as JSON-ready data."""
    found: dict[str, Any] = {"run": _run(result, info), "summary": _summary(result)}
    if result.agreement is not None:
        found["calibration"] = calibration(result.agreement)
    if result.comparison is not None:
        found["comparison"] = result.comparison.to_dict()
    found["cases"] = [_case(case, result, info) for case in result.cases]
    if result.drift is not None:
        found["drift"] = dict(result.drift)
    return found


def render(result: RunResult, info: RunInfo) -> str:
    """The report as indented JSON with a trailing newline."""
    return json.dumps(document(result, info), indent=2, ensure_ascii=False) + "\n"


__all__ = ["REPORT_VERSION", "calibration", "document", "render"]
