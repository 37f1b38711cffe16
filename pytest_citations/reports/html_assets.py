"""The HTML report's style sheet and script, inlined into the page: no external asset, so
the file works offline and can be attached to a CI run as it is."""

from __future__ import annotations

from .charts import COLOURS

_BADGES = "\n".join(
    f".badge.{label} {{ background: {colour}; }}" for label, colour in COLOURS.items()
)

STYLE = (
    """
:root { --ok: #1a7f37; --warn: #9a6700; --bad: #cf222e; --muted: #57606a; --line: #d0d7de;
        --soft: #f6f8fa; }
* { box-sizing: border-box; }
body { font: 15px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 0;
       color: #1f2328; background: var(--soft); }
header { background: #fff; border-bottom: 1px solid var(--line); padding: 16px 32px 12px; }
.title-row { display: flex; align-items: center; gap: 14px; flex-wrap: wrap; }
h1 { font-size: 22px; margin: 0; }
h2 { font-size: 17px; margin: 0 0 10px; }
main { padding: 8px 32px 32px; }
.verdict { font-weight: 700; letter-spacing: .04em; border-radius: 6px; padding: 2px 12px;
           color: #fff; background: var(--muted); text-transform: uppercase; font-size: 14px; }
.verdict.fail { background: var(--bad); } .verdict.pass { background: var(--ok); }
.verdict.incomplete { background: var(--warn); }
.decision { font-weight: 600; margin: 8px 0 0; }
.decision.fail { color: var(--bad); } .decision.pass { color: var(--ok); }
.decision.incomplete { color: var(--warn); }
.run-meta { display: flex; flex-wrap: wrap; gap: 4px 28px; margin: 10px 0 0; font-size: 13px; }
.run-meta div { display: flex; gap: 6px; }
.run-meta dt { color: var(--muted); } .run-meta dd { margin: 0; font-weight: 600; }
.overview, .calibration, .drift, .claims-head { margin: 20px 0 0; }
.drift-counts { border-collapse: collapse; }
.drift-counts th, .drift-counts td { padding: 2px 10px; border-bottom: 1px solid var(--line);
  text-align: left; }
.drifted { list-style: none; padding: 0; }
.drifted li { margin: 8px 0; padding: 8px; background: #fff; border: 1px solid var(--line); }
.drifted .status { font-weight: 600; text-transform: uppercase; font-size: 12px; }
.drifted .flip { color: var(--bad); font-weight: 600; }
.drifted pre { white-space: pre-wrap; margin: 6px 0 0; }
.cards { display: grid; grid-template-columns: repeat(auto-fit, minmax(210px, 1fr));
         gap: 12px; margin: 0 0 16px; }
.card { background: #fff; border: 1px solid var(--line); border-radius: 8px;
        padding: 10px 14px; min-width: 0; }
.card-title { color: var(--muted); font-size: 13px; }
.card-value { font-size: 28px; font-weight: 650; line-height: 1.25;
              font-variant-numeric: tabular-nums; }
.card-detail { color: var(--muted); font-size: 13px; }
.mono, .meta { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; }
.card-detail.mono { font-size: 11px; margin-top: 4px; overflow-wrap: anywhere; }
.vs-baseline, .changes { font-size: 13px; margin-top: 2px; }
.vs-baseline.up b { color: var(--ok); } .vs-baseline.down b { color: var(--bad); }
.changes { color: var(--muted); }
.run-mix { background: #fff; border: 1px solid var(--line); border-radius: 8px;
           padding: 12px 14px; margin: 0 0 16px; }
svg.mix { display: block; width: 100%; height: 14px; border-radius: 3px; overflow: hidden; }
.run-mix svg.mix { height: 22px; }
.legend { list-style: none; display: flex; flex-wrap: wrap; gap: 4px 18px; padding: 0;
          margin: 8px 0 0; font-size: 13px; }
.swatch { display: inline-block; width: 11px; height: 11px; border-radius: 2px;
          margin-right: 6px; vertical-align: -1px; }
.muted { color: var(--muted); }
.table-wrap { overflow-x: auto; background: #fff; border: 1px solid var(--line);
              border-radius: 8px; }
table { border-collapse: collapse; width: 100%; font-size: 13px; }
th, td { padding: 6px 10px; text-align: left; border-bottom: 1px solid #eaeef2;
         vertical-align: middle; }
thead th { color: var(--muted); font-weight: 600; white-space: nowrap; background: #fff; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
td.zero { color: #afb8c1; }
th.label-col { vertical-align: bottom; padding: 6px 4px; width: 1%; }
th.label-col span { writing-mode: vertical-rl; transform: rotate(180deg); white-space: nowrap;
                    font-weight: 500; }
th.label-col .swatch { margin: 0 0 5px; }
.cases-table td.num { padding: 6px 8px; }
thead th { vertical-align: bottom; }
td.bar { min-width: 140px; width: 16%; }
.cases-table th[scope="row"] a { color: inherit; text-decoration: none; display: block; }
.cases-table th[scope="row"] b { display: block; }
.cases-table th[scope="row"] span { color: var(--muted); font-weight: 400; font-size: 12px; }
.cases-table tbody tr:hover { background: #f6f8fa; }
tfoot th, tfoot td { font-weight: 650; border-top: 2px solid var(--line); border-bottom: 0; }
.pill { border-radius: 10px; padding: 1px 8px; font-size: 12px; font-weight: 600;
        background: #eaeef2; color: var(--muted); }
.pill.fail { background: #ffebe9; color: var(--bad); }
.pill.pass { background: #dafbe1; color: var(--ok); }
.pill.incomplete { background: #fff8c5; color: var(--warn); }
.calibration-body { display: flex; flex-wrap: wrap; gap: 16px; align-items: flex-start; }
.calibration figure { margin: 0; background: #fff; border: 1px solid var(--line);
                      border-radius: 8px; padding: 10px; }
svg.heatmap { display: block; max-width: 100%; height: auto; }
table.per-label { width: auto; background: #fff; border: 1px solid var(--line); }
.lead { margin: 0 0 12px; color: var(--muted); }
.claims-head { position: sticky; top: 0; z-index: 2; background: var(--soft);
               padding: 10px 0 8px; border-bottom: 1px solid var(--line); }
.filters { display: flex; flex-wrap: wrap; gap: 6px; align-items: center; }
.filters button { border: 1px solid var(--line); background: #fff; border-radius: 16px;
                  padding: 2px 12px; cursor: pointer; font: inherit; font-size: 13px; }
.filters button[aria-pressed="true"] { background: #1f2328; color: #fff; }
.filters .shown { margin-left: 8px; font-size: 13px; color: var(--muted); }
section.case { background: #fff; border: 1px solid var(--line); border-radius: 8px;
               margin: 16px 0; padding: 12px 16px; scroll-margin-top: 130px; }
.case-head { display: flex; gap: 16px; align-items: center; justify-content: space-between; }
.case-head h2 { margin: 0; font-size: 16px; }
.case-head svg.mix { width: 220px; flex: none; }
.question { color: var(--muted); margin: 2px 0 4px; }
article.claim { border-top: 1px solid var(--line); padding: 10px 0; }
article.claim.failed { border-left: 4px solid var(--bad); padding-left: 10px; }
.claim-head { display: flex; flex-wrap: wrap; gap: 6px; align-items: baseline; }
.badge { display: inline-block; border-radius: 10px; padding: 0 8px; font-size: 12px;
         font-weight: 600; color: #fff; background: var(--muted); }
.expect, .change { border-radius: 10px; padding: 0 8px; font-size: 12px; font-weight: 600;
                   border: 1px solid var(--line); }
.expect.agree { color: var(--ok); border-color: #aceebb; }
.expect.disagree { color: var(--bad); border-color: #ffcecb; background: #fff5f5; }
.change.regression { color: var(--bad); } .change.improvement { color: var(--ok); }
.change.new { color: var(--muted); }
.claim-text { font-weight: 600; }
.meta { color: var(--muted); font-size: 12px; overflow-wrap: anywhere; }
.failures { color: var(--bad); margin: 4px 0; padding-left: 18px; }
.citations { display: grid; grid-template-columns: repeat(auto-fit, minmax(420px, 1fr));
             gap: 8px 16px; margin: 6px 0 0 12px; }
.citation { font-size: 14px; min-width: 0; }
.citation a { margin-left: 6px; overflow-wrap: anywhere; }
.quote { margin: 6px 0 2px; padding: 4px 10px; border-left: 3px solid #d4a72c;
         background: #fffbe6; font-size: 13px; white-space: pre-wrap; }
details.passage summary { cursor: pointer; color: var(--muted); font-size: 12px; }
blockquote { margin: 6px 0; padding: 6px 10px; background: var(--soft); border-left: 3px solid
             var(--line); white-space: pre-wrap; font-size: 13px; }
mark { background: #fff8c5; padding: 0 1px; }
.answer { margin: 6px 0; padding: 6px 10px; background: var(--soft); white-space: pre-wrap;
          font-size: 14px; border-radius: 6px; }
.answer mark a { color: inherit; text-decoration: none; border-bottom: 2px solid #d4a72c; }
.answer mark.failed a { border-bottom-color: var(--bad); }
article.claim, .answer mark { scroll-margin-top: 130px; }
article.claim:target, .answer mark:target { outline: 2px solid #d4a72c; }
.meta a.back { margin-left: 8px; }
.hidden { display: none; }
"""
    + _BADGES
)

SCRIPT = """
(function () {
  var buttons = document.querySelectorAll('.filters button');
  function matches(claim, active) {
    return active.indexOf('all') >= 0 || active.indexOf(claim.dataset.label) >= 0 ||
      (active.indexOf('failing') >= 0 && claim.classList.contains('failed')) ||
      (active.indexOf('disagree') >= 0 && claim.classList.contains('disagrees'));
  }
  function apply() {
    var active = Array.prototype.filter.call(buttons, function (b) {
      return b.getAttribute('aria-pressed') === 'true';
    }).map(function (b) { return b.dataset.label; });
    document.querySelectorAll('article.claim').forEach(function (claim) {
      claim.classList.toggle('hidden', !matches(claim, active));
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
  // A case row of the overview opens its case: every claim shown, scrolled into view.
  // So does a claim of an answer: its claim is shown whatever the filter hides.
  var opening = '.cases-table a[href^="#"], .answer a[href^="#"]';
  document.querySelectorAll(opening).forEach(function (link) {
    link.addEventListener('click', function () {
      var all = document.querySelector('.filters button[data-label="all"]');
      if (all.getAttribute('aria-pressed') !== 'true') { all.click(); }
    });
  });
  apply();
})();
"""
