"""Reports: each renders the run's typed results (:mod:`pytest_citations.gating`) and never
decides anything itself. The terminal summary as lines (:mod:`.terminal`), and one module
per file format, each written from the same input.

A new format is one module with ``write(path, report, decision, info)`` plus one line in
:data:`WRITERS` (and, in the plugin, one row in the option table naming its flag).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from ..gating.decisions import RunDecision
from ..gating.run_report import RunReport
from . import csv_report, html_report, json_report, junit_report, markdown_report
from .info import RunInfo

Writer = Callable[[Path, RunReport, RunDecision, RunInfo], None]

#: Report writers by format: ``--citations-report`` (json), ``--citations-html``,
#: ``--citations-csv``, ``--citations-markdown``.
WRITERS: dict[str, Writer] = {
    "json": json_report.write,
    "html": html_report.write,
    "csv": csv_report.write,
    "markdown": markdown_report.write,
}

__all__ = ["WRITERS", "RunInfo", "Writer", "junit_report"]
