"""The recorded side of a drift check, offline: each cassette replayed as the plugin
replays it (the same verifier, retrieval, guard and matching, no request ever sent).

The recorded verdict of every citation, and the passages its judge was shown, come from
re-running the recorded verification (:attr:`ClaimVerdict.evidence`), not from parsing the
judge requests in the file: whatever the provider's body looks like, whatever the guard made
of the answer, the verdict is the one a replay in CI reports. The recorded page comes from the
same cassette through the fetch rules (:func:`~pytest_citations.fetchers.fetch_citation`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType

import httpx
import vcr

from ..backends import Backends
from ..errors import CitationsError, RequestRefused
from ..fetchers import FetchResult, fetch_citation
from ..network import make_http_client
from ..recording import CassetteLibrary, CassetteTransport, RecordMode, UnreadableCassette
from ..recording.files import CassetteContentError, Interaction
from ..recording.pages import read_interactions
from ..settings import Settings
from ..verdicts import CitationVerdict, ClaimVerdict, Usage
from ..verifier import ClaimRequest, Verifier
from .sources import DriftSource
from .statuses import Skipped


class _Offline(httpx.AsyncBaseTransport):
    """Below a replay-only cassette: nothing is ever sent."""

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        raise RequestRefused("a drift replay sends no request")


@dataclass(frozen=True)
class RecordedCitation:
    """A citation as its cassette replays it: the verdict, the passages its judge was shown
    (none when a fetch rule decided it) and the page."""

    nodeid: str
    claim: str
    url: str
    verdict: CitationVerdict
    shown: tuple[str, ...]
    page: FetchResult


@dataclass
class RecordedSource:
    """What one case file's cassette holds for its citations."""

    source: DriftSource
    cassette: str
    citations: list[RecordedCitation] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
    #: The file's interactions, and the positions of those its replay used (None: unknown).
    interactions: list[Interaction] = field(default_factory=list)
    used: frozenset[int] | None = None
    #: Per URL, what its recorded fetch sequence cost: (crawl requests, credits).
    page_costs: dict[str, tuple[int, float]] = field(default_factory=dict)


class Replayer:
    """Replays cassettes offline (mode ``none``): verdicts with their evidence, and pages.
    Use as ``async with Replayer(...) as replayer``."""

    def __init__(
        self,
        settings: Settings,
        config: vcr.VCR,
        backends: Backends,
        commands: Mapping[Path, str],
        root: Path | None = None,
    ) -> None:
        # No waiting on a recorded Retry-After.
        self.settings = settings.replace(backoff=0.0, max_backoff=0.0)
        self.backends = backends
        self._commands = commands
        self.library = CassetteLibrary(config, RecordMode.NONE, self._command, root=root)
        self._http = make_http_client(self.settings, CassetteTransport(self.library, _Offline()))
        self.verifier = Verifier(
            self.settings, http=self._http, backends=backends, observer=self.library
        )

    def _command(self, path: Path) -> str:
        return (
            self._commands.get(path)
            or f"pytest --citations --citations-record=new_episodes  # {path}"
        )

    async def __aenter__(self) -> Replayer:
        await self.verifier.__aenter__()
        return self

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        try:
            await self.verifier.aclose()
        finally:
            await self._http.aclose()

    async def verify(
        self, path: Path, requests: Sequence[ClaimRequest], size: int
    ) -> tuple[list[ClaimVerdict], frozenset[int] | None]:
        """Replay the verification of ``requests`` from ``path`` (``size`` interactions):
        the verdicts, and the positions of the interactions the replay used (None when the
        loaded cassette does not line up with the file, say because a hook dropped
        interactions on loading)."""
        session = self.library.open(path)
        try:
            with session.active():
                verdicts = await self.verifier.verify_many(requests)
            counts = session.cassette.play_counts
            played = frozenset(index for index, count in counts.items() if count)
            lined_up = len(session.loaded) == size
        finally:
            session.close()
        return verdicts, played if lined_up else None

    async def pages(
        self, path: Path, urls: Sequence[str]
    ) -> dict[str, tuple[FetchResult | None, Usage, str]]:
        """Each URL's recorded page through the fetch rules: (page or None, what its crawls
        cost, why it is missing)."""
        factory = self.backends.fetcher(self.settings.fetcher)
        session = self.library.open(path)
        found: dict[str, tuple[FetchResult | None, Usage, str]] = {}
        try:
            with session.active():
                for url in urls:
                    usage = Usage()
                    crawler = factory(self.settings, self.verifier.requester, usage)
                    try:
                        page = await fetch_citation(
                            crawler, url, max_chars=self.settings.max_page_chars
                        )
                    except CitationsError as error:
                        found[url] = (None, usage, str(error))
                    else:
                        found[url] = (page, usage, "")
        finally:
            session.close()
        return found


def _skip_all(recorded: RecordedSource, reason: str) -> RecordedSource:
    recorded.skipped = [
        Skipped(claim.nodeid, url, recorded.cassette, reason)
        for claim in recorded.source.claims
        for url in claim.request.urls
    ]
    return recorded


async def replay_source(replayer: Replayer, source: DriftSource) -> RecordedSource:
    """Replay one case file's cassette: its citations with their recorded verdicts and
    pages, and the citations left out (no cassette, a recording that does not replay)."""
    recorded = RecordedSource(source, replayer.library.shown(source.cassette))
    if not source.cassette.exists():
        return _skip_all(recorded, "no cassette")
    try:
        recorded.interactions = read_interactions(source.cassette)
        requests = [claim.request for claim in source.claims]
        verdicts, recorded.used = await replayer.verify(
            source.cassette, requests, len(recorded.interactions)
        )
        pages = await replayer.pages(source.cassette, source.urls)
    except (OSError, CassetteContentError, UnreadableCassette) as error:
        return _skip_all(recorded, f"the cassette cannot be read: {error}")
    for url, (_, usage, _) in pages.items():
        recorded.page_costs[url] = (usage.replayed_crawls, usage.replayed_credits)
    for claim, verdict in zip(source.claims, verdicts, strict=True):
        shown = dict(verdict.evidence)
        for citation in verdict.citations:
            page, _, problem = pages[citation.url]
            if not citation.checked or page is None:
                why = verdict.problems[0] if verdict.problems else problem or citation.reason
                reason = f"the recording does not replay: {why}"
                skip = Skipped(claim.nodeid, citation.url, recorded.cassette, reason)
                recorded.skipped.append(skip)
                continue
            recorded.citations.append(
                RecordedCitation(
                    claim.nodeid,
                    verdict.claim,
                    citation.url,
                    citation,
                    tuple(shown.get(citation.url, ())),
                    page,
                )
            )
    return recorded
