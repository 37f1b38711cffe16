"""Before a recording run sends anything: what its case files' cassettes lack and what
recording it may cost, from the cassettes alone (no request is sent, no model runs).

Each cited (and retrieved) page goes through the fetch rules against its cassette, offline,
exactly as a replay reads it: a page the rules cannot read to the end from the recording is
not recorded; a recorded page that a rule decides (a 404, a homepage redirect, a PDF) needs
no judge. A claim–URL pair on a judged page is recorded when its cassette holds retrieval's
choice of passages for that claim against that page (a recording keeps one beside each
judge call it made); any other pair may take one judge call, a claim citing two or more
pages one more (the joint check, 004 C2), and a retrieved URL one (misattribution, C3).
That is an upper bound: which passages a call shows is known only once the page is ranked,
and two claims may send one identical call. A page not recorded costs one normal crawl with
storage when it answers its first crawl, and at most the readability retry and the
JavaScript attempt too (F2, F6, F8). A judge model or prompt that changed since the
recording (so that recorded calls no longer match) is beyond the plan: the budget still
holds.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import vcr

from ..errors import CitationsError
from ..fetchers import FetchResult, fetch_citation
from ..fetchers.urls import is_pdf, request_url
from ..network.limits import RequestLimit
from ..network.requester import Requester
from ..network.usage import CREDITS, SpendPlan, Usage
from ..pipeline.backends import Backends
from ..pipeline.claimwork import ClaimRequest
from ..pipeline.settings import Settings
from .client import Offline, recorded_client
from .files import UnreadableCassette
from .library import CassetteLibrary
from .session import CassetteSession, RecordMode

#: A page's credits when it answers its first crawl (a normal crawl, stored), and at most:
#: that, the readability retry, and both again on the JavaScript path (F2, F6, F8).
FIRST_CRAWL = CREDITS["normal"] + CREDITS["storage"]
MOST_CRAWLS = 2 * FIRST_CRAWL + 2 * (CREDITS["javascript"] + CREDITS["storage"])


@dataclass(frozen=True)
class Held:
    """What one cassette holds for its claims: each URL's page as the fetch rules read it
    from the recording (None: not recorded to the end), and the (claim, URL, page digest)
    choices of passages it recorded."""

    pages: dict[str, FetchResult | None] = field(default_factory=dict)
    choices: frozenset[tuple[str, str, str]] = frozenset()

    def judge_calls(self, request: ClaimRequest) -> int:
        """At most how many judge calls ``request`` takes beyond this recording."""
        calls = 0
        for url in (*request.urls, *request.retrieved):
            if not _fetched(url):
                continue  # never fetched (F7, an invalid URL)
            page = self.pages.get(url)
            if page is not None and not page.judgeable:
                continue  # a rule decides the recorded page
            if page is not None and (request.claim, url, page.digest) in (self.choices):
                continue  # its judge call is in the recording
            calls += 1
        return calls + (1 if calls and len(request.urls) >= 2 else 0)


def _fetched(url: str) -> bool:
    """Whether the fetch rules send a request for ``url`` (not an invalid URL or a PDF)."""
    target = request_url(url)
    return target is not None and not is_pdf(target)


def _urls(requests: Iterable[ClaimRequest]) -> list[str]:
    return list(dict.fromkeys(url for r in requests for url in (*r.urls, *r.retrieved)))


class Planner:
    """Reads the cassettes of a run offline, as a replay does (the run's VCR configuration,
    fetcher and fetch rules). Use as ``async with Planner(...) as planner``."""

    def __init__(self, settings: Settings, config: vcr.VCR, backends: Backends) -> None:
        self.settings = settings.without_budgets().without_backoff()
        self.library = CassetteLibrary(config, RecordMode.NONE, lambda path: "")
        self._http = recorded_client(self.settings, self.library, Offline("a plan"))
        self._requester = Requester(self._http, self.settings.network, RequestLimit(1))
        self._factory = backends.fetcher(self.settings.fetcher)

    async def __aenter__(self) -> Planner:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self._http.aclose()

    async def held(self, cassette: Path, requests: Sequence[ClaimRequest]) -> Held | None:
        """What ``cassette`` holds for ``requests``; None when it cannot be read (its case
        file is reported as not verified, and records nothing)."""
        try:
            session = self.library.open(cassette)
        except (UnreadableCassette, CitationsError):
            return None
        try:
            with session.active():
                pages = {url: await self._page(url) for url in _urls(requests) if _fetched(url)}
        finally:
            session.close()
        return Held(pages, _choices(session))

    async def _page(self, url: str) -> FetchResult | None:
        crawler = self._factory(self.settings.fetcher_config, self._requester, Usage())
        try:
            return await fetch_citation(crawler, url, max_chars=self.settings.max_page_chars)
        except Exception:  # a crawl the recording lacks: the page is not recorded
            return None


def _choices(session: CassetteSession) -> frozenset[tuple[str, str, str]]:
    return frozenset((key.claim, key.url, key.page) for key in session.loaded_choices)


async def plan_recording(
    files: Sequence[tuple[Path, Sequence[ClaimRequest]]],
    mode: RecordMode,
    settings: Settings,
    config: vcr.VCR,
    backends: Backends,
) -> SpendPlan:
    """What recording ``files`` (each case file's cassette and its claims) in ``mode`` is
    about to record and may cost (see the module's docstring): every claim and page when
    the mode records anew or a file has no cassette yet, nothing for a file ``once``
    replays. ``config`` and ``backends`` are the run's, so that cassettes are read as the
    run reads them."""
    claims = calls = 0
    pages: set[str] = set()
    async with Planner(settings, config, backends) as planner:
        for cassette, requests in files:
            if mode in (RecordMode.ALL, RecordMode.REWRITE) or not cassette.exists():
                held: Held | None = Held()
            elif mode is RecordMode.NEW_EPISODES:
                held = await planner.held(cassette, requests)
            else:
                held = None  # "once" replays a cassette that exists
            if held is None:
                continue
            for request in requests:
                needed = held.judge_calls(request)
                claims += 1 if needed else 0
                calls += needed
            pages.update(
                request_url(url) or url
                for url in _urls(requests)
                if _fetched(url) and held.pages.get(url) is None
            )
    return SpendPlan(
        claims,
        calls,
        len(pages),
        len(pages) * FIRST_CRAWL,
        len(pages) * MOST_CRAWLS,
        case_files=len(files),
    )


__all__ = ["FIRST_CRAWL", "MOST_CRAWLS", "Held", "Planner", "plan_recording"]
