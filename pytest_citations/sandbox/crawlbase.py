"""A real HTTP emulator of the Crawlbase Crawling API and Storage API.

Crawl: ``GET /?token=T&url=U&format=md&store=true[&md_readability=true][&javascript=true]``.
Storage: ``GET /storage?token=T&rid=RID``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal
from urllib.parse import quote

from ._server import HANG_SECONDS, EmulatorBase, Request, Response

TokenKind = Literal["normal", "js", "invalid"]

NOT_FOUND_MARKDOWN = "# Not Found\n"
REDACTED = "<redacted>"


@dataclass
class FakePage:
    """How the emulator answers for one target URL.

    The four markdown variants: ``markdown`` (normal request, md_readability=true),
    ``markdown_full`` (normal, no readability; None -> ``markdown``), ``markdown_js``
    (JavaScript, readability; None -> the normal value), ``markdown_js_full`` (JavaScript,
    no readability; None -> ``markdown_js`` if set, else the normal full value).
    """

    markdown: str = ""
    markdown_full: str | None = None
    markdown_js: str | None = None
    markdown_js_full: str | None = None
    original_status: int = 200
    final_url: str | None = None
    final_url_js: str | None = None
    cb_status: int = 200
    cb_status_js: int = 200
    legacy_status_header: bool = False
    fail_normal: bool = False
    fail_js: bool = False
    errors: list[int] = field(default_factory=list)
    retry_after: float = 0
    latency: float | None = None
    hang: bool = False
    #: Seconds between two-byte chunks of the answer (a peer that never quite times out).
    trickle: float = 0.0

    def body_for(self, javascript: bool, readability: bool) -> str:
        """The markdown answered for one request variant."""
        full = self.markdown_full if self.markdown_full is not None else self.markdown
        if not javascript:
            return self.markdown if readability else full
        if readability:
            return self.markdown_js if self.markdown_js is not None else self.markdown
        if self.markdown_js_full is not None:
            return self.markdown_js_full
        return self.markdown_js if self.markdown_js is not None else full


@dataclass
class CrawlRecord:
    """One crawl request as the emulator saw it (the token value is redacted in ``params``)."""

    target_url: str
    javascript: bool
    readability: bool
    store: bool
    token_kind: TokenKind
    status: int
    params: dict[str, str]
    credits: float = 0.0
    rid: str | None = None


@dataclass
class _Stored:
    markdown: str
    url: str
    original_status: int
    pc_status: int


def rid_for(url: str, javascript: bool = False, readability: bool = True) -> str:
    """The deterministic storage rid of one crawl variant (sha1 of url + variant, 16 hex)."""
    variant = f"{'js' if javascript else 'normal'}:{'readable' if readability else 'full'}"
    return hashlib.sha1(f"{url}\n{variant}".encode()).hexdigest()[:16]


def _format_seconds(seconds: float) -> str:
    """Integer seconds when integral (the usual case); a decimal otherwise, for fast tests."""
    return str(int(seconds)) if float(seconds).is_integer() else f"{seconds:g}"


class CrawlbaseEmulator(EmulatorBase):
    """Crawlbase Crawling + Storage API on 127.0.0.1 (use as a context manager).

    Register pages with ``cb.pages[url] = FakePage(...)`` or ``cb.add(url, **fields)``.
    Unregistered URLs answer a successful crawl of a dead link (original_status 404).
    """

    def __init__(
        self,
        token: str = "normal-token",
        js_token: str = "js-token",
        latency: float = 0.0,
        default_page: Callable[[str], FakePage | None] | None = None,
    ) -> None:
        super().__init__()
        self.token = token
        self.js_token = js_token
        self.latency = latency
        self.default_page = default_page
        self.pages: dict[str, FakePage] = {}
        self._records: list[CrawlRecord] = []
        self._storage: dict[str, _Stored] = {}
        self._storage_count = 0

    # -- configuration ---------------------------------------------------------------------

    def add(self, url: str, **fields: Any) -> FakePage:
        """Register (or replace) the page for ``url``; returns it."""
        page = FakePage(**fields)
        with self._lock:
            self.pages[url] = page
        return page

    def edit(self, url: str, old: str, new: str) -> FakePage:
        """Edit a registered page the way a site does: ``old`` becomes ``new`` in every
        markdown variant that holds it (at least one must). Returns the page."""
        with self._lock:
            page = self.pages[url]
            variants = ("markdown", "markdown_full", "markdown_js", "markdown_js_full")
            held = [name for name in variants if old in (getattr(page, name) or "")]
            if not held:
                raise ValueError(f"{old!r} is not on {url}")
            for name in held:
                setattr(page, name, getattr(page, name).replace(old, new))
        return page

    # -- accounting ------------------------------------------------------------------------

    @property
    def requests(self) -> list[CrawlRecord]:
        """Every crawl request so far, in arrival order of completion (a copy)."""
        with self._lock:
            return list(self._records)

    @property
    def crawl_count(self) -> int:
        """Number of crawl requests (any outcome, including 401/429/5xx/520)."""
        with self._lock:
            return len(self._records)

    @property
    def storage_count(self) -> int:
        """Number of Storage API requests (free)."""
        with self._lock:
            return self._storage_count

    @property
    def credits(self) -> float:
        """Billed credits: normal success 1, JavaScript success 2, +0.5 when stored; nothing
        for a crawl whose ``cb_status`` is not 200 (a 207 empty page, say)."""
        with self._lock:
            return sum(record.credits for record in self._records)

    def count(self, target_url: str) -> int:
        """Number of crawl requests for one target URL."""
        with self._lock:
            return sum(1 for record in self._records if record.target_url == target_url)

    def reset_counters(self) -> None:
        """Forget requests, storage reads, credits and max_in_flight (stored bodies stay)."""
        with self._lock:
            self._records.clear()
            self._storage_count = 0
            self._reset_flight()

    def stored(self, rid: str) -> str | None:
        """The stored markdown for ``rid``, or None."""
        with self._lock:
            entry = self._storage.get(rid)
            return None if entry is None else entry.markdown

    @staticmethod
    def rid_for(url: str, javascript: bool = False, readability: bool = True) -> str:
        """The deterministic rid the emulator assigns to one crawl variant."""
        return rid_for(url, javascript, readability)

    # -- serving ---------------------------------------------------------------------------

    def handle(self, request: Request) -> Response:
        """Route one request."""
        if request.method != "GET":
            return Response.json(405, {"error": "method not allowed"})
        if request.path == "/":
            self._enter_flight()
            try:
                return self._crawl(request)
            finally:
                self._leave_flight()
        if request.path.rstrip("/") == "/storage":
            return self._storage_read(request)
        return Response.json(404, {"error": "not found"})

    def _token_kind(self, token: str | None) -> TokenKind:
        if token is not None and token == self.token:
            return "normal"
        if token is not None and token == self.js_token:
            return "js"
        return "invalid"

    def _storage_read(self, request: Request) -> Response:
        with self._lock:
            self._storage_count += 1
            if self._token_kind(request.query.get("token")) == "invalid":
                return Response.json(401, {"error": "invalid token"})
            entry = self._storage.get(request.query.get("rid", ""))
        if entry is None:
            return Response.json(404, {"error": "not found"})
        headers = [
            ("rid", request.query["rid"]),
            ("url", entry.url),
            ("original_status", str(entry.original_status)),
            ("pc_status", str(entry.pc_status)),
        ]
        return Response.text(200, entry.markdown, headers)

    def _record(self, record: CrawlRecord) -> None:
        with self._lock:
            self._records.append(record)

    def _page_for(self, url: str) -> FakePage | None:
        with self._lock:
            page = self.pages.get(url)
            factory = self.default_page
        if page is not None or factory is None:
            return page
        page = factory(url)
        if page is not None:
            with self._lock:
                page = self.pages.setdefault(url, page)
        return page

    def _crawl(self, request: Request) -> Response:
        query = request.query
        token = query.get("token")
        kind = self._token_kind(token)
        params = {key: (REDACTED if key == "token" else value) for key, value in query.items()}
        url = query.get("url", "")
        javascript = kind == "js" or query.get("javascript", "").lower() == "true"
        readability = query.get("md_readability", "").lower() == "true"
        store = query.get("store", "").lower() == "true"

        def record(status: int, credits: float = 0.0, rid: str | None = None) -> None:
            self._record(
                CrawlRecord(url, javascript, readability, store, kind, status, params, credits, rid)
            )

        if kind == "invalid":
            record(401)
            return Response.json(401, {"error": "invalid token"})
        if not url:
            record(400)
            return Response.json(400, {"error": "url parameter is required"})

        page = self._page_for(url)
        latency = self.latency if page is None or page.latency is None else page.latency
        self._sleep(HANG_SECONDS if page is not None and page.hang else latency)

        if page is not None:
            with self._lock:
                error = page.errors.pop(0) if page.errors else None
            if error is not None:
                record(error)
                return self._error(error, page.retry_after)
            if page.fail_js if javascript else page.fail_normal:
                record(520)
                return Response(520)
        else:
            page = FakePage(markdown=NOT_FOUND_MARKDOWN, original_status=404)

        answer, credits, rid = self._serve(page, url, token, javascript, readability, store)
        record(200, credits, rid)
        return answer

    def _serve(
        self,
        page: FakePage,
        url: str,
        token: str | None,
        javascript: bool,
        readability: bool,
        store: bool,
    ) -> tuple[Response, float, str | None]:
        """The page's answer, the credits it costs and its storage rid (when stored)."""
        body = page.body_for(javascript, readability)
        if javascript:
            final_url = page.final_url_js or url
            status = page.cb_status_js
        else:
            final_url = page.final_url or url
            status = page.cb_status
        headers = [("original_status", str(page.original_status))]
        if not page.legacy_status_header:
            headers.append(("cb_status", str(status)))
        headers += [("pc_status", str(status)), ("url", final_url)]
        credits = 2.0 if javascript else 1.0
        rid = None
        if store:
            rid = rid_for(url, javascript, readability)
            with self._lock:
                self._storage[rid] = _Stored(body, final_url, page.original_status, status)
            assert token is not None
            headers.append(
                ("storage_url", f"{self.url}storage?token={quote(token, safe='')}&rid={rid}")
            )
            credits += 0.5
        if status != 200:
            credits = 0.0  # Crawlbase charges a crawl only when its pc_status is 200
        answer = Response.text(200, body, headers)
        answer.trickle = page.trickle
        return answer, credits, rid

    @staticmethod
    def _error(status: int, retry_after: float) -> Response:
        if status == 520:
            return Response(520)
        if status == 429:
            return Response.text(
                429, "Too Many Requests\n", [("Retry-After", _format_seconds(retry_after))]
            )
        reason = "Server Error" if status >= 500 else "Error"
        return Response.text(status, f"{status} {reason}\n")
