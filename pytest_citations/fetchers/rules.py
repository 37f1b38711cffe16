"""The fetch rules of 000 (F1–F8): from a cited URL to markdown worth judging, or to a
verdict that needs no judge. The same for every crawler.

One URL is interpreted in this order: invalid or over-long URL, PDF (no request) → request
rejected → crawl failure → origin 404/410 → a crawl or origin status that is not a page
(escalate to JavaScript once, then ``unreachable``) → homepage redirect → soft 404 → thin
text (readability retry, then JavaScript) → judge. A page longer than the size cap is cut,
and the verdict says so. A new rule is one function here plus its reason in
:mod:`pytest_citations.labels`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from urllib.parse import urlsplit

from ..labels import Label, Reason
from ..network.config import Limit
from .base import Crawler, FetchResult, PageResponse
from .urls import is_pdf, is_redirector, request_url

#: Fewer non-whitespace characters than this after readability means a thin page (F2).
THIN_CHARS = 200
#: A soft-404 template is shorter than this many non-whitespace characters (F5).
SOFT_404_MAX_CHARS = 800
#: The crawler's status for "the origin answered 200 with an empty page" (F6).
EMPTY_PAGE_STATUS = 207
#: Characters of a page kept for retrieval unless the settings say otherwise.
DEFAULT_MAX_PAGE_CHARS = 500_000
#: The size cap as a setting (``--citations-max-page-chars``, ``CITATIONS_MAX_PAGE_CHARS``).
PAGE_LIMIT = Limit(
    "max-page-chars",
    "max_page_chars",
    "CITATIONS_MAX_PAGE_CHARS",
    True,
    1000,
    False,
    "characters of a page kept for retrieval; the rest is cut (default 500000)",
)
#: Origin statuses that are a page to read (2xx) or a finding of their own (404, 410).
_PAGE_STATUSES = frozenset({*range(200, 300), 404, 410})

#: What a page is called in a "page does not exist" template; a phrase like "has been moved"
#: or "not found" counts only when it is about the page, not about anything (F5).
_SUBJECT = r"(?:page|article|post|content|document|resource|url|link|file)"
_SOFT_404_PATTERNS = re.compile(
    rf"""(?imx)
    \b(?:error|http|status)\s*(?:code\s*)?[:#-]?\s*404\b  # Error 404, HTTP 404
    | \b404\s*[:|-]?\s*(?:error|not\s+found|page)\b  # 404 Not Found, 404 page
    | ^[^\w\n]*(?:404|not\s+found)[^\w\n]*$  # a line that says only 404 or Not Found
    | \b{_SUBJECT}\b[^.\n]{{0,40}}?\bnot\s+(?:be\s+)?found  # the page ... could not be found
    | \b{_SUBJECT}\b[^.\n]{{0,40}}?
      \b(?:does\s*n[o']t|did\s*n[o']t|is\s*n[o']t|is\s+not|may\s+not|might\s+not|no\s+longer)
      \s*(?:seem\s+to\s+)?(?:exists?|be\s+available|available|be\s+found)
    | \b{_SUBJECT}\b[^.\n]{{0,40}}?\b(?:can\s*n[o']t|can't|cannot|could\s*n[o']t|could\s+not)
      \s+be\s+found
    | \b(?:can't|cannot|can\s+not|couldn't|could\s+not|unable\s+to)\s+find\s+
      (?:the|that|this|your|any)\s+{_SUBJECT}
    | \b{_SUBJECT}\b[^.\n]{{0,40}}?\b(?:has|have|was|were)\s+(?:been\s+)?
      (?:removed|deleted|moved|taken\s+down)
    | seite\s+(?:existiert\s+nicht|nicht\s+gefunden|wurde\s+nicht\s+gefunden
      |konnte\s+nicht\s+gefunden)
    | nothing\s+(?:was\s+)?found\s+(?:here|at\s+this)
    """
)
#: Typographic apostrophes, straightened before matching ("can’t" is "can't").
_APOSTROPHES = str.maketrans({"\u2019": "'", "\u2018": "'", "\u02bc": "'"})


def visible_chars(text: str) -> int:
    """Non-whitespace characters: the measure of F2 and F5."""
    return len("".join(text.split()))


def _normalized_path(url: str) -> str:
    path = urlsplit(url).path or "/"
    if len(path) > 1 and path.endswith("/"):
        path = path[:-1]
    return path or "/"


def is_homepage_redirect(requested: str, final: str | None) -> bool:
    """A deep link that landed on ``/`` (F4). The ``url`` header holds the final URL. A
    redirector's link (a grounding redirect) is no deep link: its path is a token, and the
    page it leads to is the one cited, a homepage included."""
    if not final or is_redirector(requested):
        return False
    return _normalized_path(requested) != "/" and _normalized_path(final) == "/"


def is_soft_404(markdown: str) -> bool:
    """A short 'page does not exist' template (F5); a long article mentioning 404 is not."""
    return visible_chars(markdown) < SOFT_404_MAX_CHARS and bool(
        _SOFT_404_PATTERNS.search(markdown.translate(_APOSTROPHES))
    )


def blocked_reason(response: PageResponse) -> str | None:
    """The reason when a crawl answered with something that is not the page: the crawler's
    own status (Crawlbase's ``pc_status``/``cb_status``) is not 2xx (a captcha or challenge
    page is marked 503), or the origin answered neither a page nor 404/410 (403, 429, 5xx).
    Such text must never reach the judge."""
    if response.crawl_status is not None and not 200 <= response.crawl_status < 300:
        return Reason.crawl_status(response.crawl_status)
    status = response.original_status
    if status is not None and status not in _PAGE_STATUSES:
        return Reason.http(status)
    return None


def _verdict_result(url: str, response: PageResponse, label: Label, reason: str) -> FetchResult:
    return FetchResult(
        url=url,
        final_url=response.final_url or url,
        original_status=response.original_status,
        rid=response.rid,
        javascript=response.javascript,
        label=label,
        reason=reason,
    )


def _terminal(url: str, response: PageResponse) -> FetchResult | None:
    """Origin status, homepage redirect and soft 404: verdicts that skip the judge."""
    if response.original_status in (404, 410):
        reason = Reason.HTTP_404 if response.original_status == 404 else Reason.HTTP_410
        return _verdict_result(url, response, Label.UNREACHABLE, reason)
    blocked = blocked_reason(response)
    if blocked is not None:
        return _verdict_result(url, response, Label.UNREACHABLE, blocked)
    if is_homepage_redirect(url, response.final_url):
        return _verdict_result(url, response, Label.NOT_FOUND, Reason.REDIRECTED_TO_HOMEPAGE)
    if is_soft_404(response.markdown):
        return _verdict_result(url, response, Label.UNREACHABLE, Reason.SOFT_404)
    return None


@dataclass(frozen=True)
class _Attempt:
    """The outcome of one attempt (normal or JavaScript) at a URL."""

    result: FetchResult | None
    response: PageResponse
    escalate: bool

    @property
    def blocked(self) -> bool:
        """The crawl answered something that is not the page (see :func:`blocked_reason`)."""
        return self.result is not None and blocked_reason(self.response) is not None


def _rejected(url: str, response: PageResponse) -> _Attempt:
    """The crawler will not crawl this URL (Crawlbase's 422); the same request on the other
    token would be rejected too, so nothing is retried."""
    result = FetchResult(url=url, label=Label.NOT_FOUND, reason=Reason.INVALID_URL)
    return _Attempt(result, response, escalate=False)


async def _attempt(crawler: Crawler, url: str, target: str, javascript: bool) -> _Attempt:
    first = await crawler.crawl(target, readability=True, javascript=javascript)
    if first.rejected:
        return _rejected(url, first)
    if first.failed:
        return _Attempt(None, first, escalate=True)
    terminal = _terminal(url, first)
    if terminal is not None:
        # A challenge page or a refusing origin may let a browser through (F6): escalate once.
        return _Attempt(terminal, first, escalate=blocked_reason(first) is not None)
    response = first
    # A 207 means the origin sent an empty page: only a browser can help, so the readability
    # retry is skipped on the normal path (F6). On the rendered path F2 still applies.
    empty_origin = first.crawl_status == EMPTY_PAGE_STATUS and not javascript
    if visible_chars(first.markdown) < THIN_CHARS and not empty_origin:
        retry = await crawler.crawl(target, readability=False, javascript=javascript)
        if retry.rejected:
            return _rejected(url, retry)
        if not retry.failed:
            terminal = _terminal(url, retry)
            if terminal is not None:
                return _Attempt(terminal, retry, escalate=blocked_reason(retry) is not None)
            if visible_chars(retry.markdown) >= visible_chars(first.markdown):
                response = retry
    thin = visible_chars(response.markdown) < THIN_CHARS
    empty_signal = response.crawl_status == EMPTY_PAGE_STATUS
    page = FetchResult(
        url=url,
        markdown=response.markdown,
        final_url=response.final_url or url,
        original_status=response.original_status,
        rid=response.rid,
        javascript=javascript,
    )
    return _Attempt(page, response, escalate=thin or empty_signal)


def cap_page(page: FetchResult, max_chars: int) -> FetchResult:
    """``page`` with its markdown cut at the last whitespace before ``max_chars``, and a
    warning saying how much was kept; unchanged when it is short enough."""
    size = len(page.markdown)
    if size <= max_chars:
        return page
    cut = page.markdown.rfind("\n", 0, max_chars)
    if cut < max_chars // 2:
        cut = max(page.markdown.rfind(" ", 0, max_chars), max_chars // 2)
    kept = page.markdown[:cut]
    note = f"page_truncated: kept {len(kept)} of {size} characters"
    return replace(page, markdown=kept, warnings=(*page.warnings, note))


async def fetch_citation(
    crawler: Crawler, url: str, *, max_chars: int = DEFAULT_MAX_PAGE_CHARS
) -> FetchResult:
    """Apply every fetch rule to one cited URL.

    Starts on the normal token and escalates to JavaScript only on a failed crawl (HTTP
    520), ``cb_status`` 207, text still thin after the readability retry (F6), or an answer
    that is not the page (a challenge, a refusing origin); the rendered page goes through
    the same interpretation. After the JavaScript attempt a crawl that still fails is
    ``unreachable``/``crawl_failed``, an answer that is still not the page is
    ``unreachable`` with a reason naming its status, a page still empty is
    ``unreachable``/``empty_page``, and thin but non-empty text is judged.
    """
    target = request_url(url)
    if target is None:
        return FetchResult(url=url, label=Label.NOT_FOUND, reason=Reason.INVALID_URL)
    if is_pdf(target):
        return FetchResult(url=url, label=Label.NOT_FOUND, reason=Reason.PDF_UNSUPPORTED)

    normal = await _attempt(crawler, url, target, javascript=False)
    if not normal.escalate and normal.result is not None:
        return cap_page(normal.result, max_chars)
    rendered = await _attempt(crawler, url, target, javascript=True)
    if rendered.result is not None and (rendered.result.label or not rendered.escalate):
        return cap_page(rendered.result, max_chars)
    blocked = next((a.result for a in (rendered, normal) if a.blocked), None)
    if blocked is not None:
        return blocked
    # Still failed, thin or empty after JavaScript: judge the richest text there is.
    candidates = [attempt.result for attempt in (rendered, normal) if attempt.result is not None]
    best = max(candidates, key=lambda page: visible_chars(page.markdown), default=None)
    if best is not None and visible_chars(best.markdown) > 0:
        return cap_page(best, max_chars)
    original_status = next(
        (a.response.original_status for a in (rendered, normal) if a.response.original_status),
        None,
    )
    return FetchResult(
        url=url,
        final_url=best.final_url if best is not None else url,
        original_status=original_status,
        rid=best.rid if best is not None else None,
        javascript=True,
        label=Label.UNREACHABLE,
        reason=Reason.CRAWL_FAILED if rendered.result is None else Reason.EMPTY_PAGE,
    )
