"""The HTML report's overview, what the page opens on: the run's metadata, its figures,
the label mix of the run, the per-case table the terminal prints (with a label-mix bar per
case and the precision against the baseline), and the judge's calibration when it ran."""

from __future__ import annotations

import html
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING

from ..gating.precision import Precision, figure
from ..gating.result import COUNTED, CaseResult, ClaimResult
from ..gating.run_result import RunResult
from .charts import COLOURS, heatmap, label_mix, legend
from .html_cases import anchor
from .info import RunInfo
from .terminal import usage_line

if TYPE_CHECKING:
    from ..gating.calibration import Agreement

_ARROWS = {"up": "▲", "down": "▼"}
_CHANGE_WORDS = (("regression", "regressed"), ("improvement", "improved"), ("new", "new"))


def run_meta(info: RunInfo, decision: str) -> str:
    """The run's metadata as a definition list, each entry marked with its field."""
    fields = [
        ("plugin_version", "plugin", f"pytest-citations {info.plugin_version}"),
        ("judge", "judge", info.judge),
        ("model", "model", info.model),
        ("embedder", "embedder", str(info.embedders) if info.embedder else ""),
        ("record_mode", "record mode", info.record_mode),
        ("started", "started", info.started),
        ("run_id", "run id", info.run_id),
        ("decision", "release decision", decision),
    ]
    items = "".join(
        f'<div data-field="{name}"><dt>{shown}</dt><dd>{html.escape(value)}</dd></div>'
        for name, shown, value in fields
        if value and value != "pytest-citations "
    )
    return f'<dl class="run-meta">{items}</dl>'


def _card(title: str, value: str, detail: str, name: str, extra: str = "") -> str:
    return (
        f'<div class="card" data-figure="{name}"><div class="card-title">{title}</div>'
        f'<div class="card-value">{html.escape(value)}</div>'
        f'<div class="card-detail">{html.escape(detail)}</div>{extra}</div>'
    )


def _trend(now: float | None, before: float | None) -> tuple[str, str]:
    """(direction, shown change) of a precision against its baseline value."""
    if now is None or before is None:
        return "same", ""
    delta = now - before
    if abs(delta) < 5e-5:
        return "same", "unchanged"
    return ("up" if delta > 0 else "down"), f"{abs(delta):.4f}"


def _against(now: Precision, before: Precision | None) -> str:
    """``▼ 0.1667 from 0.5000 (2/4)``: a precision against the baseline's."""
    if before is None or before.total == 0:
        return ""
    direction, change = _trend(now.citation, before.citation)
    if direction == "same":
        said = f'<span class="muted">unchanged ({figure(before.citation)})</span>'
    else:
        said = f"<b>{_ARROWS[direction]} {change}</b> from {html.escape(before.fraction())}"
    return (
        f'<div class="vs-baseline {direction}" data-baseline="{figure(before.citation)}">'
        f"{said}</div>"
    )


def _changes(claims: Iterable[ClaimResult], *, quiet: bool = False, prefix: str = "") -> str:
    """How many claims regressed, improved or are new against the baseline (nothing when
    no claim was compared with one)."""
    kinds = [claim.baseline.kind.value for claim in claims if claim.baseline is not None]
    if not kinds:
        return ""
    counts = [(kinds.count(kind), shown) for kind, shown in _CHANGE_WORDS]
    said = ", ".join(f"{count} {shown}" for count, shown in counts if count)
    if quiet and not said:
        return ""
    return f'<div class="changes">{prefix}{said or "no claim changed"}</div>'


def _baselined(result: RunResult) -> bool:
    return result.baseline is not None or any(c.baseline is not None for c in result.claims)


def _checked(count: int, unchecked: int, noun: str) -> str:
    """``3 of 4 citations``, and how many could not be checked."""
    return f" ({count} of {count + unchecked} {noun} checked)" if unchecked else ""


def cards(result: RunResult, failing: int) -> str:
    """The run's figures: precision (against the baseline), supported share, claims
    (``failing`` of them fail or could not be checked), cost."""
    precision, share, usage = result.precision, result.share, result.usage
    saved = f"; a replay saved {usage.replayed_credits:g} credits" if usage.replayed_crawls else ""
    changes = _changes(result.claims, prefix="against the baseline: ")
    citations = _checked(precision.total, precision.unchecked, "citations")
    return (
        '<div class="cards">'
        + "".join(
            [
                _card(
                    "citation precision",
                    figure(precision.citation),
                    f"{precision.supported} of {precision.total} citations supported{citations}",
                    "citation_precision",
                    _against(precision, result.baseline_precision),
                ),
                _card(
                    "reachable precision",
                    figure(precision.reachable_precision),
                    f"{precision.supported} of {precision.reachable} reachable citations",
                    "reachable_precision",
                ),
                _card(
                    "fully supported claims",
                    figure(share.value),
                    f"{share.supported} of {share.total} claims"
                    + _checked(share.total, share.unchecked, "claims"),
                    "supported_share",
                ),
                _card(
                    "claims",
                    str(len(result.claims)),
                    f"in {len(result.cases)} cases; {failing} failing",
                    "claims",
                    changes,
                ),
                _card(
                    "Crawlbase credits",
                    f"{usage.credits:g}",
                    f"{usage.judge_calls} judge calls, {usage.judge_tokens} tokens{saved}",
                    "cost",
                    f'<div class="card-detail mono">{html.escape(usage_line(usage))}</div>',
                ),
            ]
        )
        + "</div>"
    )


def _row(case: CaseResult, result: RunResult, baselined: bool) -> str:
    counts = case.label_counts
    precision = case.precision
    outcome = case.decision or ""
    cells = [
        f'<th scope="row"><a href="#{html.escape(anchor(case))}"><b>'
        f"{html.escape(case.info.case)}</b><span>{html.escape(case.info.file)}</span></a></th>",
        f'<td><span class="pill {html.escape(outcome)}">{html.escape(outcome or "—")}</span></td>',
        f'<td class="num">{len(case.claims)}</td>',
        *(
            f'<td class="num{" zero" if not counts[label] else ""}">{counts[label]}</td>'
            for label in COUNTED
        ),
        f'<td class="bar">{label_mix(counts, case.key)}</td>',
        f'<td class="num">{html.escape(precision.fraction())}</td>',
        f'<td class="num">{html.escape(precision.reachable_fraction())}</td>',
    ]
    if baselined:
        before = result.baseline.precision([case.key]) if result.baseline is not None else None
        shown = _against(precision, before) + _changes(case.claims, quiet=True)
        cells.append(f'<td class="baseline">{shown}</td>')
    return f'<tr data-case="{html.escape(case.key)}">{"".join(cells)}</tr>'


def case_table(result: RunResult, counts: Mapping[str, int]) -> str:
    """The terminal's per-case table: claims, claim labels and unchecked claims, precision,
    reachable precision; with a label-mix bar per case, and the run (``counts``: its claims
    per label) in the last row."""
    baselined = _baselined(result)
    header = "".join(
        [
            *(f'<th scope="col">{name}</th>' for name in ("case", "decision", "claims")),
            *(
                f'<th scope="col" class="label-col" title="{label} claims"><span>'
                f'<i class="swatch" style="background:{COLOURS[label]}"></i>{label}</span></th>'
                for label in COUNTED
            ),
            *(f'<th scope="col">{name}</th>' for name in ("label mix", "precision", "reachable")),
            '<th scope="col">against the baseline</th>' if baselined else "",
        ]
    )
    rows = "".join(_row(case, result, baselined) for case in result.cases)
    precision = result.precision
    total = [
        '<th scope="row">all cases</th><td></td>',
        f'<td class="num">{len(result.claims)}</td>',
        *(f'<td class="num">{counts[label]}</td>' for label in COUNTED),
        f'<td class="bar">{label_mix(counts, "the run")}</td>',
        f'<td class="num">{html.escape(precision.fraction())}</td>',
        f'<td class="num">{html.escape(precision.reachable_fraction())}</td>',
        "<td></td>" if baselined else "",
    ]
    return (
        '<div class="table-wrap"><table class="cases-table"><thead><tr>'
        f'{header}</tr></thead><tbody>{rows}</tbody><tfoot><tr class="run-row">'
        f"{''.join(total)}</tr></tfoot></table></div>"
    )


def run_mix(counts: Mapping[str, int]) -> str:
    """The run's label mix (claims per label), as a bar with its legend."""
    return f'<div class="run-mix">{label_mix(counts, "the run")}{legend(counts)}</div>'


def _strength(kappa: float | None) -> str:
    """Landis and Koch's words for a kappa."""
    if kappa is None:
        return ""
    if kappa < 0:
        return "poor agreement"
    for bound, word in ((0.2, "slight"), (0.4, "fair"), (0.6, "moderate"), (0.8, "substantial")):
        if kappa <= bound:
            return f"{word} agreement"
    return "almost perfect agreement"


def calibration(agreement: Agreement) -> str:
    """The judge against the human ``expect:`` labels: accuracy, balanced accuracy,
    Cohen's kappa, precision and recall per label, and the confusion matrix."""
    figures = "".join(
        [
            _card("accuracy", figure(agreement.accuracy), "claims labelled alike", "accuracy"),
            _card(
                "balanced accuracy",
                figure(agreement.balanced_accuracy),
                "mean recall over the human labels",
                "balanced_accuracy",
            ),
            _card("Cohen's kappa", figure(agreement.kappa), _strength(agreement.kappa), "kappa"),
        ]
    )
    rows = "".join(
        f'<tr><th scope="row">{html.escape(label)}</th>'
        f'<td class="num">{figure(agreement.precision(label))}</td>'
        f'<td class="num">{figure(agreement.recall(label))}</td>'
        f'<td class="num">{agreement.human[label]}</td>'
        f'<td class="num">{agreement.judged[label]}</td></tr>'
        for label in agreement.labels
    )
    table = (
        '<table class="per-label"><thead><tr><th scope="col">label</th>'
        '<th scope="col">precision</th><th scope="col">recall</th><th scope="col">human</th>'
        f'<th scope="col">judge</th></tr></thead><tbody>{rows}</tbody></table>'
    )
    return (
        '<section class="calibration" id="calibration"><h2>Judge calibration</h2>'
        f'<p class="lead">{agreement.total} claims carry a human label (<code>expect:</code>); '
        f"the judge gave the same label to {agreement.agreed}. Rows are the human labels, "
        f'columns the judge\'s.</p><div class="cards">{figures}</div><div class="calibration-body">'
        f"<figure>{heatmap(agreement)}</figure>{table}</div></section>"
    )
