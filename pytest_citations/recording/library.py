"""The cassettes of a run: which source records into which file, one session per case file
or test, the traffic shared between them, and what was left as it was (and why)."""

from __future__ import annotations

import inspect
import itertools
import threading
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import vcr
from vcr.cassette import Cassette
from vcr.request import Request as VcrRequest

from ..atomic import sweep_temporary_files
from ..distribution import install_command
from ..errors import RequestRefused, SignatureRefused
from ..paths import shown
from ..pipeline.claimwork import ClaimRequest
from ..pipeline.recall import ChoiceKey
from ..retrieval.selection import Selection
from .choices import choices_document, parse_choices
from .files import (
    CassetteClash,
    CassetteContentError,
    Interaction,
    Preloaded,
    UnreadableCassette,
    read_cassette,
    save_hooks,
    write_cassette,
)
from .pages import is_judge_call
from .session import CassetteSession, RecordMode, current_session
from .unplayed import Unplayed, unplayed

if TYPE_CHECKING:
    from .signing import TrustedKeys


@dataclass
class _Failure:
    """A request that failed (and was not recorded), until the same request succeeds."""

    session: CassetteSession
    work: Hashable | None
    request: VcrRequest
    reason: str


class CassetteLibrary:
    """Every cassette of a run, plus the traffic shared between them."""

    def __init__(
        self,
        config: vcr.VCR,
        record_mode: RecordMode,
        record_command: Callable[[Path], str],
        root: Path | None = None,
        upgrade_command: Callable[[Path], str | None] | None = None,
        trust: TrustedKeys | None = None,
    ) -> None:
        self.root = root
        self.config = config
        self.record_mode = record_mode
        self.record_command = record_command
        #: The command that adds retrieval's choices to a cassette (None: none can).
        self.upgrade_command = upgrade_command or self._upgrade_command
        #: The keys one of which must have signed every cassette read (None: any is read).
        self.trust = trust
        self._shared: dict[Hashable, list[Interaction]] = {}
        self._failures: list[_Failure] = []
        self._notes: list[str] = []
        self._owners: dict[Path, dict[Hashable, str]] = {}
        self._unreadable: dict[Path, tuple[type[UnreadableCassette], str]] = {}
        self._rewritten: set[Path] = set()
        self._swept: set[Path] = set()
        self._serials = itertools.count(1)
        self._lock = threading.Lock()
        self.played = 0
        self.recorded = 0
        self._unplayed: dict[str, Unplayed | None] = {}

    # Which source records into which file ---------------------------------------------
    def assign(self, path: Path, owner: Hashable, described: str) -> Path:
        """Note that ``described`` (a case file, a test; ``owner`` identifies it) records
        into ``path``, and return ``path``. A second source of one path makes :meth:`open`
        refuse it with :class:`CassetteClash`, so that neither wipes the other's recording."""
        with self._lock:
            self._owners.setdefault(path.resolve(), {}).setdefault(owner, described)
        return path

    def open(self, path: Path) -> CassetteSession:
        """Load (or start) the cassette at ``path`` according to the record mode. Raises
        :class:`UnreadableCassette` for a damaged file, :class:`CassetteClash` for a file
        that two sources would share."""
        with self._lock:
            owners = list(self._owners.get(path.resolve(), {}).values())
            unreadable = self._unreadable.get(path)
        if len(owners) > 1:
            raise CassetteClash(self.shown(path), owners)
        if unreadable is not None:
            # Read once per run: every item of a damaged file reports the same problem.
            kind, problem = unreadable
            raise kind(self.shown(path), problem, self.record_command(path))
        if path.parent not in self._swept:
            self._swept.add(path.parent)
            sweep_temporary_files(path.parent)
        # Rewrite starts from nothing, and so never needs to read (or trust) the old file;
        # a second opening in the same run continues what this run wrote.
        fresh = self.record_mode is RecordMode.REWRITE and path not in self._rewritten
        existed = path.exists()
        interactions, choices = (None, None) if fresh else self._read(path)
        vcr_mode = {
            RecordMode.NONE: "none",
            RecordMode.ONCE: "once",
            RecordMode.NEW_EPISODES: "new_episodes",
            RecordMode.ALL: "all",
            RecordMode.REWRITE: "new_episodes",
        }[self.record_mode]
        merged = self.config.get_merged_config(
            path=str(path), record_mode=vcr_mode, persister=Preloaded(interactions)
        )
        accepted = inspect.signature(Cassette.__init__).parameters
        cassette = Cassette.load(**{k: v for k, v in merged.items() if k in accepted})
        return CassetteSession(
            self,
            path,
            cassette,
            existed=existed,
            fresh=fresh,
            match_on=merged["match_on"],
            save_hooks=save_hooks(merged),
            serial=next(self._serials),
            choices=choices or {},
            # A file of judge calls without a retrieval section was made before choices
            # were kept, by the top passages (ranking 1): what it lacks is chosen so.
            legacy=choices is None and any(is_judge_call(r) for r, _ in interactions or ()),
            held=None if interactions is None else len(interactions),
        )

    def _read(
        self, path: Path
    ) -> tuple[list[Interaction] | None, dict[ChoiceKey, Selection] | None]:
        """A cassette file's interactions (None when there is no file) and retrieval's
        recorded choices (None when it has no retrieval section); with trusted keys, only from
        a file one of them signed as it is."""
        kind: type[UnreadableCassette] = UnreadableCassette
        try:
            raw = path.read_bytes()
        except FileNotFoundError:
            return None, {}
        except OSError as error:
            problem = f"it cannot be opened ({error.strerror or type(error).__name__})"
        else:
            try:
                check = self.trust.check if self.trust is not None else None
                interactions, section = read_cassette(raw, check)
                return interactions, None if section is None else parse_choices(section)
            except CassetteContentError as error:
                problem = str(error)
            except SignatureRefused as refused:
                from .trust import UntrustedCassette  # only a replay with trusted keys meets it

                kind, problem = UntrustedCassette, refused.problem
        with self._lock:
            self._unreadable[path] = (kind, problem)
        raise kind(self.shown(path), problem, self.record_command(path))

    def write(
        self,
        session: CassetteSession,
        interactions: Sequence[Interaction],
        choices: Mapping[ChoiceKey, Selection],
    ) -> None:
        """Write a session's cassette atomically, retrieval's choices with it."""
        write_cassette(session.path, session.saved(interactions), choices_document(choices))
        with self._lock:
            self._rewritten.add(session.path)

    def leave(self, session: CassetteSession, problem: str) -> None:
        """Record that a session's cassette was left as it was, and why."""
        verb = "left unchanged" if session.existed else "not written"
        note = f"{self.shown(session.path)} {verb}: {problem}"
        with self._lock:
            if note not in self._notes:
                self._notes.append(note)

    def notes(self) -> list[str]:
        """One line per cassette this run left as it was because a request failed for good
        or the run did not complete (``cassettes/x.yaml left unchanged: a request failed
        (HTTP 401 from the Crawlbase API)``), for the terminal summary."""
        with self._lock:
            return list(self._notes)

    def replayed(self, session: CassetteSession, requests: Sequence[ClaimRequest]) -> None:
        """A case file's claims (``requests``) replayed in full from a session, now closed:
        what of its cassette it left stale is kept for the run's summary (see
        :mod:`.unplayed`)."""
        found = unplayed(session, requests)
        with self._lock:
            self._unplayed[str(session.path.resolve())] = found

    def stale_counts(self) -> dict[str, Unplayed | None]:
        """What each replayed case file left stale of its cassette, by the cassette's
        resolved path (None: the replay cannot vouch for it)."""
        with self._lock:
            return dict(self._unplayed)

    def shown(self, path: Path) -> str:
        """A cassette path as the user knows it: relative to the rootdir when inside it."""
        return shown(path, self.root)

    # Failures -------------------------------------------------------------------------
    def failed(
        self, session: CassetteSession, work: Hashable | None, request: VcrRequest, reason: str
    ) -> None:
        """A request failed and was not recorded; until it succeeds, the cassettes that
        depend on it (its own, and any that reuse its work) stay as they are."""
        with self._lock:
            self._failures.append(_Failure(session, work, request, reason))

    def succeeded(
        self, session: CassetteSession, work: Hashable | None, request: VcrRequest
    ) -> None:
        """A request succeeded: earlier failures of the same request were not final."""
        with self._lock:
            self._failures = [
                failure
                for failure in self._failures
                if not (
                    failure.work == work
                    and (work is not None or failure.session is session)
                    and session.matches(request, failure.request)
                )
            ]

    def failures_of(self, session: CassetteSession) -> list[str]:
        """Why the requests a session depends on failed for good, each reason once."""
        with self._lock:
            reasons = [
                failure.reason
                for failure in self._failures
                if failure.session is session
                or (failure.work is not None and failure.work in session.used)
            ]
        return list(dict.fromkeys(reasons))

    # WorkObserver ---------------------------------------------------------------------
    def used(self, key: Hashable) -> None:
        """Remember that the active (recording) cassette needed this work."""
        session = current_session()
        if session is not None and session.may_record:
            session.used.add(key)

    def scope(self) -> Hashable | None:
        """Work done for a cassette that may record is shared with the whole run (and then
        copied into every cassette that needs it); a cassette that can only replay (mode
        none, or once with an existing file) answers only from itself, so that a file
        without its recording fails in a full run exactly as it does alone."""
        session = current_session()
        if session is None or session.may_record:
            return None
        return session.scope_key

    def remember(self, key: Hashable | None, interaction: Interaction) -> None:
        """File an interaction under the work it belongs to."""
        if key is None:
            return
        with self._lock:
            self._shared.setdefault(key, []).append(interaction)

    def shared(self, key: Hashable) -> list[Interaction]:
        """The interactions of one piece of work, in the order they happened."""
        with self._lock:
            return list(self._shared.get(key, ()))

    # Recall ---------------------------------------------------------------------------
    def recall(self, key: ChoiceKey) -> Selection | None:
        """The choice the active cassette holds for ``key`` (a fresh recording holds only
        what this run chose)."""
        session = current_session()
        return session.recall(key) if session is not None else None

    def keep(self, key: ChoiceKey, selection: Selection) -> None:
        """Keep a choice made now in the active cassette, when it records."""
        session = current_session()
        if session is not None:
            session.keep(key, selection)

    def replays(self) -> bool:
        """Whether the active cassette only replays."""
        session = current_session()
        return session is not None and not session.may_record

    def ranking(self) -> int | None:
        """The ranking the active cassette's judge calls were made with where it holds no
        choice (see :meth:`CassetteSession.ranking`)."""
        session = current_session()
        return session.ranking() if session is not None else None

    def _upgrade_command(self, path: Path) -> str:
        return f"pytest-citations cassettes upgrade {self.shown(path)}"

    def unchosen(self, key: ChoiceKey, missing: Sequence[str]) -> RequestRefused:
        """The error of a cassette recorded before retrieval's choices were kept, replayed
        where the models that would choose again are not installed: the command that adds
        the choices (once, where the models are), and the one that records it again."""
        session = current_session()
        upgrade = self.upgrade_command(session.path) if session is not None else None
        why = (
            "it holds no recorded choice of passages for it (a recording made before choices "
            f"were kept), and choosing them here needs {', '.join(missing)}"
        )
        extra = install_command("record")
        if upgrade is None:
            return self.refuse(key, f"{why} ({extra})")
        return self._refused(
            key,
            why,
            f"add the choices once with: {upgrade} (where {extra} brings "
            "the models), or record it again with",
        )

    def refuse(self, key: ChoiceKey, why: str) -> RequestRefused:
        """The error of a choice the active cassette cannot replay, with what fixes it."""
        return self._refused(key, why, "record it with")

    def _refused(self, key: ChoiceKey, why: str, fix: str) -> RequestRefused:
        session = current_session()
        where = self.shown(session.path) if session is not None else "the recording"
        command = self.record_command(session.path) if session is not None else ""
        return RequestRefused(
            f"{where} cannot replay the claim {key.claim!r} against {key.url}: {why}; {fix}: "
            f"{command}"
        )
