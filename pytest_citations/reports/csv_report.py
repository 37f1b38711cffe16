"""The batch report of 000 as CSV: one row per citation (claim–URL pair), in 000's nine
columns, then the claim's id (its node id), the claim's label, the citation's evidence
quote and the claim's decision (``pass``, ``fail`` or ``incomplete``). A citation or claim
that could not be checked has no label: its label cell says ``unchecked``."""

from __future__ import annotations

import csv
import io
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from ..gating.result import ClaimResult
from ..gating.run_result import RunResult
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


def _named(claim: ClaimResult) -> tuple[str, str]:
    return claim.where.case_key, claim.nodeid


def rows(
    claims: Iterable[ClaimResult], named: Callable[[ClaimResult], tuple[str, str]] = _named
) -> list[dict[str, Any]]:
    """One row per claim–URL pair; ``named`` gives each claim's ``case`` and ``claim_id``
    cells (by default its case key, ``file::case``, and its node id; a batch record's id
    and line). A claim that cites nothing has no row."""
    found = []
    for claim in claims:
        case, claim_id = named(claim)
        for citation in claim.citations:
            status = citation.original_status
            found.append(
                {
                    "case": case,
                    "claim": claim.text,
                    "url": citation.url,
                    "label": claim.shown_label(citation),
                    "reason": citation.reason or "",
                    "confidence": f"{citation.confidence:.4f}",
                    "final_url": citation.final_url or "",
                    "original_status": "" if status is None else status,
                    "rid": citation.rid or "",
                    "claim_id": claim_id,
                    "claim_label": claim.label_shown,
                    "evidence_quote": citation.evidence_quote or "",
                    "decision": claim.decision,
                }
            )
    return found


#: Added after the others when the run checked drift (``--citations-drift``).
DRIFT_FIELDS = ("drift_status", "drift_old_label", "drift_new_label", "drift_detail", "drift_diff")


def with_drift(table: list[dict[str, Any]], drift: Mapping[str, Any]) -> list[dict[str, Any]]:
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


def render(result: RunResult, info: RunInfo) -> str:
    """The run's CSV report (with the drift columns when drift was checked)."""
    table = rows(result.claims)
    if result.drift is not None:
        return text(with_drift(table, result.drift), (*CSV_FIELDS, *DRIFT_FIELDS))
    return text(table)
