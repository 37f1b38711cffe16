"""``--citations-audit`` / ini ``citations_audit_db``: every citation verdict appended to an
SQLite audit index, one run id per run."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from plugin_helpers import (
    BOILING_CASE,
    BOILING_URL,
    CONTRADICTED_CLAIM,
    OLD_REPORT_URL,
    SUPPORTED_CLAIM,
    Citations,
)


def audit_rows(path: Path) -> list[tuple[str, str, str, str, str | None, str]]:
    """(run id, claim, url, label, reason, rid) of every audited citation."""
    with sqlite3.connect(path) as db:
        rows = db.execute(
            "SELECT run_id, claim, url, label, reason, rid FROM citations ORDER BY id"
        ).fetchall()
    return [tuple(row) for row in rows]


def test_audit_appends_every_citation_verdict_per_run(citations: Citations) -> None:
    citations.write("cases/boiling.yaml", BOILING_CASE)
    citations.record("cases/", "--citations-audit=audit/citations.sqlite", gate="default")

    citations.run("cases/", "--citations-audit=audit/citations.sqlite", gate="default")

    rows = audit_rows(citations.path / "audit" / "citations.sqlite")
    runs = list(dict.fromkeys(row[0] for row in rows))
    assert len(runs) == 2
    for run in runs:
        verdicts = sorted(
            (claim, url, label, reason) for r, claim, url, label, reason, _ in rows if r == run
        )
        assert verdicts == sorted(
            [
                (SUPPORTED_CLAIM, BOILING_URL, "supported", None),
                (SUPPORTED_CLAIM, OLD_REPORT_URL, "unreachable", "http_404"),
                (CONTRADICTED_CLAIM, BOILING_URL, "contradicted", None),
            ]
        )
    assert all(rid for *_, rid in rows)


def test_audit_path_from_ini(citations: Citations) -> None:
    citations.pytester.makeini("[pytest]\ncitations_audit_db = audit.sqlite\n")
    citations.write("cases/boiling.yaml", BOILING_CASE)

    citations.record("cases/", gate="default")

    assert len(audit_rows(citations.path / "audit.sqlite")) == 3


def test_audit_index_and_json_report_share_one_run_id_under_xdist(citations: Citations) -> None:
    """One run id for the whole run: the controller's, in the JSON report and in every row
    the xdist workers wrote."""
    pytest.importorskip("xdist")
    citations.write("cases/boiling.yaml", BOILING_CASE)
    citations.write("cases/again.yaml", BOILING_CASE.replace("boiling-point", "again"))
    citations.record("cases/", gate="default")

    citations.run_subprocess(
        "cases/", "-n", "2", "--citations-audit=audit.sqlite", "--citations-report=run.json",
        gate="default"
    )

    report = json.loads((citations.path / "run.json").read_text(encoding="utf-8"))
    runs = {row[0] for row in audit_rows(citations.path / "audit.sqlite")}
    assert runs == {report["run"]["run_id"]}
    assert len(audit_rows(citations.path / "audit.sqlite")) == 6
