"""What the engine must do, written independently of it: the requests the fetch rules of 000
(F1-F7) make for each page, their credits, which claim-URL pairs reach the judge, and which
texts get embedded.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import urlsplit

from pytest_citations import Reason
from pytest_citations.retrieval.passages import split_passages

from .scenario import PageSpec, Scenario

#: Reasons the fetch rules give without asking the judge (F3-F7, faults, bad input), plus
#: "no passages" (nothing to judge). Any other citation reached the judge.
NOT_JUDGED_REASONS = frozenset(
    {
        Reason.HTTP_404,
        Reason.HTTP_410,
        Reason.REDIRECTED_TO_HOMEPAGE,
        Reason.SOFT_404,
        Reason.PDF_UNSUPPORTED,
        Reason.CRAWL_FAILED,
        Reason.EMPTY_PAGE,
        Reason.INVALID_URL,
        Reason.FETCH_ERROR,
        Reason.NO_PASSAGES,
        # Offline replay only: a request missing from a cassette is never sent.
        getattr(Reason, "REQUEST_REFUSED", "request_refused"),
    }
)

THIN_CHARS = 200  # F2
SOFT_404_MAX_CHARS = 800  # F5
_SOFT_404_HINT = re.compile(r"(?i)\b404\b|not\s+found|does\s*n[o']t\s+exist|does\s+not\s+exist")


def _visible(text: str) -> int:
    return len("".join(text.split()))


@dataclass(frozen=True)
class Expectation:
    """One page's fetch sequence as the rules predict it."""

    crawls: tuple[tuple[bool, bool], ...]  # (javascript, readability) of each request, in order
    credits: float
    judged_markdown: str | None  # the markdown that goes to retrieval, or None (rule verdict)


def expect(spec: PageSpec) -> Expectation:
    """The requests one fetch sequence makes for a page, its credits, and what gets judged.

    PDF: no request. Each attempt (normal, then JavaScript) crawls with readability; a failed
    crawl (520) escalates at once, unbilled. A 404/410 origin, a landing on "/" or a soft 404
    ends the sequence unjudged. Thin text (< 200 visible chars) is retried without readability
    and, still thin, escalates to JavaScript. A successful crawl costs 1 (JavaScript 2) + 0.5 for
    storage.
    """
    if spec.page is None or urlsplit(spec.url).path.lower().endswith(".pdf"):
        return Expectation((), 0.0, None)
    page = spec.page
    crawls: list[tuple[bool, bool]] = []
    credits = 0.0
    best = ""

    def terminal(body: str, javascript: bool) -> bool:
        final = (page.final_url_js if javascript else page.final_url) or spec.url
        path = urlsplit(spec.url).path.rstrip("/") or "/"
        homepage = path != "/" and (urlsplit(final).path.rstrip("/") or "/") == "/"
        soft = _visible(body) < SOFT_404_MAX_CHARS and bool(_SOFT_404_HINT.search(body))
        return page.original_status in (404, 410) or homepage or soft

    for javascript in (False, True):
        failed = page.fail_js if javascript else page.fail_normal
        crawls.append((javascript, True))
        if failed:
            continue
        credits += (2.0 if javascript else 1.0) + 0.5
        body = page.body_for(javascript, True)
        status = page.cb_status_js if javascript else page.cb_status
        if terminal(body, javascript):
            return Expectation(tuple(crawls), credits, None)
        # A 207 (empty origin page) skips the readability retry on the normal path.
        if _visible(body) < THIN_CHARS and (javascript or status != 207):
            crawls.append((javascript, False))
            credits += (2.0 if javascript else 1.0) + 0.5
            full = page.body_for(javascript, False)
            if terminal(full, javascript):
                return Expectation(tuple(crawls), credits, None)
            if _visible(full) >= _visible(body):
                body = full
        best = max(best, body, key=_visible)
        if _visible(body) >= THIN_CHARS and status == 200:
            return Expectation(tuple(crawls), credits, body)
    return Expectation(tuple(crawls), credits, best if _visible(best) > 0 else None)


@dataclass
class Predicted:
    """The whole scenario's expectations: per URL, in total, and what gets judged."""

    per_url: dict[str, Expectation]
    crawls: int
    credits: float
    judged_pairs: set[tuple[str, str]]
    embed_groups: list[list[str]]  # claims first, then each judged page's new passages

    @property
    def embed_texts(self) -> int:
        return sum(len(group) for group in self.embed_groups)


def predict(scenario: Scenario) -> Predicted:
    """Every page's expectation, the claim-URL pairs that reach the judge, and the texts the
    engine embeds (claims first, then each judged page's passages not seen before)."""
    per_url = {url: expect(spec) for url, spec in scenario.pages.items()}
    judged_pairs = {
        (request.claim, url)
        for request in scenario.requests
        for url in request.urls
        if per_url[url].judged_markdown is not None
    }
    seen: set[str] = set()
    groups: list[list[str]] = []
    claims = list(dict.fromkeys(request.claim for request in scenario.requests))
    groups.append(claims)
    seen.update(claims)
    for expectation in per_url.values():
        if expectation.judged_markdown is None:
            continue
        fresh = [
            p for p in dict.fromkeys(split_passages(expectation.judged_markdown)) if p not in seen
        ]
        seen.update(fresh)
        groups.append(fresh)
    return Predicted(
        per_url,
        sum(len(e.crawls) for e in per_url.values()),
        sum(e.credits for e in per_url.values()),
        judged_pairs,
        groups,
    )
