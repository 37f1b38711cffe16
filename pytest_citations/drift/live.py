"""The live side of a drift check: one fetch sequence per distinct URL, through the same
fetch rules and the network transport, and one new verdict for each citation that needs
one (a judge call only where the page is judged).

Traffic goes through the plugin's cassette transport, so what comes back is scrubbed and
filed exactly as a recording would keep it, and a failure (401/402/403, 429, 5xx, a timeout)
is never kept: the update mode writes only what this module captured.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from ..errors import AccountError, ConfigurationError, MissingTokenError, RequestRefused
from ..fetchers import CrawlerFactory, FetchResult, fetch_citation
from ..fetchers.urls import request_url
from ..network.requester import Requester, TransientError
from ..network.usage import Usage
from ..pipeline.backends import Backends
from ..pipeline.recall import ChoiceKey
from ..pipeline.settings import Settings
from ..pipeline.verifier import ClaimRequest, Verifier
from ..recording import CassetteLibrary, RecordMode, VcrConfig, recorded_client, write_cassette
from ..recording.choices import choices_document
from ..recording.files import Interaction
from ..recording.pages import crawl_target
from ..retrieval.selection import Selection
from ..verdicts import CitationVerdict

#: Errors that stop the run rather than one citation's check: a refused or exhausted
#: account, a missing secret, an unusable setting.
FATAL = (AccountError, MissingTokenError, ConfigurationError)


def _no_command(path: Path) -> str:
    return "pytest --citations --citations-drift"


class JudgeOnly(httpx.AsyncBaseTransport):
    """Sends judge calls to ``inner``; a crawl that no capture answered is refused, so that a
    drift run crawls each page once."""

    def __init__(self, inner: httpx.AsyncBaseTransport) -> None:
        self.inner = inner

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if request.method == "GET" and "url" in request.url.params:
            raise RequestRefused("a drift run crawls each page once; this crawl was not made")
        return await self.inner.handle_async_request(request)

    async def aclose(self) -> None:
        await self.inner.aclose()


@dataclass
class LivePage:
    """One URL fetched live: the page through the fetch rules (None when the check could
    not run, with the problem), its crawls as a recording keeps them, and their cost."""

    url: str
    result: FetchResult | None
    problem: str = ""
    interactions: list[Interaction] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)


async def _fetch_one(
    factory: CrawlerFactory, settings: Settings, requester: Requester, url: str
) -> LivePage:
    usage = Usage()
    crawler = factory(settings.fetcher_config, requester, usage)
    try:
        result = await fetch_citation(crawler, url, max_chars=settings.max_page_chars)
    except FATAL:
        raise
    except TransientError as error:
        return LivePage(url, None, f"fetching the page failed: {error}", usage=usage)
    except Exception as error:  # one page's failure must not stop the others
        return LivePage(
            url, None, f"fetching the page failed ({type(error).__name__})", usage=usage
        )
    return LivePage(url, result, usage=usage)


async def fetch_live(
    urls: Sequence[str], settings: Settings, config: VcrConfig, backends: Backends, scratch: Path
) -> dict[str, LivePage]:
    """Fetch every URL once, concurrently under the settings' limit, keeping its crawls."""
    library = CassetteLibrary(config, RecordMode.ALL, _no_command)
    session = library.open(scratch / "live.yaml")
    http = recorded_client(settings, library)
    factory = backends.fetcher(settings.fetcher)
    try:
        async with Verifier(settings, http=http, backends=backends) as verifier:
            with session.active():
                fetched = await asyncio.gather(
                    *(_fetch_one(factory, settings, verifier.requester, url) for url in urls)
                )
    finally:
        await http.aclose()
    captured: dict[str, list[Interaction]] = {}
    for interaction in session.cassette.data:
        target = crawl_target(interaction[0])
        if target is not None:
            captured.setdefault(target, []).append(interaction)
    pages = {}
    for page in fetched:
        raw = captured.get(request_url(page.url) or page.url, [])
        if page.result is not None and len(raw) != page.usage.crawl_requests:
            # An answer was not kept (a status no recording may hold): not a check.
            page = LivePage(
                page.url, None, "the Crawling API answered with a failure", usage=page.usage
            )
        elif page.result is not None:
            page.interactions = session.saved(raw)
        pages[page.url] = page
    return pages


@dataclass
class Rechecked:
    """New verdicts by (claim, URL), the judge calls made for them as a recording keeps
    them and retrieval's choices of the passages they carry, why any request failed for
    good, and what was spent."""

    verdicts: dict[tuple[str, str], CitationVerdict] = field(default_factory=dict)
    interactions: list[Interaction] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)
    choices: dict[ChoiceKey, Selection] = field(default_factory=dict)


async def verify_recorded(
    requests: Sequence[ClaimRequest],
    interactions: Sequence[Interaction],
    settings: Settings,
    config: VcrConfig,
    backends: Backends,
    path: Path,
    choices: Mapping[ChoiceKey, Selection] | None = None,
) -> tuple[list[CitationVerdict | None], Rechecked]:
    """Verify ``requests`` with crawls answered by ``interactions`` (written to ``path``,
    with retrieval's recorded ``choices``, which a claim against an unchanged page recalls)
    and missing judge calls sent live and kept (mode ``new_episodes``). Returns each
    request's first citation verdict and what was recorded, the choices made now with it."""
    write_cassette(path, interactions, choices_document(choices or {}))
    library = CassetteLibrary(config, RecordMode.NEW_EPISODES, _no_command)
    session = library.open(path)
    http = recorded_client(settings, library, JudgeOnly(settings.transport()))
    try:
        async with Verifier(
            settings, http=http, backends=backends, observer=library, recall=library
        ) as verifier:
            with session.active():
                verdicts = await verifier.verify_many(requests)
            usage = verifier.usage
    finally:
        await http.aclose()
    recorded = session.saved(session.cassette.data[len(session.loaded) :])
    done = Rechecked(
        interactions=recorded,
        failures=library.failures_of(session),
        usage=usage,
        choices=dict(session.new_choices),
    )
    return [verdict.citations[0] if verdict.citations else None for verdict in verdicts], done


async def recheck(
    targets: Sequence[tuple[str, str]],
    pages: Mapping[str, LivePage],
    settings: Settings,
    config: VcrConfig,
    backends: Backends,
    scratch: Path,
) -> Rechecked:
    """A new verdict for each (claim, URL): the live page replayed from its capture, a
    judge call where the page is judged (once per distinct request), the same guard."""
    targets = list(dict.fromkeys(targets))
    if not targets:
        return Rechecked()
    urls = dict.fromkeys(url for _, url in targets)
    captured = [interaction for url in urls for interaction in pages[url].interactions]
    requests = [ClaimRequest.of(claim, [url]) for claim, url in targets]
    verdicts, done = await verify_recorded(
        requests, captured, settings, config, backends, scratch / "recheck.yaml"
    )
    for target, verdict in zip(targets, verdicts, strict=True):
        if verdict is not None:
            done.verdicts[target] = verdict
    return done
