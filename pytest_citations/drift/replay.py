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

from ..errors import CitationsError, RequestRefused
from ..fetchers import FetchResult, fetch_citation
from ..labels import Label, Reason
from ..network.usage import Usage
from ..pipeline.backends import Backends
from ..pipeline.recall import ChoiceKey
from ..pipeline.settings import Settings
from ..pipeline.verifier import ClaimRequest, Verifier
from ..recording import (
    CassetteLibrary,
    RecordMode,
    UnreadableCassette,
    VcrConfig,
    recorded_client,
)
from ..recording.client import Offline
from ..recording.files import CassetteContentError, Interaction
from ..recording.pages import read_recording
from ..recording.signing import SignatureRefused, TrustedKeys
from ..recording.trust import UntrustedCassette
from ..retrieval.selection import Selection
from ..verdicts import CitationVerdict, ClaimVerdict
from .sources import DriftCheck, DriftSource
from .statuses import CitationDrift, DriftStatus, Skipped


@dataclass(frozen=True)
class RecordedCitation:
    """A citation as its cassette replays it: the verdict, the passages its judge was shown
    (none when a fetch rule decided it) and the page; ``retrieved`` for a URL the case
    retrieved without citing it."""

    nodeid: str
    claim: str
    url: str
    verdict: CitationVerdict
    shown: tuple[str, ...]
    page: FetchResult
    retrieved: bool = False


@dataclass
class RecordedSource:
    """What one case file's cassette holds for its citations: those it replays, those it
    cannot (``unchecked``, with why), and retrieved URLs left out by design."""

    source: DriftSource
    cassette: str
    #: The cassette file exists.
    found: bool = True
    citations: list[RecordedCitation] = field(default_factory=list)
    unchecked: list[CitationDrift] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
    #: Positions in ``source.checks`` whose replay was incomplete (a recording was missing).
    incomplete: frozenset[int] = frozenset()
    #: The file's interactions, and the positions of those its replay used (None: unknown).
    interactions: list[Interaction] = field(default_factory=list)
    used: frozenset[int] | None = None
    #: Per URL, what its recorded fetch sequence cost: (crawl requests, credits).
    page_costs: dict[str, tuple[int, float]] = field(default_factory=dict)
    #: Retrieval's choices the file holds (its ``retrieval:`` section).
    choices: dict[ChoiceKey, Selection] = field(default_factory=dict)
    #: The (claim, URL) pairs whose judge call the replay found in the file.
    judged: frozenset[tuple[str, str]] = frozenset()


class _Keeping:
    """The library's recall, keeping every choice retrieval makes while it replays (the
    library keeps none when it only replays)."""

    def __init__(self, library: CassetteLibrary, made: dict[ChoiceKey, Selection]) -> None:
        self._library = library
        self._made = made

    def recall(self, key: ChoiceKey) -> Selection | None:
        return self._library.recall(key)

    def keep(self, key: ChoiceKey, selection: Selection) -> None:
        self._made.setdefault(key, selection)

    def replays(self) -> bool:
        return False  # retrieval runs here: the claims may be embedded ahead

    def ranking(self) -> int | None:
        return self._library.ranking()

    def refuse(self, key: ChoiceKey, why: str) -> RequestRefused:
        return self._library.refuse(key, why)

    def unchosen(self, key: ChoiceKey, missing: Sequence[str]) -> RequestRefused:
        return self._library.unchosen(key, missing)


class Replayer:
    """Replays cassettes offline (mode ``none``): verdicts with their evidence, and pages.
    Use as ``async with Replayer(...) as replayer``. With ``keep_choices``, what retrieval
    chooses where a cassette holds no choice is kept in :attr:`made` (the upgrade of a
    cassette recorded before choices were kept). With ``trust``, a recording whose signature
    none of those keys made is refused when :func:`replay_source` reads it (the cassettes
    an update writes, and replays to validate, are not checked)."""

    def __init__(
        self,
        settings: Settings,
        config: VcrConfig,
        backends: Backends,
        commands: Mapping[Path, str],
        root: Path | None = None,
        *,
        keep_choices: bool = False,
        trust: TrustedKeys | None = None,
    ) -> None:
        #: The keys one of which must have signed each recording replayed (None: any).
        self.trust = trust
        # No waiting on a recorded Retry-After.
        self.settings = settings.without_backoff()
        self.backends = backends
        self._commands = commands
        self.library = CassetteLibrary(config, RecordMode.NONE, self.command, root=root)
        self._http = recorded_client(self.settings, self.library, Offline("a drift replay"))
        #: Retrieval's choices made while replaying (with ``keep_choices``).
        self.made: dict[ChoiceKey, Selection] = {}
        self.verifier = Verifier(
            self.settings,
            http=self._http,
            backends=backends,
            observer=self.library,
            recall=_Keeping(self.library, self.made) if keep_choices else self.library,
        )

    def command(self, path: Path) -> str:
        """The command that records ``path`` (its case file's, when known)."""
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
                    crawler = factory(self.settings.fetcher_config, self.verifier.requester, usage)
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


#: A claim its citations settled this way was never checked against its retrieved URLs.
_SETTLED = (Label.SUPPORTED, Label.CONTRADICTED)


def _unchecked(
    recorded: RecordedSource,
    check: DriftCheck,
    verdict: CitationVerdict,
    why: str,
) -> CitationDrift:
    return CitationDrift(
        check.nodeid,
        check.request.claim,
        verdict.url,
        recorded.cassette,
        DriftStatus.UNCHECKED,
        verdict,
        detail=why,
        retrieved=check.retrieved,
    )


def _missing_cassette(recorded: RecordedSource) -> RecordedSource:
    """Every citation of a case file without a cassette: unchecked, never skipped."""
    recorded.found = False
    for check in recorded.source.checks:
        for url in check.request.urls:
            verdict = CitationVerdict(url, Label.NOT_FOUND, reason=Reason.REQUEST_REFUSED)
            why = f"no cassette at {recorded.cassette}"
            recorded.unchecked.append(_unchecked(recorded, check, verdict, why))
    return recorded


def _not_consulted(recorded: RecordedSource, check: DriftCheck, label: Label) -> Skipped:
    """A retrieved URL of a claim its citations settled: no verdict rests on it."""
    reason = f"not consulted when recorded: the claim's citations found it {label}"
    return Skipped(check.nodeid, check.request.urls[0], recorded.cassette, reason)


def _why(verdict: ClaimVerdict, citation: CitationVerdict, problem: str, command: str) -> str:
    """Why a recorded citation cannot be compared, with the command that fixes it."""
    notes = [note for note in verdict.problems if citation.url in note] or list(verdict.problems)
    if citation.reason == Reason.REQUEST_REFUSED:
        return "the cassette holds no recording of it: " + (
            notes[0] if notes else f"record it with: {command}"
        )
    if not citation.checked:
        return (
            f"its recording holds no verdict to compare ({citation.reason}); record it again "
            f"with: {command}"
        )
    return f"the recorded page does not replay: {problem or 'it is missing'}"


def _read(
    replayer: Replayer, source: DriftSource, shown: str
) -> tuple[list[Interaction], dict[ChoiceKey, Selection]]:
    """The cassette's interactions and retrieval's choices; an unreadable file, or one the
    trusted keys refuse, is an error naming it and the fix."""
    command = replayer.command(source.cassette)
    try:
        return read_recording(source.cassette, replayer.trust)
    except (OSError, CassetteContentError) as error:
        problem = error.strerror if isinstance(error, OSError) else str(error)
        raise UnreadableCassette(shown, problem or type(error).__name__, command) from None
    except SignatureRefused as refused:
        raise UntrustedCassette(shown, refused.problem, command) from None


async def replay_source(replayer: Replayer, source: DriftSource) -> RecordedSource:
    """Replay one case file's cassette: its citations (cited and retrieved) with their
    recorded verdicts and pages; those without a cassette or a recording are unchecked.
    Raises :class:`~pytest_citations.recording.UnreadableCassette` for a cassette that
    cannot be read."""
    recorded = RecordedSource(source, replayer.library.shown(source.cassette))
    if not source.cassette.exists():
        return _missing_cassette(recorded)
    recorded.interactions, recorded.choices = _read(replayer, source, recorded.cassette)
    checks = source.checks
    requests = [check.request for check in checks]
    verdicts, recorded.used = await replayer.verify(
        source.cassette, requests, len(recorded.interactions)
    )
    pages = await replayer.pages(source.cassette, source.urls)
    recorded.incomplete = frozenset(i for i, v in enumerate(verdicts) if not v.complete)
    recorded.judged = frozenset((v.claim, e.url) for v in verdicts for e in v.evidence)
    for url, (_, usage, _) in pages.items():
        recorded.page_costs[url] = (usage.replayed_crawls, usage.replayed_credits)
    labels = {c.nodeid: v.label for c, v in zip(checks, verdicts, strict=True) if not c.retrieved}
    for check, verdict in zip(checks, verdicts, strict=True):
        if check.retrieved and labels[check.nodeid] in _SETTLED:
            recorded.skipped.append(_not_consulted(recorded, check, labels[check.nodeid]))
            continue
        shown = {evidence.url: evidence.passages for evidence in verdict.evidence}
        for citation in verdict.citations:
            page, _, problem = pages[citation.url]
            if not citation.checked or page is None:
                why = _why(verdict, citation, problem, replayer.command(source.cassette))
                recorded.unchecked.append(_unchecked(recorded, check, citation, why))
                continue
            recorded.citations.append(
                RecordedCitation(
                    check.nodeid,
                    verdict.claim,
                    citation.url,
                    citation,
                    tuple(shown.get(citation.url, ())),
                    page,
                    check.retrieved,
                )
            )
    return recorded


async def replay_sources(
    replayer: Replayer, sources: Sequence[DriftSource]
) -> list[RecordedSource]:
    """Replay every source (see :func:`replay_source`), before anything is sent live. Every
    cassette that cannot be read is named, with its fix, in one error."""
    recorded: list[RecordedSource] = []
    unreadable: list[UnreadableCassette] = []
    for source in sources:
        try:
            recorded.append(await replay_source(replayer, source))
        except UnreadableCassette as error:
            unreadable.append(error)
    if len(unreadable) == 1:
        raise unreadable[0]
    if unreadable:
        raise CitationsError(
            f"{len(unreadable)} cassettes cannot be replayed:\n" + "\n".join(map(str, unreadable))
        )
    return recorded
