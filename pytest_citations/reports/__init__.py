"""Reports: the run's typed results (:mod:`.record`), the terminal summary as lines
(:mod:`.terminal`), and one module per file format, each written from the same input.

A new format is one module with ``write(path, report, decision, info)`` plus one line in
:data:`FORMATS` (and, in the plugin, one row in the option table naming its flag).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from ..gating.criteria import RunDecision
from . import csv, html, json
from .info import RunInfo
from .record import BaselineChange, CaseOutcome, CaseRecord, ClaimRecord, RunReport

Writer = Callable[[Path, RunReport, RunDecision, RunInfo], None]

#: Report formats by name: ``--citations-report`` (json), ``--citations-html``,
#: ``--citations-csv``.
FORMATS: dict[str, Writer] = {
    "json": json.write,
    "html": html.write,
    "csv": csv.write,
}

__all__ = [
    "FORMATS",
    "BaselineChange",
    "CaseOutcome",
    "CaseRecord",
    "ClaimRecord",
    "RunInfo",
    "RunReport",
    "Writer",
]
