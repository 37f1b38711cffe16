"""The batch report of 000 as CSV: one row per citation."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from .sanitize import csv_cell

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
)


def csv_rows(claims: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """One row per claim–URL pair; ``case`` is the case key or the batch record id."""
    rows = []
    for claim in claims:
        case = claim.get("case_key") or claim.get("id") or claim.get("case", "")
        for citation in claim["citations"]:
            rows.append(
                {
                    "case": case,
                    "claim": claim["claim"],
                    "url": citation["url"],
                    "label": citation["label"],
                    "reason": citation.get("reason") or "",
                    "confidence": f"{float(citation.get('confidence') or 0):.4f}",
                    "final_url": citation.get("final_url") or "",
                    "original_status": citation.get("original_status")
                    if citation.get("original_status") is not None
                    else "",
                    "rid": citation.get("rid") or "",
                }
            )
    return rows


def csv_text(claims: Iterable[Mapping[str, Any]]) -> str:
    """The CSV document (header included) as text. Every cell is made safe for a
    spreadsheet: no control sequences, and no cell a spreadsheet would run as a formula
    (claims come from LLM answers, final URLs from the cited sites)."""
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=CSV_FIELDS, lineterminator="\n")
    writer.writeheader()
    writer.writerows(
        {key: csv_cell(value) for key, value in row.items()} for row in csv_rows(claims)
    )
    return buffer.getvalue()


def write_csv(path: Path, claims: Iterable[Mapping[str, Any]]) -> None:
    """Write the CSV report to ``path``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(csv_text(claims), encoding="utf-8")
