"""A self-contained HTML report: summary and release decision, every case and claim with its
label, and each citation's evidence quote highlighted inside the passage it came from.
No external assets: styles and the label filter are inline."""

from __future__ import annotations

import html
import re
from pathlib import Path

from ..gating.criteria import LABEL_RANK, RunDecision
from ..labels import Label
from ..sanitize import strip_controls
from ..verdicts import CitationVerdict
from .info import RunInfo
from .record import CaseRecord, ClaimRecord, RunReport
from .terminal import decision_of, release_lines, usage_line

_QUOTE_CHARS = {
    "'": "['\u2018\u2019\u201a\u201b\u2032]",
    '"': '["\u201c\u201d\u201e\u201f\u2033\u00ab\u00bb]',
}

_STYLE = """
:root { --ok: #1a7f37; --warn: #9a6700; --bad: #cf222e; --muted: #57606a; --line: #d0d7de; }
* { box-sizing: border-box; }
body { font: 15px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 0;
       color: #1f2328; background: #f6f8fa; }
header { background: #fff; border-bottom: 1px solid var(--line); padding: 16px 24px; }
h1 { font-size: 20px; margin: 0 0 8px; }
main { padding: 16px 24px; max-width: 1100px; }
.figures { display: flex; flex-wrap: wrap; gap: 8px 24px; font-family: ui-monospace, monospace;
           font-size: 13px; }
.decision { font-weight: 600; margin: 8px 0 0; }
.decision.fail { color: var(--bad); } .decision.pass { color: var(--ok); }
.decision.incomplete { color: var(--warn); }
.filters { margin: 12px 0 0; display: flex; flex-wrap: wrap; gap: 6px; }
.filters button { border: 1px solid var(--line); background: #fff; border-radius: 16px;
                  padding: 2px 12px; cursor: pointer; font: inherit; font-size: 13px; }
.filters button[aria-pressed="true"] { background: #1f2328; color: #fff; }
section.case { background: #fff; border: 1px solid var(--line); border-radius: 8px;
               margin: 16px 0; padding: 12px 16px; }
section.case h2 { font-size: 16px; margin: 0; }
.question { color: var(--muted); margin: 2px 0 8px; }
article.claim { border-top: 1px solid var(--line); padding: 10px 0; }
article.claim.failed { border-left: 4px solid var(--bad); padding-left: 10px; }
.badge { display: inline-block; border-radius: 10px; padding: 0 8px; font-size: 12px;
         font-weight: 600; color: #fff; background: var(--muted); margin-right: 6px; }
.badge.supported { background: var(--ok); } .badge.partial { background: var(--warn); }
.badge.contradicted { background: var(--bad); } .badge.misattributed { background: #8250df; }
.badge.not_found, .badge.uncited { background: #6e7781; }
.badge.unreachable { background: #424a53; }
.claim-text { font-weight: 600; }
.failures { color: var(--bad); margin: 4px 0; padding-left: 18px; }
.citation { margin: 8px 0 0 12px; font-size: 14px; }
.meta { color: var(--muted); font-size: 12px; font-family: ui-monospace, monospace; }
blockquote { margin: 6px 0; padding: 6px 10px; background: #f6f8fa; border-left: 3px solid
             var(--line); white-space: pre-wrap; font-size: 13px; }
mark { background: #fff8c5; padding: 0 1px; }
.hidden { display: none; }
"""

_SCRIPT = """
(function () {
  var buttons = document.querySelectorAll('.filters button');
  function apply() {
    var active = Array.prototype.filter.call(buttons, function (b) {
      return b.getAttribute('aria-pressed') === 'true';
    }).map(function (b) { return b.dataset.label; });
    document.querySelectorAll('article.claim').forEach(function (claim) {
      var show = active.indexOf('all') >= 0 || active.indexOf(claim.dataset.label) >= 0 ||
        (active.indexOf('failing') >= 0 && claim.classList.contains('failed'));
      claim.classList.toggle('hidden', !show);
    });
    document.querySelectorAll('section.case').forEach(function (section) {
      var visible = section.querySelectorAll('article.claim:not(.hidden)').length;
      section.classList.toggle('hidden', visible === 0);
    });
    var count = document.querySelectorAll('article.claim:not(.hidden)').length;
    document.getElementById('shown').textContent = count;
  }
  buttons.forEach(function (button) {
    button.addEventListener('click', function () {
      var label = button.dataset.label;
      buttons.forEach(function (other) {
        if (label === 'all' ? other !== button : other.dataset.label === 'all') {
          other.setAttribute('aria-pressed', 'false');
        }
      });
      var pressed = button.getAttribute('aria-pressed') === 'true';
      button.setAttribute('aria-pressed', pressed && label !== 'all' ? 'false' : 'true');
      if (!document.querySelector('.filters button[aria-pressed="true"]')) {
        document.querySelector('.filters button[data-label="all"]')
          .setAttribute('aria-pressed', 'true');
      }
      apply();
    });
  });
  apply();
})();
"""


def _quote_pattern(quote: str) -> re.Pattern[str] | None:
    words = quote.split()
    if not words:
        return None
    parts = []
    for word in words:
        parts.append("".join(_QUOTE_CHARS.get(ch, re.escape(ch)) for ch in word))
    return re.compile(r"\s+".join(parts))


def highlight(passage: str, quote: str | None) -> str:
    """The passage as HTML with the quote (matched as the guard does) in ``<mark>``."""
    pattern = _quote_pattern(quote) if quote else None
    match = pattern.search(passage) if pattern else None
    if match is None:
        return html.escape(passage)
    return (
        html.escape(passage[: match.start()])
        + "<mark>"
        + html.escape(match.group(0))
        + "</mark>"
        + html.escape(passage[match.end() :])
    )


def _passage_for(claim: ClaimRecord, url: str, quote: str | None) -> str | None:
    passages = claim.passages(url)
    pattern = _quote_pattern(quote) if quote else None
    for passage in passages:
        if pattern is not None and pattern.search(passage):
            return passage
    return passages[0] if passages else None


def _failed(claim: ClaimRecord) -> bool:
    return bool(claim.failures or claim.unchecked or claim.problems)


def _rank(claim: ClaimRecord) -> tuple[int, int, int]:
    contradicted = claim.label == Label.CONTRADICTED.value
    try:
        label_rank = LABEL_RANK[Label(claim.label)]
    except ValueError:
        label_rank = 99
    return (0 if _failed(claim) else 1, 0 if contradicted else 1, -label_rank)


def _citation_html(claim: ClaimRecord, citation: CitationVerdict) -> str:
    url = strip_controls(citation.url)
    label = citation.label.value
    quote = citation.evidence_quote
    meta = [f"confidence {citation.confidence:.2f}"]
    if citation.reason:
        meta.append(f"reason {citation.reason}")
    if citation.original_status is not None:
        meta.append(f"status {citation.original_status}")
    if citation.final_url and citation.final_url != citation.url:
        meta.append(f"final URL {strip_controls(citation.final_url)}")
    if citation.rid:
        meta.append(f"rid {citation.rid}")
    meta += list(citation.warnings)
    passage = _passage_for(claim, citation.url, quote)
    body = ""
    if passage is not None and quote:
        body = f"<blockquote>{highlight(passage, quote)}</blockquote>"
    elif passage is not None:
        body = (
            "<details><summary>best passage the judge saw</summary>"
            f"<blockquote>{html.escape(passage)}</blockquote></details>"
        )
    elif quote:
        body = f"<blockquote><mark>{html.escape(quote)}</mark></blockquote>"
    return (
        f'<div class="citation"><span class="badge {html.escape(label)}">{html.escape(label)}'
        f'</span><a href="{html.escape(url)}" rel="noreferrer">{html.escape(url)}</a>'
        f'<div class="meta">{html.escape(" · ".join(meta))}</div>{body}</div>'
    )


def _claim_html(claim: ClaimRecord) -> str:
    label = claim.label
    failures = [
        *claim.failures,
        *(f"could not be checked: {line}" for line in claim.unchecked),
        *(f"not checked: {problem}" for problem in claim.problems),
    ]
    failed = " failed" if failures else ""
    notes = ""
    if claim.joint_support:
        carried = html.escape(", ".join(claim.joint_support))
        notes += f'<div class="meta">supported jointly by {carried}</div>'
    if claim.misattributed_to:
        notes += (
            '<div class="meta">supported instead by the uncited source '
            f"{html.escape(', '.join(claim.misattributed_to))}</div>"
        )
    failure_list = (
        '<ul class="failures">' + "".join(f"<li>{html.escape(f)}</li>" for f in failures) + "</ul>"
        if failures
        else ""
    )
    citations = "".join(_citation_html(claim, c) for c in claim.citations)
    return (
        f'<article class="claim{failed}" data-label="{html.escape(label)}" '
        f'id="{html.escape(claim.nodeid)}">'
        f'<span class="badge {html.escape(label)}">{html.escape(label)}</span>'
        f'<span class="claim-text">{html.escape(claim.claim)}</span>'
        f'<div class="meta">{html.escape(claim.nodeid)}</div>'
        f"{failure_list}{notes}{citations}</article>"
    )


def _case_html(case: CaseRecord) -> str:
    outcome = case.outcome
    badge = ""
    if outcome is not None:
        reasons = outcome.failures or outcome.incomplete
        why = f" ({reasons[0]})" if reasons else ""
        badge = (
            f'<div class="decision {html.escape(outcome.decision)}">release decision: '
            f"{html.escape(outcome.decision)}{html.escape(why)}</div>"
        )
    claims = sorted(case.claims, key=_rank)
    question = case.question
    return (
        f'<section class="case"><h2>{html.escape(case.file)} :: {html.escape(case.case_id)}</h2>'
        + (f'<div class="question">{html.escape(question)}</div>' if question else "")
        + f'<div class="meta">citation precision {case.precision.fraction()}</div>{badge}'
        + "".join(_claim_html(claim) for claim in claims)
        + "</section>"
    )


def _filters(report: RunReport) -> tuple[str, int]:
    """The label filter's buttons, and how many claims there are."""
    labels = [label.value for label in Label]
    counts = {label: 0 for label in labels}
    for claim in report.claims:
        counts[claim.label] = counts.get(claim.label, 0) + 1
    total = sum(counts.values())
    failing = sum(1 for claim in report.claims if _failed(claim))

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
    return "".join(buttons), total


def render_html(report: RunReport, decision: RunDecision, title: str) -> str:
    """The whole page. Page text is shown without control sequences (the records were
    cleaned where they were made; these lines are built from them)."""
    release = release_lines(report, decision)
    final = release[-1] if release else ""
    run_lines = [*report.precision.lines(), f"supported_share={report.share}"]
    run_lines.append(usage_line(report.usage))
    cases = sorted(
        report.cases,
        key=lambda case: (
            0 if case.outcome is not None and case.outcome.decision == "fail" else 1,
            case.file,
            case.case_id,
        ),
    )
    buttons, total = _filters(report)
    figures = "".join(f"<span>{html.escape(strip_controls(line))}</span>" for line in run_lines)
    shown = decision_of(final) or "pass"
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f'<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{html.escape(title)}</title><style>{_STYLE}</style></head><body>"
        f'<header><h1>{html.escape(title)}</h1><div class="figures">{figures}</div>'
        + (f'<p class="decision {shown}">{html.escape(final)}</p>' if final else "")
        + '<div class="filters" role="group" aria-label="filter claims by label">'
        + buttons
        + '</div><div class="meta">showing <span id="shown">'
        + str(total)
        + "</span> claims</div></header><main>"
        + "".join(_case_html(case) for case in cases)
        + f"</main><script>{_SCRIPT}</script></body></html>\n"
    )


def write(path: Path, report: RunReport, decision: RunDecision, info: RunInfo) -> None:
    """Write the self-contained HTML report to ``path``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render_html(report, decision, "pytest-citations report"), encoding="utf-8")
