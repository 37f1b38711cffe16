"""The HTML report's detail: every case and claim with its label (``unchecked`` for one that
could not be checked: it has none), and each citation's evidence quote, shown on its own and
highlighted inside the passage it came from (folded until opened)."""

from __future__ import annotations

import html
import re
from urllib.parse import quote

from ..gating.result import CaseResult, ClaimResult
from ..labels import LABEL_RANK
from ..sanitize import strip_controls
from ..verdicts import CitationVerdict
from .charts import label_mix
from .info import SourceLinks

_CHANGES = {"regression": "regressed from {old}", "improvement": "improved from {old}"}


def highlight(passage: str, span: tuple[int, int] | None) -> str:
    """The passage as HTML with the quote in ``<mark>``: its ``span``, where the guard found
    it (:attr:`~pytest_citations.verdicts.Evidence.quote_span`), never searched for again."""
    if span is None:
        return html.escape(passage)
    start, end = span
    return (
        html.escape(passage[:start])
        + "<mark>"
        + html.escape(passage[start:end])
        + "</mark>"
        + html.escape(passage[end:])
    )


def anchor(case: CaseResult) -> str:
    """The id of a case's section (``case-`` and its key, spaces made dashes)."""
    return "case-" + re.sub(r"\s", "-", case.key)


def _passage_for(claim: ClaimResult, url: str) -> tuple[str, tuple[int, int] | None] | None:
    """The passage the guard found the quote in and where in it, else the best passage the
    judge saw (and no place)."""
    shown = claim.evidence_of(url)
    if shown is None or not shown.passages:
        return None
    number = shown.quote_passage
    if number is None:
        return shown.passages[0], None
    return shown.passages[number], shown.quote_span


def _rank(claim: ClaimResult) -> tuple[int, int, int]:
    contradicted = claim.label is not None and claim.label.value == "contradicted"
    label_rank = LABEL_RANK[claim.label] if claim.label is not None else 99
    return (0 if claim.failing else 1, 0 if contradicted else 1, -label_rank)


def _evidence(claim: ClaimResult, citation: CitationVerdict) -> str:
    """The quote in view, and the passage it came from folded beneath it."""
    quote = citation.evidence_quote
    found = _passage_for(claim, citation.url)
    shown = f'<p class="quote">{html.escape(quote)}</p>' if quote else ""
    if found is None:
        return shown
    passage, span = found
    summary = "passage the quote came from" if quote else "best passage the judge saw"
    body = highlight(passage, span if quote else None)
    return (
        f'{shown}<details class="passage"><summary>{summary}</summary>'
        f"<blockquote>{body}</blockquote></details>"
    )


def _citation_html(claim: ClaimResult, citation: CitationVerdict) -> str:
    url = strip_controls(citation.url)
    label = claim.shown_label(citation)
    meta = [f"confidence {citation.confidence:.2f}"]
    if citation.reason:
        meta.append(f"reason {citation.reason}")
    if citation.original_status is not None:
        meta.append(f"status {citation.original_status}")
    if citation.final_url and citation.final_url != citation.url:
        meta.append(f"final URL {strip_controls(citation.final_url)}")
    if citation.rid:
        meta.append(f"rid {citation.rid}")
    if citation.votes:
        split = "" if citation.agreed else " (the judge disagreed with itself)"
        meta.append(f"votes {', '.join(vote.value for vote in citation.votes)}{split}")
    meta += list(citation.warnings)
    return (
        f'<div class="citation"><span class="badge {html.escape(label)}">{html.escape(label)}'
        f'</span><a href="{html.escape(url)}" rel="noreferrer">{html.escape(url)}</a>'
        f'<div class="meta">{html.escape(" · ".join(meta))}</div>'
        f"{_evidence(claim, citation)}</div>"
    )


def _tags(claim: ClaimResult, calibrated: bool) -> tuple[str, bool]:
    """The human label beside the judge's (when calibration ran) and the change against
    the baseline; and whether judge and human disagree."""
    tags, disagrees = "", False
    if calibrated and claim.expect and claim.label is not None:
        disagrees = claim.differs_from_human
        sign = "≠ judge" if disagrees else "= judge"
        tags += (
            f'<span class="expect {"disagree" if disagrees else "agree"}" '
            f'title="the human label (expect:)">human: {html.escape(claim.expect)} {sign}</span>'
        )
    change = claim.baseline
    if change is not None and change.kind in (*_CHANGES, "new"):
        text = _CHANGES.get(change.kind, "new since the baseline")
        shown = text.format(old=change.old_label or "?")
        tags += f'<span class="change {html.escape(change.kind)}">{html.escape(shown)}</span>'
    return tags, disagrees


def to(target: str) -> str:
    """An ``href`` to the element whose id is ``target``, percent-encoded (a browser reads
    the fragment decoded), escaped for an attribute."""
    return html.escape("#" + quote(target, safe="/:"))


def answer_id(claim: ClaimResult) -> str:
    """The id of a claim's mark in its case's answer."""
    return "answer-" + claim.nodeid


def answer_html(case: CaseResult) -> str:
    """The case's answer with each claim's span marked, the mark linking to the claim's
    verdict; a span that overlaps an earlier one or lies beyond the answer (a report read
    back can say anything) is left unmarked."""
    answer = case.info.answer
    if not answer or not answer.strip():
        return ""
    placed = sorted(
        (claim for claim in case.claims if claim.answer_span is not None),
        key=lambda claim: claim.answer_span or (0, 0),
    )
    parts, done = [], 0
    for claim in placed:
        start, end = claim.answer_span or (0, 0)
        if start < done or end > len(answer):
            continue
        label = claim.label_shown
        state = " failed" if claim.failing else ""
        parts += [
            html.escape(answer[done:start]),
            f'<mark class="{html.escape(label)}{state}" id="{html.escape(answer_id(claim))}">'
            f'<a href="{to(claim.nodeid)}" title="{html.escape(claim.where.name)}: '
            f'{html.escape(label)}">{html.escape(answer[start:end])}</a></mark>',
        ]
        done = end
    parts.append(html.escape(answer[done:]))
    return f'<div class="answer" aria-label="the answer">{"".join(parts)}</div>'


def _place(claim: ClaimResult, links: SourceLinks) -> str:
    """The claim's node id linked to its case file's line, and a link back to its mark in
    the answer when it has one."""
    where = claim.where
    line = (
        f'<a class="source" href="{html.escape(links.of(where))}" rel="noreferrer">'
        f"{html.escape(claim.nodeid)} (line {where.line})</a>"
    )
    back = ""
    if claim.answer_span is not None:
        back = f'<a class="back" href="{to(answer_id(claim))}">in the answer ↑</a>'
    return f'<div class="meta">{line}{back}</div>'


def _claim_html(claim: ClaimResult, calibrated: bool, links: SourceLinks) -> str:
    label = claim.label_shown
    failures = [
        *(str(failure) for failure in claim.failures),
        *(f"could not be checked: {line}" for line in claim.unchecked),
        *(f"not checked: {problem}" for problem in claim.problems),
    ]
    tags, disagrees = _tags(claim, calibrated)
    classes = "claim" + (" failed" if failures else "") + (" disagrees" if disagrees else "")
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
        f'<article class="{classes}" data-label="{html.escape(label)}" '
        f'id="{html.escape(claim.nodeid)}"><div class="claim-head">'
        f'<span class="badge {html.escape(label)}">{html.escape(label)}</span>{tags}'
        f'<span class="claim-text">{html.escape(claim.text)}</span></div>'
        f"{_place(claim, links)}"
        f'{failure_list}{notes}<div class="citations">{citations}</div></article>'
    )


def case_html(case: CaseResult, calibrated: bool, links: SourceLinks) -> str:
    """One case's section: its question and its answer with its claims marked, precision,
    label mix and release decision, then its claims, failing and contradicted ones first,
    each linked to its line in its case file."""
    badge = ""
    if case.decision is not None:
        reasons = [str(failure) for failure in case.failures] or list(case.incomplete)
        why = f" ({reasons[0]})" if reasons else ""
        badge = (
            f'<div class="decision {html.escape(case.decision)}">release decision: '
            f"{html.escape(case.decision)}{html.escape(why)}</div>"
        )
    claims = sorted(case.claims, key=_rank)
    question = case.info.question
    return (
        f'<section class="case" id="{html.escape(anchor(case))}"><div class="case-head">'
        f"<h2>{html.escape(case.info.file)} :: {html.escape(case.info.case)}</h2>"
        f"{label_mix(case.label_counts, case.key)}</div>"
        + (f'<div class="question">{html.escape(question)}</div>' if question else "")
        + answer_html(case)
        + f'<div class="meta">citation precision {case.precision.fraction()}</div>{badge}'
        + "".join(_claim_html(claim, calibrated, links) for claim in claims)
        + "</section>"
    )
