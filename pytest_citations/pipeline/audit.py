"""The audit trail (S1): one SQLite row per citation verdict, and the stored page by rid.

Rows hold the rid, never the storage URL (it carries the token), and no secret at all.
"""

from __future__ import annotations

import sqlite3
import threading
import time
import uuid
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from ..verdicts import ClaimVerdict

_SCHEMA = """
CREATE TABLE IF NOT EXISTS citations (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    run_id TEXT NOT NULL,
    checked_at TEXT NOT NULL,
    rid TEXT NOT NULL DEFAULT '',
    claim TEXT NOT NULL,
    url TEXT NOT NULL,
    label TEXT NOT NULL,
    confidence REAL NOT NULL,
    reason TEXT
);
CREATE INDEX IF NOT EXISTS citations_rid ON citations (rid);
CREATE INDEX IF NOT EXISTS citations_run ON citations (run_id);
"""


@dataclass(frozen=True)
class AuditRow:
    """One audited citation."""

    run_id: str
    checked_at: str
    rid: str
    claim: str
    url: str
    label: str
    confidence: float
    reason: str | None


def new_run_id() -> str:
    """A fresh run id: UTC time for sorting, plus a random suffix."""
    return time.strftime("%Y%m%dT%H%M%SZ", time.gmtime()) + "-" + uuid.uuid4().hex[:8]


class AuditLog:
    """Appends verdicts to an SQLite index; safe to share between threads and processes."""

    def __init__(self, path: Path, run_id: str | None = None) -> None:
        self.path = path
        self.run_id = run_id or new_run_id()
        path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(path, check_same_thread=False, timeout=30)
        self._db.executescript(_SCHEMA)
        self._db.commit()

    def record(self, verdicts: Iterable[ClaimVerdict]) -> int:
        """Write one row per citation (an empty rid where nothing was stored); return the count."""
        now = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        rows = [
            (
                self.run_id,
                now,
                citation.rid or "",
                claim.claim,
                citation.url,
                citation.label.value,
                citation.confidence,
                citation.reason,
            )
            for claim in verdicts
            for citation in claim.citations
        ]
        with self._lock:
            self._db.executemany(
                "INSERT INTO citations (run_id, checked_at, rid, claim, url, label, confidence,"
                " reason) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                rows,
            )
            self._db.commit()
        return len(rows)

    def rows(self, run_id: str | None = None) -> list[AuditRow]:
        """Rows of one run (default: this one), oldest first."""
        with self._lock:
            cursor = self._db.execute(
                "SELECT run_id, checked_at, rid, claim, url, label, confidence, reason"
                " FROM citations WHERE run_id = ? ORDER BY id",
                (run_id or self.run_id,),
            )
            return [AuditRow(*row) for row in cursor.fetchall()]

    def close(self) -> None:
        """Close the database."""
        with self._lock:
            self._db.close()
