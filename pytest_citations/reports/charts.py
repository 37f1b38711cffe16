"""Inline SVG charts for the HTML report: the label mix of a case or of the run as one
stacked bar, and the judge's confusion matrix against the human labels as a heatmap.

Every chart is text inside the page (no script, no external asset), carries a ``<title>``
on each mark for a hover tooltip and an ``aria-label`` that says what it shows."""

from __future__ import annotations

import html
from collections.abc import Mapping
from typing import TYPE_CHECKING

from ..gating.result import COUNTED

if TYPE_CHECKING:
    from ..gating.calibration import Agreement

#: One colour per label, shared by the bars, the legend and the badges.
COLOURS = {
    "supported": "#1a7f37",
    "partial": "#9a6700",
    "contradicted": "#cf222e",
    "not_found": "#6e7781",
    "unreachable": "#424a53",
    "uncited": "#bc4c00",
    "misattributed": "#8250df",
    #: A claim that could not be checked has no label: a state, shown beside them.
    "unchecked": "#d4a72c",
}


def _percent(part: int, whole: int) -> str:
    return f"{100 * part / whole:.0f}%" if whole else "0%"


def ordered(counts: Mapping[str, int]) -> list[tuple[str, int]]:
    """(label, count) of the labels that occur, in the report's label order (``counts``:
    claims per label and unchecked, as :func:`~pytest_citations.gating.result.count_labels`
    counts them)."""
    return [(label, counts[label]) for label in COUNTED if counts.get(label)]


def label_mix(counts: Mapping[str, int], what: str) -> str:
    """A stacked bar: one segment per label, as wide as its share of the claims. It fills
    the width of its container (the height is set by the page's style)."""
    present = ordered(counts)
    total = sum(counts.values())
    said = ", ".join(f"{label} {count}" for label, count in present) or "no claims"
    segments, x = [], 0.0
    for label, count in present:
        width = 100 * count / total
        segments.append(
            f'<rect data-label="{html.escape(label)}" x="{x:.4f}" y="0" width="{width:.4f}" '
            f'height="1" fill="{COLOURS[label]}"><title>{html.escape(label)}: {count} of '
            f"{total} claims ({_percent(count, total)})</title></rect>"
        )
        x += width
    if not segments:
        segments.append('<rect x="0" y="0" width="100" height="1" fill="#eaeef2"/>')
    return (
        '<svg class="mix" viewBox="0 0 100 1" preserveAspectRatio="none" role="img" '
        f'aria-label="{html.escape(f"label mix of {what}: {said}")}">{"".join(segments)}</svg>'
    )


def legend(counts: Mapping[str, int]) -> str:
    """The labels of a mix bar with their counts and shares."""
    total = sum(counts.values())
    items = "".join(
        f'<li><span class="swatch" style="background:{COLOURS[label]}"></span>'
        f'{html.escape(label)} <b>{count}</b> <span class="muted">'
        f"{_percent(count, total)}</span></li>"
        for label, count in ordered(counts)
    )
    return f'<ul class="legend">{items}</ul>'


_CELL, _LEFT, _TOP = 76, 104, 46


def _cell(agreement: Agreement, human: str, judge: str, count: int, peak: int) -> str:
    labels = agreement.labels
    x = _LEFT + labels.index(judge) * _CELL
    y = _TOP + labels.index(human) * _CELL
    strength = count / peak if peak else 0.0
    fill = f"rgba(9,105,218,{0.06 + 0.84 * strength:.3f})"
    ink = "#ffffff" if strength > 0.55 else "#1f2328"
    row = sum(1 for expected, _ in agreement.pairs if expected == human)
    tip = f"human {human}, judge {judge}: {count} claim{'s' if count != 1 else ''}" + (
        f" ({_percent(count, row)} of the human {human})" if row else ""
    )
    agree = human == judge
    border = ' stroke="#1a7f37" stroke-width="3"' if agree else ' stroke="#ffffff" stroke-width="2"'
    return (
        f'<g class="cell{" agree" if agree else ""}" data-human="{html.escape(human)}" '
        f'data-judge="{html.escape(judge)}" data-count="{count}">'
        f"<title>{html.escape(tip)}</title>"
        f'<rect x="{x}" y="{y}" width="{_CELL}" height="{_CELL}" fill="{fill}"{border}/>'
        f'<text x="{x + _CELL / 2}" y="{y + _CELL / 2 + 6}" text-anchor="middle" '
        f'font-size="18" font-weight="600" fill="{ink}">{count}</text></g>'
    )


def heatmap(agreement: Agreement) -> str:
    """The confusion matrix: rows are the human labels, columns the judge's, each cell as
    dark as its count; the diagonal (agreement) is outlined in green."""
    labels = agreement.labels
    matrix = agreement.confusion()
    peak = max((n for row in matrix.values() for n in row.values()), default=0)
    size = len(labels) * _CELL
    parts = [
        f'<text x="{_LEFT + size / 2}" y="14" text-anchor="middle" font-size="13" '
        'fill="#57606a">judge</text>',
        f'<text x="14" y="{_TOP + size / 2}" text-anchor="middle" font-size="13" '
        f'fill="#57606a" transform="rotate(-90 14 {_TOP + size / 2})">human</text>',
    ]
    for index, label in enumerate(labels):
        shown = html.escape(label.replace("_", " "))
        parts.append(
            f'<text x="{_LEFT + index * _CELL + _CELL / 2}" y="{_TOP - 10}" '
            f'text-anchor="middle" font-size="12" fill="#1f2328">{shown}</text>'
        )
        parts.append(
            f'<text x="{_LEFT - 8}" y="{_TOP + index * _CELL + _CELL / 2 + 4}" '
            f'text-anchor="end" font-size="12" fill="#1f2328">{shown}</text>'
        )
    for human in labels:
        for judge in labels:
            parts.append(_cell(agreement, human, judge, matrix[human][judge], peak))
    width, height = _LEFT + size + 8, _TOP + size + 8
    said = "; ".join(
        f"human {human}: " + ", ".join(f"judge {judge} {n}" for judge, n in row.items())
        for human, row in matrix.items()
    )
    return (
        f'<svg class="heatmap" viewBox="0 0 {width} {height}" width="{width}" '
        f'height="{height}" role="img" font-family="system-ui, sans-serif" '
        f'aria-label="{html.escape("confusion matrix, " + said)}">{"".join(parts)}</svg>'
    )
