"""One cassette file opened for a case file or a test: which requests go to it (the
asyncio context), whether it may record, and what it writes when it closes."""

from __future__ import annotations

import contextlib
import copy
import threading
from collections.abc import Callable, Hashable, Iterator, Mapping, Sequence
from contextvars import ContextVar
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any

from vcr.cassette import Cassette
from vcr.record_mode import RecordMode as VcrRecordMode
from vcr.request import Request as VcrRequest

from ..pipeline.recall import ChoiceKey
from ..retrieval.selection import Selection
from .files import Interaction, accepts_cassette
from .lookup import InteractionIndex, body_key

if TYPE_CHECKING:
    from .library import CassetteLibrary


class RecordMode(StrEnum):
    """When cassettes may be written (pytest-recording's modes)."""

    NONE = "none"  #: replay only; a missing request fails (the default)
    ONCE = "once"  #: record a cassette that does not exist yet, replay one that does
    NEW_EPISODES = "new_episodes"  #: replay what is there, record what is missing
    ALL = "all"  #: send everything, re-record every interaction
    REWRITE = "rewrite"  #: throw each cassette away and record it anew

    @property
    def records(self) -> bool:
        """True when this mode may reach the network."""
        return self is not RecordMode.NONE


_current: ContextVar[CassetteSession | None] = ContextVar("citations_cassette", default=None)


def current_session() -> CassetteSession | None:
    """The cassette session requests in this context go to (see :meth:`CassetteSession.active`)."""
    return _current.get()


class CassetteSession:
    """One cassette file opened for a case file or a test.

    Recordings stay in memory until :meth:`close`, which writes the file (atomically) only
    when every run in it completed and no request failed for good; otherwise the file is
    left exactly as it was and :meth:`CassetteLibrary.notes` says why.
    """

    def __init__(
        self,
        library: CassetteLibrary,
        path: Path,
        cassette: Cassette,
        *,
        existed: bool,
        fresh: bool,
        match_on: Sequence[Callable[..., Any]],
        save_hooks: Sequence[Callable[..., Any]],
        serial: int,
        choices: Mapping[ChoiceKey, Selection] | None = None,
        legacy: bool = False,
        held: int | None = None,
    ) -> None:
        self.library = library
        self.path = path
        self.cassette = cassette
        self.existed = existed
        self.match_on = tuple(match_on)
        self.index = InteractionIndex(self.match_on)
        #: What the file held when it was opened (nothing in rewrite mode), and how many
        #: interactions the file held as read (None: none was read); a hook may leave some out.
        self.loaded: list[Interaction] = list(cassette.data)
        self.held = held
        self.used: set[Hashable] = set()
        self.closed = False
        self._fresh = fresh
        self.save_hooks = list(save_hooks)
        self._running = 0
        self._stopped: str | None = None
        self._lock = threading.Lock()
        #: What this session's work is shared under when it can only replay (see scope()).
        self.scope_key: Hashable = ("cassette", str(path), serial)
        #: Retrieval's choices the file held, and those made while it records.
        self.loaded_choices: dict[ChoiceKey, Selection] = dict(choices or {})
        self.new_choices: dict[ChoiceKey, Selection] = {}
        #: The file's choices a lookup found (what the replay used of its retrieval section).
        self.recalled: set[ChoiceKey] = set()
        #: The file was recorded before choices were kept (judge calls, no section).
        self.legacy = legacy

    @property
    def may_record(self) -> bool:
        """Whether a request missing from this cassette may go to the network."""
        mode = self.library.record_mode
        if mode is RecordMode.NONE:
            return False
        return not (mode is RecordMode.ONCE and self.existed)

    @contextlib.contextmanager
    def active(self) -> Iterator[CassetteSession]:
        """Route requests made in this context (and the tasks it starts) to this cassette.

        A run that leaves by an exception (a stopped run, a cancelled one) or has not left
        when the cassette is closed (an interrupted one) did not complete: nothing of it is
        written."""
        token = _current.set(self)
        with self._lock:
            self._running += 1
        try:
            yield self
        except BaseException as error:
            with self._lock:
                self._stopped = self._stopped or type(error).__name__
            raise
        finally:
            with self._lock:
                self._running -= 1
            _current.reset(token)

    @property
    def _records_anew(self) -> bool:
        """Whether this session records everything again (its file's choices are stale)."""
        return self.library.record_mode in (RecordMode.ALL, RecordMode.REWRITE)

    def recall(self, key: ChoiceKey) -> Selection | None:
        """The choice this cassette holds for ``key``."""
        with self._lock:
            found = self.new_choices.get(key)
            if found is None and not (self.may_record and self._records_anew):
                found = self.loaded_choices.get(key)
                if found is not None:
                    self.recalled.add(key)
            return found

    def ranking(self) -> int | None:
        """1 where the file was recorded before choices were kept and this run does not
        record it anew: its judge calls carry the top passages (ranking 1), and a choice it
        lacks is made so; None (today's ranking) otherwise."""
        return 1 if self.legacy and not (self.may_record and self._records_anew) else None

    def keep(self, key: ChoiceKey, selection: Selection) -> None:
        """Keep a choice made now, when this cassette records."""
        if self.may_record:
            with self._lock:
                self.new_choices.setdefault(key, selection)

    def choices(self) -> dict[ChoiceKey, Selection]:
        """The choices the file is written with: what this run chose, and (unless it records
        everything anew) the file's own."""
        with self._lock:
            kept = {} if self._fresh else dict(self.loaded_choices)
            if self.library.record_mode is RecordMode.ALL:
                kept = {k: v for k, v in kept.items() if k not in self.new_choices}
            return {**kept, **self.new_choices}

    def matches(self, first: VcrRequest, second: VcrRequest) -> bool:
        """Whether two requests are the same recording under the VCR's ``match_on``."""
        return self.index.matches(first, second)

    def play(self, live: VcrRequest) -> tuple[dict[str, Any], int] | None:
        """The recorded response to ``live`` (marked played, so that it answers once) and how
        many recordings of that very request the file holds, or None when this cassette
        cannot answer it: vcrpy's ``can_play_response_for`` and ``play_response`` in one
        lookup that does not scan the cassette.

        Identical requests get the recordings in the order they were made, and only what
        the file held answers: a request this run recorded never answers the next identical
        one (the judge's next vote is asked, not given the last vote's answer)."""
        cassette = self.cassette
        repeats = cassette.allow_playback_repeats
        if cassette.record_mode == VcrRecordMode.ALL or not (cassette.rewound or repeats):
            return None
        request = cassette.filter_request(live)
        if not request:
            return None
        self.index.update(cassette.data)
        held = [
            index
            for index in self.index.candidates(request)
            if index < len(self.loaded) and self.matches(request, cassette.data[index][0])
        ]
        for index in held:
            if repeats or cassette.play_counts[index] == 0:
                cassette.play_counts[index] += 1
                recorded: dict[str, Any] = cassette.data[index][1]
                # Copies of this very request (its body too, whatever the matchers compare):
                # a matching that ignores bodies must not count other claims' calls.
                body = body_key(cassette.data[index][0])
                return recorded, sum(1 for i in held if body_key(cassette.data[i][0]) == body)
        return None

    def close(self) -> None:
        """Copy the shared traffic this cassette needs, then write the file if its runs
        completed and something changed; otherwise leave it as it was, with a note."""
        if self.closed:
            return
        self.closed = True
        if not self.may_record:
            return
        problem = self._problem()
        if problem is not None:
            self.library.leave(self, problem)
            return
        interactions = self._to_write()
        if interactions is not None:
            self.library.write(self, interactions, self.choices())

    def abandon(self, reason: str) -> None:
        """Close without writing: what this session recorded is dropped, and the file is
        left as it was (with a note), as when its run was interrupted."""
        if self.closed:
            return
        self.closed = True
        if self.may_record:
            self.library.leave(self, reason)

    def _problem(self) -> str | None:
        with self._lock:
            running, stopped = self._running, self._stopped
        if running:
            return "the run was interrupted"
        failures = self.library.failures_of(self)
        if failures:
            return f"a request failed ({'; '.join(failures)})"
        if stopped is not None:
            return f"the run stopped ({stopped})"
        return None

    def _to_write(self) -> list[Interaction] | None:
        """The file's new content, or None when this run changed nothing."""
        data = self.cassette.data
        mode = self.library.record_mode
        fresh_from = len(self.loaded)
        # In "all" mode a loaded interaction is stale: only this run's count.
        held_from = fresh_from if mode is RecordMode.ALL else 0
        # Each shared interaction needs one of its own: identical requests (the judge's
        # votes on one citation) are as many interactions, in the order they were made.
        taken: set[int] = set()
        for key in sorted(self.used, key=repr):
            for request, response in self.library.shared(key):
                found = self._held(request, held_from, taken)
                if found is None:
                    data.append((request, copy.deepcopy(response)))
                    found = len(data) - 1
                taken.add(found)
        recorded = list(data[fresh_from:])
        # New choices alone are a change too: a recording made before choices were kept
        # gains them on its next recording run.
        chose = bool(self.new_choices) and self.new_choices.keys() - self.loaded_choices.keys()
        if mode is RecordMode.ALL:
            if not (recorded or chose):
                return None
            kept = [
                (stored, response)
                for stored, response in self.loaded
                if not any(self.matches(request, stored) for request, _ in recorded)
            ]
            return kept + recorded
        if mode is RecordMode.REWRITE and self._fresh:
            return recorded if recorded or chose or self.existed else None
        return list(data) if recorded or chose else None

    def _held(self, request: VcrRequest, start: int, taken: set[int]) -> int | None:
        """The first interaction from ``start`` on that answers ``request`` and is not
        ``taken``."""
        data = self.cassette.data
        self.index.update(data)
        for index in self.index.candidates(request):
            if index >= start and index not in taken and self.matches(request, data[index][0]):
                return index
        return None

    def saved(self, interactions: Sequence[Interaction]) -> list[Interaction]:
        """``interactions`` after the VCR's save hooks (each gets copies, as in vcrpy)."""
        if not self.save_hooks:
            return list(interactions)
        kept = []
        for request, response in interactions:
            interaction: Any = (copy.deepcopy(request), copy.deepcopy(response))
            for hook in self.save_hooks:
                extra = (self.cassette,) if accepts_cassette(hook) else ()
                interaction = hook(*interaction, *extra)
                if interaction is None:
                    break
            if interaction is not None:
                kept.append((interaction[0], interaction[1]))
        return kept
