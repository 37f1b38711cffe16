"""The HTML report's section on the run against its base (``--citations-compare``): the
headline the summary prints, and a table of every case that changed (its precision before
and after) with how each of its claims changed, old and new text side by side."""

from __future__ import annotations

import html
from typing import TYPE_CHECKING

from ..gating.regression_lines import NOT_COMPARED, headline, relaxed_line
from ..sanitize import strip_controls

if TYPE_CHECKING:
    from ..gating.comparison import CaseDiff, ClaimDiff, RunComparison


def _text(value: object) -> str:
    return html.escape(strip_controls(str(value)))


def _change(change: ClaimDiff) -> str:
    failing = ' <b class="regressed">regressed</b>' if change.regressed else ""
    labels = f"{change.before or '—'} → {change.after or '—'}"
    sides: tuple[tuple[str, str | None], ...] = (
        ("was", change.text_before),
        ("now", change.text_after),
    )
    if change.text_before is None:
        sides = (("claim", change.text_after),)
    texts = "".join(
        f'<div class="{side}"><span class="muted">{side}:</span> {_text(text)}</div>'
        for side, text in sides
        if text is not None
    )
    failing_flag = str(change.regressed).lower()
    return (
        f'<li data-kind="{_text(change.kind.value)}" data-regressed="{failing_flag}">'
        f"<code>{_text(change.where.name)}</code> {_text(change.kind.value)}: {_text(labels)}"
        f"{failing}"
        f"{texts}</li>"
    )


def _precision(case: CaseDiff) -> str:
    before = case.precision_before.fraction() if case.precision_before else "—"
    after = case.precision_after.fraction() if case.precision_after else "—"
    return f"{_text(before)} → {_text(after)}"


def _row(case: CaseDiff) -> str:
    matched = (
        f'<div class="muted">was {_text(case.base_case)}, same {_text(case.matched_by)}</div>'
        if case.matched_by not in (None, "key")
        else ""
    )
    changes = "".join(_change(change) for change in case.changes)
    if case.relaxed:
        relaxed = relaxed_line(case.relaxed, case.relaxation_fails)
        matched += f'<div class="relaxed"><b class="regressed">{_text(relaxed)}</b></div>'
    return (
        f'<tr data-case="{_text(case.case)}" data-status="{_text(case.status)}">'
        f'<th scope="row">{_text(case.case)}{matched}</th><td>{_text(case.status)}</td>'
        f'<td class="num">{_precision(case)}</td>'
        f"<td>{f'<ul>{changes}</ul>' if changes else ''}</td></tr>"
    )


def regressions_section(comparison: RunComparison) -> str:
    """The section, with every case that changed against the base."""
    rows = "".join(_row(case) for case in comparison.cases if case.changed)
    table = (
        '<div class="table-wrap"><table class="regressions"><thead><tr>'
        '<th scope="col">case</th><th scope="col">status</th>'
        '<th scope="col">citation precision</th><th scope="col">claims</th></tr></thead>'
        f"<tbody>{rows}</tbody></table></div>"
        if rows
        else "<p>No case changed.</p>"
    )
    relaxed = bool(comparison.relaxed or comparison.relaxed_cases)
    state = "fail" if comparison.regressions or relaxed else "pass"
    notes = [f"the run's {relaxed_line(comparison.relaxed, comparison.relaxation_fails)}"]
    notes = notes if comparison.relaxed else []
    notes += [NOT_COMPARED] if comparison.criteria_compared is False else []
    return (
        '<section class="regressions" id="regressions">'
        f"<h2>Regressions against {_text(comparison.base)}</h2>"
        f'<p class="decision {state}">{_text(headline(comparison))}</p>'
        + "".join(f'<p class="relaxed">{_text(note)}</p>' for note in notes)
        + f"{table}</section>"
    )


__all__ = ["regressions_section"]
