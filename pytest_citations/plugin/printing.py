"""What the plugin prints into a CI log that carries data (a claim, a cited page's quote, a
URL): the terminal report, the explanation of a failing item, a warning, a log record.
Terminal control sequences are stripped everywhere; under GitHub Actions each such line is
also neutralised (:func:`~pytest_citations.reports.github.neutralise`), so that the runner
reads no workflow command in it (``##[add-mask]…``, ``##[stop-commands]…``, a line that
starts with ``::``). The plugin's own annotations are the only commands it prints, last."""

from __future__ import annotations

import pytest

from ..reports.github import neutralise, under_github_actions
from ..sanitize import LogRedaction, strip_controls


def printed(text: str) -> str:
    """``text`` as the plugin prints it: controls stripped, and under GitHub Actions no line
    that the runner reads as a workflow command."""
    clean = strip_controls(text)
    return neutralise(clean) if under_github_actions() else clean


def neutralise_failure(report: pytest.TestReport | pytest.CollectReport) -> None:
    """Under GitHub Actions, the explanation of a failed item (or of a case file that could
    not be collected) as text the runner reads no command in. Left as pytest made it (with
    its short summary line) when there is nothing to neutralise."""
    if not report.failed or not under_github_actions() or isinstance(report.longrepr, tuple):
        return
    text = report.longreprtext
    clean = neutralise(text)
    if clean != text:
        report.longrepr = clean


def neutralised_logs() -> LogRedaction | None:
    """Under GitHub Actions, the neutralisation of every log record made from now on (as
    pytest prints them under a failing item, or live); None elsewhere. Uninstall it at the
    end of the run."""
    return LogRedaction(neutralise).install() if under_github_actions() else None


__all__ = ["neutralise_failure", "neutralised_logs", "printed"]
