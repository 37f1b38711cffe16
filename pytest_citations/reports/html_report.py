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

from ..gating.run_result import RunResult
from ..sanitize import strip_controls
from .charts import ordered
from .html_assets import SCRIPT, STYLE
from .html_cases import case_html, highlight
from .html_drift import drift_section
from .html_overview import calibration, cards, case_table, run_meta, run_mix
from .html_regressions import regressions_section
from .info import RunInfo

TITLE = "pytest-citations report"


def _filters(
    result: RunResult, counts: Mapping[str, int], failing: int, calibrated: bool
) -> tuple[str, int]:
    """The label filter's buttons (``counts``: the run's claims per label, and unchecked;
    ``failing``: the claims the "failing" filter shows), and how many claims there are."""
    total = sum(counts.values())

    def button(label: str, shown: str, pressed: bool) -> str:
        state = "true" if pressed else "false"
        return f'<button type="button" data-label="{label}" aria-pressed="{state}">{shown}</button>'

    buttons = [
        button("all", f"all ({total})", True),
        button("failing", f"failing ({failing})", False),
    ]
    buttons += [button(label, f"{label} ({count})", False) for label, count in ordered(counts)]
    if calibrated:
        disagree = sum(1 for claim in result.claims if claim.differs_from_human)
        buttons.append(button("disagree", f"judge ≠ human ({disagree})", False))
    return "".join(buttons), total


def _header(result: RunResult, info: RunInfo, title: str) -> str:
    release = result.release
    final = release.line or ""
    shown = release.verdict.value if release.verdict is not None else ""
    verdict = f'<span class="verdict {shown}">{shown}</span>' if shown else ""
    return (
        f'<header><div class="title-row"><h1>{html.escape(title)}</h1>{verdict}</div>'
        + (f'<p class="decision {shown}">{html.escape(strip_controls(final))}</p>' if final else "")
        + run_meta(info, shown)
        + "</header>"
    )


def render(result: RunResult, info: RunInfo | None = None, title: str = TITLE) -> str:
    """The whole page. Page text is shown without control sequences (the results were
    cleaned where they were made; these lines are built from them)."""
    info = info or RunInfo()
    calibrated = result.agreement is not None
    cases = sorted(
        result.cases,
        key=lambda case: (0 if case.decision == "fail" else 1, case.info.file, case.info.case),
    )
    counts = result.label_counts
    failing = sum(1 for claim in result.claims if claim.failing)
    buttons, total = _filters(result, counts, failing, calibrated)
    overview = (
        '<section class="overview" id="overview"><h2>Overview</h2>'
        + cards(result, failing)
        + run_mix(counts)
        + case_table(result, counts)
        + "</section>"
        + (regressions_section(result.comparison) if result.comparison is not None else "")
        + (calibration(result.agreement) if result.agreement is not None else "")
        + (drift_section(result.drift) if result.drift is not None else "")
    )
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{html.escape(title)}</title><style>{STYLE}</style></head><body>"
        + _header(result, info, title)
        + "<main>"
        + overview
        + '<div class="claims-head"><h2>Claims</h2>'
        + '<div class="filters" role="group" aria-label="filter claims by label">'
        + buttons
        + f'<span class="shown">showing <span id="shown">{total}</span> claims</span></div></div>'
        + "".join(case_html(case, calibrated, info.links) for case in cases)
        + f"</main><script>{SCRIPT}</script></body></html>\n"
    )


__all__ = ["TITLE", "highlight", "render"]
