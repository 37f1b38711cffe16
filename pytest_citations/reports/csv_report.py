"""The batch report of 000 as CSV: one row per citation (claim–URL pair), in 000's nine
columns, then the claim's id (its node id), the claim's label, the citation's evidence
quote and the claim's decision (``pass``, ``fail`` or ``incomplete``)."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from ..atomic import write_atomically
from ..gating.decisions import RunDecision
from ..gating.records import ClaimRecord
from ..gating.run_report import RunReport
from ..sanitize import csv_cell
from .info import RunInfo

CSV_FIELDS = (
    "case",
    "claim",
    "url",
    "label",
    "reason",
    "confidence",
    "final_url",
    "original_status",
    "rid",
    "claim_id",
    "claim_label",
    "evidence_quote",
    "decision",
)


def rows(
    claims: Iterable[ClaimRecord], case_of: dict[str, str] | None = None
) -> list[dict[str, Any]]:
    """One row per claim–URL pair; ``case`` is the case key (``file::case``), or what
    ``case_of`` maps the claim's node id to (a batch record's id). A claim that cites
    nothing has no row."""
    found = []
    for claim in claims:
        case = (case_of or {}).get(claim.nodeid) or f"{claim.file}::{claim.case}"
        for citation in claim.citations:
            found.append(
                {
                    "case": case,
                    "claim": claim.claim,
                    "url": citation.url,
                    "label": citation.label.value,
                    "reason": citation.reason or "",
                    "confidence": f"{citation.confidence:.4f}",
                    "final_url": citation.final_url or "",
                    "original_status": ""
                    if citation.original_status is None
                    else citation.original_status,
                    "rid": citation.rid or "",
                    "claim_id": claim.nodeid,
                    "claim_label": claim.label,
                    "evidence_quote": citation.evidence_quote or "",
                    "decision": claim.decision,
                }
            )
    return found


#: Added after the others when the run checked drift (``--citations-drift``).
DRIFT_FIELDS = ("drift_status", "drift_old_label", "drift_new_label", "drift_detail", "drift_diff")


def with_drift(table: list[dict[str, Any]], drift: dict[str, Any]) -> list[dict[str, Any]]:
    """The rows with each citation's drift (status, old and new label, what changed and
    the passage diff); a citation drift did not check has empty drift cells."""
    found = {(d["nodeid"], d["url"]): d for d in drift.get("citations", [])}
    rows = []
    for row in table:
        checked = found.get((row["claim_id"], row["url"]))
        new = (checked or {}).get("new") or {}
        cells = {
            "drift_status": checked["status"] if checked else "",
            "drift_old_label": checked["old"]["label"] if checked else "",
            "drift_new_label": new.get("label", ""),
            "drift_detail": checked["detail"] if checked else "",
            "drift_diff": "\n".join(checked["diff"]) if checked else "",
        }
        rows.append({**row, **cells})
    return rows


def text(table: Iterable[dict[str, Any]], fields: Sequence[str] = CSV_FIELDS) -> str:
    """The CSV document (header included). Every cell is made safe for a spreadsheet: no
    control sequences, and no cell a spreadsheet would run as a formula (claims come from
    LLM answers, final URLs from the cited sites, drift diffs start with ``-`` and ``+``)."""
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=list(fields), lineterminator="\n")
    writer.writeheader()
    writer.writerows({key: csv_cell(value) for key, value in row.items()} for row in table)
    return buffer.getvalue()


def write_rows(
    path: Path, table: Iterable[dict[str, Any]], fields: Sequence[str] = CSV_FIELDS
) -> None:
    """Write rows (see :func:`rows`) as a CSV file, atomically."""
    write_atomically(path, text(table, fields))


def write(path: Path, report: RunReport, decision: RunDecision, info: RunInfo) -> None:
    """Write the run's CSV report (with the drift columns when drift was checked)."""
    table = rows(report.claims)
    if report.drift is not None:
        write_rows(path, with_drift(table, report.drift), (*CSV_FIELDS, *DRIFT_FIELDS))
    else:
        write_rows(path, table)
