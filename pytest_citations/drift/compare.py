"""A recorded page against the live one, on passages, not bytes. Pure: no I/O.

**The comparison rule.** Both pages go through the fetch rules and are split into passages
(:func:`~pytest_citations.retrieval.passages.split_passages`, R1); a passage is a run of paragraphs
(and of the pieces R1 cuts a long paragraph into), so the unit compared is that paragraph,
with its whitespace collapsed, typographic quotes straightened and fence-like text made
inert, exactly as the quote guard compares text (:func:`~pytest_citations.judges.guard.normalize`).
Paragraphs, not whole passages: a paragraph added near the top repacks every passage after
it, but leaves the paragraphs as they were.

- **The grounds** (:class:`Grounds`) are what the recorded verdict rests on: the
  paragraphs of the texts shown to the judge that hold the recorded quote (all of them when
  the quote spans several), or, for a verdict without a quote (``not_found``, a quote the
  guard rejected), every paragraph the judge was shown, since each one of them failed to
  settle the claim; where the judge was shown only some lines of a paragraph, the whole
  paragraph. They are compared **exactly**: every evidence paragraph must stand, verbatim,
  somewhere in the live page, and the quote must still stand in its text. Otherwise the
  citation is ``evidence_changed`` and is judged again. A changed number is a changed
  verdict. One exception keeps footers out of it: a shown paragraph that shares no word
  with the claim (a "last updated" line next to a ``not_found``) must stand with its digits
  masked; a change of its words still counts.
- **Everything else** is page furniture as far as the verdict goes, and is compared with each
  run of digits masked (``2025-01-03``, ``1,234``, ``12:30`` all read ``0``): a new date in
  the footer, a view counter or a "3 comments" line is not drift; a changed sentence is
  (``edited``: the page changed, the verdict stands, no judge call).

Known limits: the ranking is not redone, so a page whose evidence is intact but whose new
passages would now outrank it for the judge counts as ``edited``; and evidence only a joint
check (004, C2) used is compared per citation.

Before passages, the fetch rules' own findings decide, in this order: a final URL that is
now a PDF (``now_pdf``), a page that is now unreachable (404/410, soft 404, a crawl that
fails or is walled off: ``gone``), a final URL whose host or path changed, a homepage
redirect included (``moved``; a new scheme, query or trailing slash is not a move), a page
that now needs JavaScript (``now_needs_js``). Such a citation gets a new verdict from the
fetch rules when the live page is not one to judge (no judge call). When its page still is
and its evidence changed, it is judged again and its status is ``evidence_changed``, the
rule's finding kept beside it (``also``, and first in the detail): a nightly run failing on
``evidence_changed`` must see a page that shrank below the thin-page size because its text
changed. A page that moved with its evidence intact keeps its verdict and its ``moved``.
``unchanged`` and ``edited`` citations keep theirs.
"""

from __future__ import annotations

import difflib
import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass
from urllib.parse import urlsplit

from ..fetchers import FetchResult
from ..fetchers.urls import is_pdf
from ..judges.guard import content_words, normalize
from ..labels import Label, Reason, counted
from ..retrieval.passages import split_passages
from ..verdicts import CitationVerdict
from .statuses import DriftStatus

_BLANK_LINE = re.compile(r"\n\s*\n")
#: A run of digits with its separators: a date, a time, a counter, an amount.
_DIGITS = re.compile(r"\d+(?:[.,:/-]\d+)*")
_WORD = re.compile(r"\w+")


def paragraphs(passages: Sequence[str]) -> list[str]:
    """The paragraphs of passages (R1's pieces of long ones included), each normalised as
    the guard compares text; blank ones dropped."""
    found = []
    for passage in passages:
        for block in _BLANK_LINE.split(passage):
            text = normalize(block)
            if text:
                found.append(text)
    return found


@functools.lru_cache(maxsize=256)
def page_paragraphs(markdown: str) -> tuple[str, ...]:
    """The paragraphs of a page, through its passages (R1); a page cited by many claims is
    split once."""
    return tuple(paragraphs(split_passages(markdown)))


def masked(text: str) -> str:
    """``text`` with each run of digits read as ``0`` (dates, counters, amounts)."""
    return _DIGITS.sub("0", text)


@functools.lru_cache(maxsize=4096)
def _words(text: str) -> frozenset[str]:
    """The words of ``text`` that can carry evidence, digits aside."""
    return frozenset(
        word
        for word in _WORD.findall(text.casefold())
        if not any(character.isdigit() for character in word) and content_words(word) > 0
    )


@dataclass(frozen=True)
class Grounds:
    """What a verdict rests on: paragraphs that must stand verbatim, and shown paragraphs
    that share no word with the claim, which must stand with their digits masked."""

    exact: tuple[str, ...]
    loose: tuple[str, ...] = ()


def evidence_of(shown: Sequence[str], quote: str | None, claim: str = "") -> Grounds:
    """The evidence of a verdict: the paragraphs of the shown passages that its quote runs
    through; for a verdict without a quote (or whose quote is not in them), every shown
    paragraph, those sharing no word with ``claim`` loosely (see the module docstring)."""
    needle = normalize(quote or "")
    if needle:
        for passage in shown:
            held = paragraphs([passage])
            start = " ".join(held).find(needle)
            if start < 0:
                continue
            end, offset, touched = start + len(needle), 0, []
            for paragraph in held:
                if offset < end and start < offset + len(paragraph):
                    touched.append(paragraph)
                offset += len(paragraph) + 1
            return Grounds(tuple(touched))
    every = list(dict.fromkeys(paragraphs(shown)))
    words = _words(claim)
    return Grounds(
        tuple(p for p in every if words & _words(p)),
        tuple(p for p in every if not words & _words(p)),
    )


@dataclass(frozen=True)
class PageChange:
    """How a page's text changed, as far as one verdict goes."""

    #: An evidence paragraph is gone or different, or the quote no longer stands.
    evidence_changed: bool
    #: Something changed, digits outside the evidence aside.
    edited: bool
    #: The text differs, but only in digits outside the evidence.
    digits_only: bool
    missing: tuple[str, ...] = ()
    quote_gone: bool = False
    diff: tuple[str, ...] = ()


def paragraph_diff(
    old: Sequence[str], new: Sequence[str], keep_digits: frozenset[str] = frozenset()
) -> tuple[tuple[str, ...], bool]:
    """``- old`` / ``+ new`` lines for the paragraphs that changed, compared with digits
    masked except in ``keep_digits`` (the evidence), and whether anything did."""
    old_keys = [p if p in keep_digits else masked(p) for p in old]
    new_keys = [p if p in keep_digits else masked(p) for p in new]
    matcher = difflib.SequenceMatcher(None, old_keys, new_keys, autojunk=False)
    lines: list[str] = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag != "equal":
            lines += [f"- {p}" for p in old[i1:i2]] + [f"+ {p}" for p in new[j1:j2]]
    return tuple(lines), old_keys != new_keys


def compare_pages(
    old_markdown: str, new_markdown: str, evidence: Grounds, quote: str | None
) -> PageChange:
    """Compare two pages on passages for a verdict resting on ``evidence`` (see
    :func:`evidence_of`) and ``quote`` (see the module docstring)."""
    old, new = page_paragraphs(old_markdown), page_paragraphs(new_markdown)
    present, loosely = set(new), {masked(p) for p in new}
    missing = tuple(p for p in evidence.exact if p not in present)
    missing += tuple(p for p in evidence.loose if masked(p) not in loosely)
    needle = normalize(quote or "")
    quote_gone = bool(needle) and needle not in " ".join(new)
    diff, edited = paragraph_diff(old, new, frozenset(evidence.exact))
    changed = bool(missing) or quote_gone
    return PageChange(
        evidence_changed=changed,
        edited=edited or changed,
        digits_only=not edited and not changed and old != new,
        missing=missing,
        quote_gone=quote_gone,
        diff=diff,
    )


@dataclass(frozen=True)
class PageComparison:
    """One citation's drift status, and whether it needs a new verdict."""

    status: DriftStatus
    #: A new verdict is needed: the live page is decided by a fetch rule that no longer
    #: gives the recorded finding, or its evidence changed (one judge call).
    recheck: bool
    evidence_changed: bool = False
    detail: str = ""
    diff: tuple[str, ...] = ()
    missing_evidence: tuple[str, ...] = ()
    #: Rule findings the evidence change took precedence over.
    also: tuple[DriftStatus, ...] = ()


def place(url: str) -> str:
    """Where a URL leads, for comparing final URLs: host in lower case and path, without
    the scheme (an upgrade to https is not a move), a trailing slash, the query (session and
    tracking parameters) or the fragment."""
    parts = urlsplit(url.strip())
    return parts.netloc.lower() + (parts.path.rstrip("/") or "/")


def _text_change(
    recorded: FetchResult,
    live: FetchResult,
    verdict: CitationVerdict,
    shown: Sequence[str],
    claim: str,
) -> PageChange | None:
    """The text comparison, when the live page is one to judge."""
    if not live.judgeable:
        return None
    if not recorded.judgeable:
        diff, _ = paragraph_diff(page_paragraphs(recorded.markdown), page_paragraphs(live.markdown))
        return PageChange(evidence_changed=True, edited=True, digits_only=False, diff=diff)
    if recorded.markdown == live.markdown:
        return PageChange(evidence_changed=False, edited=False, digits_only=False)
    recorded_paragraphs = page_paragraphs(recorded.markdown)
    evidence = (
        whole_paragraphs(evidence_of(shown, verdict.evidence_quote, claim), recorded_paragraphs)
        if shown
        else Grounds(recorded_paragraphs)
    )
    return compare_pages(recorded.markdown, live.markdown, evidence, verdict.evidence_quote)


def whole_paragraphs(evidence: Grounds, page: Sequence[str]) -> Grounds:
    """Grounds as paragraphs of the recorded ``page``: the judge may be shown lines cut out
    of a long paragraph, and a part of a paragraph stands for the paragraph that holds it
    (every one that does), so that the comparison stays paragraph by paragraph."""
    held = set(page)

    def whole(parts: Sequence[str]) -> list[str]:
        found: list[str] = []
        for part in parts:
            found += [part] if part in held else [p for p in page if part in p] or [part]
        return list(dict.fromkeys(found))

    exact = whole(evidence.exact)
    return Grounds(tuple(exact), tuple(p for p in whole(evidence.loose) if p not in exact))


def _finding(result: FetchResult) -> str:
    return f"{result.label} ({result.reason})" if result.reason else str(result.label)


def _rule_status(recorded: FetchResult, live: FetchResult) -> tuple[DriftStatus, str] | None:
    """The status the fetch rules decide (before any text is compared), or None."""
    old_final, new_final = recorded.final_url or recorded.url, live.final_url or live.url
    if is_pdf(new_final) and not is_pdf(old_final):
        return DriftStatus.NOW_PDF, f"the URL leads to a PDF now: {new_final}"
    if live.label is Label.UNREACHABLE:
        if recorded.label is Label.UNREACHABLE:
            same = recorded.reason == live.reason
            return DriftStatus.UNCHANGED, "" if same else f"still {_finding(live)}"
        return DriftStatus.GONE, f"now {_finding(live)}"
    if place(old_final) != place(new_final):
        home = " (the homepage)" if live.reason == Reason.REDIRECTED_TO_HOMEPAGE else ""
        return DriftStatus.MOVED, f"final URL {old_final} → {new_final}{home}"
    if live.javascript and not recorded.javascript:
        return DriftStatus.NOW_NEEDS_JS, "readable only with JavaScript now"
    if not live.judgeable:
        if (live.label, live.reason) == (recorded.label, recorded.reason):
            return DriftStatus.UNCHANGED, ""
        return DriftStatus.GONE, f"now {_finding(live)}"
    return None


def _text_status(change: PageChange, recorded: FetchResult) -> tuple[DriftStatus, str]:
    if not recorded.judgeable:
        return DriftStatus.EVIDENCE_CHANGED, f"readable again (was {_finding(recorded)})"
    if change.evidence_changed:
        what = []
        if change.missing:
            what.append(f"{counted(len(change.missing), 'evidence paragraph')} gone or changed")
        if change.quote_gone:
            what.append("the quote no longer stands in the page")
        return DriftStatus.EVIDENCE_CHANGED, "; ".join(what)
    if change.edited:
        changed = sum(1 for line in change.diff if line.startswith("+ "))
        return (
            DriftStatus.EDITED,
            f"{counted(changed, 'paragraph')} changed, none the verdict rests on",
        )
    return DriftStatus.UNCHANGED, "only digits changed" if change.digits_only else ""


#: Fetch-rule findings a page can meet while still being judged: when its evidence changed
#: too, ``evidence_changed`` is the status and the finding is kept (see :func:`classify`).
_JUDGED_FINDINGS = (DriftStatus.MOVED, DriftStatus.NOW_NEEDS_JS, DriftStatus.NOW_PDF)


def classify(
    recorded: FetchResult,
    live: FetchResult,
    verdict: CitationVerdict,
    shown: Sequence[str],
    claim: str = "",
) -> PageComparison:
    """The drift status of one citation: its recorded page and verdict (with the passages
    the judge was shown, and the claim) against the live page, both through the same fetch
    rules. A rule finding on a page that is still judged (``moved``, ``now_needs_js``,
    ``now_pdf``) never hides an evidence change: the status is then ``evidence_changed``,
    the finding stays in ``also`` and leads the detail."""
    change = _text_change(recorded, live, verdict, shown, claim)
    decided = _rule_status(recorded, live)
    evidence = change is not None and change.evidence_changed
    also: tuple[DriftStatus, ...] = ()
    if decided is None or (evidence and decided[0] in _JUDGED_FINDINGS):
        assert change is not None
        text_status, text_detail = _text_status(change, recorded)
        if decided is not None:
            also = (decided[0],)
            text_detail = "; ".join(part for part in (decided[1], text_detail) if part)
        decided = text_status, text_detail
    status, detail = decided
    if status in (DriftStatus.UNCHANGED, DriftStatus.EDITED):
        recheck = False
    else:
        recheck = not live.judgeable or evidence
    return PageComparison(
        status,
        recheck,
        evidence_changed=evidence,
        detail=detail,
        diff=change.diff if change is not None else (),
        missing_evidence=change.missing if change is not None else (),
        also=also,
    )
