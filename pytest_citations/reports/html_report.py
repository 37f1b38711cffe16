"""A self-contained HTML report. It opens on an overview (the run's metadata and release
decision, its figures, the label mix, the per-case table, the comparison with the base and
the judge's calibration when they ran), then every case and claim with its label and each
citation's evidence quote, the passage it came from folded beneath it. No external assets:
the style sheet, the label filter and the charts (inline SVG) are all in the file.

The page is laid out in :mod:`.html_overview`, :mod:`.html_cases`, :mod:`.html_regressions`
and :mod:`.charts`."""

from __future__ import annotations

import html
from collections.abc import Mapping
from pathlib import Path

from ..atomic import write_atomically
from ..gating.calibration import as_judge_label
from ..gating.decisions import RunDecision
from ..gating.release import release_of
from ..gating.run_report import RunReport
from ..labels import Label
from ..sanitize import strip_controls
from .html_assets import SCRIPT, STYLE
from .html_cases import case_html, failed, highlight
from .html_drift import drift_section
from .html_overview import calibration, cards, case_table, run_meta, run_mix
from .html_regressions import regressions_section
from .info import RunInfo

TITLE = "pytest-citations report"


def _filters(report: RunReport, counts: Mapping[str, int], calibrated: bool) -> tuple[str, int]:
    """The label filter's buttons (``counts``: the run's claims per label), and how many
    claims there are."""
    labels = [label.value for label in Label]
    total = sum(counts.values())
    failing = sum(1 for claim in report.claims if failed(claim))

    def button(label: str, shown: str, pressed: bool) -> str:
        state = "true" if pressed else "false"
        return f'<button type="button" data-label="{label}" aria-pressed="{state}">{shown}</button>'

    buttons = [
        button("all", f"all ({total})", True),
        button("failing", f"failing ({failing})", False),
    ]
    buttons += [
        button(label, f"{label} ({counts[label]})", False) for label in labels if counts.get(label)
    ]
    if calibrated:
        disagree = sum(
            1
            for claim in report.claims
            if claim.expect and claim.expect != as_judge_label(claim.label)
        )
        buttons.append(button("disagree", f"judge ≠ human ({disagree})", False))
    return "".join(buttons), total


def _header(report: RunReport, decision: RunDecision, info: RunInfo, title: str) -> str:
    release = release_of(report, decision)
    final = release.line or ""
    shown = release.verdict.value if release.verdict is not None else ""
    verdict = f'<span class="verdict {shown}">{shown}</span>' if shown else ""
    return (
        f'<header><div class="title-row"><h1>{html.escape(title)}</h1>{verdict}</div>'
        + (f'<p class="decision {shown}">{html.escape(strip_controls(final))}</p>' if final else "")
        + run_meta(info, shown)
        + "</header>"
    )


def render_html(
    report: RunReport, decision: RunDecision, info: RunInfo | None = None, title: str = TITLE
) -> str:
    """The whole page. Page text is shown without control sequences (the records were
    cleaned where they were made; these lines are built from them)."""
    info = info or RunInfo()
    calibrated = info.agreement is not None
    cases = sorted(
        report.cases,
        key=lambda case: (
            0 if case.outcome is not None and case.outcome.decision == "fail" else 1,
            case.file,
            case.case_id,
        ),
    )
    counts = report.label_counts()
    buttons, total = _filters(report, counts, calibrated)
    overview = (
        '<section class="overview" id="overview"><h2>Overview</h2>'
        + cards(report, info)
        + run_mix(counts)
        + case_table(report, info, counts)
        + "</section>"
        + (regressions_section(info.comparison) if info.comparison is not None else "")
        + (calibration(info.agreement) if info.agreement is not None else "")
        + (drift_section(report.drift) if report.drift is not None else "")
    )
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{html.escape(title)}</title><style>{STYLE}</style></head><body>"
        + _header(report, decision, info, title)
        + "<main>"
        + overview
        + '<div class="claims-head"><h2>Claims</h2>'
        + '<div class="filters" role="group" aria-label="filter claims by label">'
        + buttons
        + f'<span class="shown">showing <span id="shown">{total}</span> claims</span></div></div>'
        + "".join(case_html(case, calibrated) for case in cases)
        + f"</main><script>{SCRIPT}</script></body></html>\n"
    )


def write(path: Path, report: RunReport, decision: RunDecision, info: RunInfo) -> None:
    """Write the self-contained HTML report to ``path``, atomically."""
    write_atomically(path, render_html(report, decision, info))


__all__ = ["TITLE", "highlight", "render_html", "write"]
