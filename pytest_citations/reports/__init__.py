"""Reports: each renders the run's result (:class:`~pytest_citations.gating.run_result.RunResult`)
and decides nothing, loads nothing and writes nothing itself: the terminal summary as lines
(:mod:`.terminal`), and one module per file format whose ``render(result, info)`` returns the
file's text. :func:`write_report` is the one place a rendered report reaches its file, whole
or not at all.

A new format is one module with ``render(result, info) -> str`` plus one line in
:data:`RENDERERS` (and, in the plugin, one row in the option table naming its flag).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from ..atomic import write_atomically
from ..errors import CitationsError
from ..gating.run_result import RunResult
from . import csv_report, html_report, json_report, markdown_report
from .info import RunInfo

Renderer = Callable[[RunResult, RunInfo], str]

#: Report renderers by format: ``--citations-report`` (json), ``--citations-html``,
#: ``--citations-csv``, ``--citations-markdown``.
RENDERERS: dict[str, Renderer] = {
    "json": json_report.render,
    "html": html_report.render,
    "csv": csv_report.render,
    "markdown": markdown_report.render,
}


def write_report(name: str, path: Path, text: str) -> str | None:
    """Write the rendered report ``name`` to ``path``, atomically: None when it was
    written, else why not (a full disk, a folder that cannot be made), the file left as it
    was."""
    try:
        write_atomically(path, text)
    except CitationsError as error:
        return f"FAIL {name} report not written: {error}"
    return None


__all__ = ["RENDERERS", "Renderer", "RunInfo", "write_report"]
