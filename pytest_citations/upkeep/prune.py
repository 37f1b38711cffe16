"""``pytest-citations cassettes prune``: the recordings no case file needs any more, listed
by cassette with their size, and with ``write`` taken out.

What is stale in a case file's cassette is :mod:`.stale`'s to say; a cassette under the
cassette folder whose case file no longer exists is stale whole, unless it may be a test's
(the fixture's layout mirrors the test module's path, ``cassettes/tests/test_app/…`` for
``tests/test_app.py``, and names the file after the test): that one is kept, and said.
Nothing is sent; no model is loaded.

Writing keeps everything still needed byte for byte
(:func:`~pytest_citations.recording.entries.without_entries`), seals the file as every
writer does (signed when ``CITATIONS_SIGNING_KEY`` is set) and replaces it atomically; a
cassette stale whole is deleted. A file that changed since it was read is left as it is.
"""

from __future__ import annotations

import contextlib
import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..atomic import write_atomically
from ..drift.replay import Replayer
from ..errors import CitationsError
from ..labels import counted
from ..paths import shown
from ..pipeline.backends import Backends
from ..pipeline.settings import Settings
from ..recording import VcrConfig, build_vcr
from ..recording.choices import parse_choices
from ..recording.entries import EntrySpans, check_editable, entry_spans, without_entries
from ..recording.files import CassetteContentError, read_cassette, sealed
from ..recording.needs import CaseNeeds, tests_module
from ..recording.sealing import UnsignableCassette
from ..recording.signing import SignatureRefused, TrustedKeys
from ..recording.unplayed import StaleTally, size_of
from .owners import CassetteOwner, cassette_files, owners_of
from .stale import Stale, page_urls, staleness


@dataclass(frozen=True)
class Found:
    """A stale entry of a listing and its size in the file, in bytes."""

    stale: Stale
    size: int

    def line(self) -> str:
        """``  judge call for '…' (1.2 KB)``."""
        return f"  {self.stale.what} ({size_of(self.size)})"


@dataclass
class Pruned:
    """One cassette: what of it is stale, what was kept untold, or why it was not pruned."""

    cassette: Path
    shown: str
    found: list[Found] = field(default_factory=list)
    unsure: list[str] = field(default_factory=list)
    #: The whole file is stale: why (and ``recordings``, ``size`` are the whole file's).
    whole: str = ""
    #: The whole file is kept, untold: why.
    kept: str = ""
    #: Why it could not be pruned (unreadable, refused, its layout, a failed write).
    problem: str = ""
    #: Recordings and bytes of a file stale whole.
    whole_recordings: int = 0
    whole_size: int = 0
    #: The SHA-256 of the bytes read, so that a write never replaces a file changed since.
    digest: str = ""
    #: Written (or deleted) by :func:`write_pruned`.
    written: bool = False

    @property
    def recordings(self) -> int:
        """How many stale recordings (interactions and retrieval choices) it holds."""
        return self.whole_recordings if self.whole else sum(f.stale.count for f in self.found)

    @property
    def size(self) -> int:
        """The bytes of its stale recordings."""
        return self.whole_size if self.whole else sum(found.size for found in self.found)

    def lines(self) -> list[str]:
        """Its listing: a head line, each stale entry, what was kept untold."""
        held = f"{counted(self.recordings, 'recording')}, {size_of(self.size)}"
        if self.problem:
            head = f"{self.shown}: not pruned: {self.problem}"
        elif self.whole:
            done = "deleted" if self.written else "stale whole"
            head = f"{self.shown}: {done} ({held}): {self.whole}"
        elif self.kept:
            head = f"{self.shown}: kept, could not tell: {self.kept}"
        elif self.found:
            done = "removed " if self.written else ""
            stale = counted(self.recordings, "stale recording")
            head = f"{self.shown}: {done}{stale} ({size_of(self.size)}):"
        else:
            head = f"{self.shown}: nothing stale"
        found = [] if self.problem or self.whole else [found.line() for found in self.found]
        return [head, *found, *(f"  kept, could not tell: {note}" for note in self.unsure)]


def _bytes(text: str, span: tuple[int, int]) -> int:
    return len(text[span[0] : span[1]].encode("utf-8"))


def _sized(stale: Sequence[Stale], text: str, spans: EntrySpans) -> list[Found]:
    return [
        Found(
            entry,
            sum(_bytes(text, spans.interactions[at]) for at in entry.interactions)
            + sum(_bytes(text, spans.choices[at]) for at in entry.choices),
        )
        for entry in stale
    ]


def _whole(pruned: Pruned, raw: bytes, why: str) -> Pruned:
    """A cassette stale whole: its recordings counted (one, when it cannot be read)."""
    pruned.whole, pruned.whole_size = why, len(raw)
    try:
        interactions, section = read_cassette(raw)
        pruned.whole_recordings = len(interactions) + len(parse_choices(section))
    except CassetteContentError:
        pruned.whole_recordings = 1
    return pruned


class Pruner:
    """Finds what is stale in cassettes, replaying the recorded pages it needs (through the
    fetch rules, offline) only for the cassettes that need them."""

    def __init__(
        self,
        settings: Settings,
        cassette_dir: Path,
        root: Path,
        *,
        vcr_config: VcrConfig | None = None,
        backends: Backends | None = None,
        trust: TrustedKeys | None = None,
    ) -> None:
        # Pages only: the lexical embedder is never asked, and needs no model to exist.
        self.settings = settings.replace(embedding_model="lexical")
        self.cassette_dir = cassette_dir
        self.root = root
        self.config = vcr_config or build_vcr(self.settings.redactor())
        self.backends = backends or Backends()
        self.trust = trust
        self._stack = contextlib.AsyncExitStack()
        self._replayer: Replayer | None = None

    async def __aenter__(self) -> Pruner:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self._stack.aclose()

    async def _pages(self, path: Path, urls: list[str]) -> dict[str, str]:
        if not urls:
            return {}
        if self._replayer is None:
            replayer = Replayer(self.settings, self.config, self.backends, {}, self.root)
            self._replayer = await self._stack.enter_async_context(replayer)
        pages = await self._replayer.pages(path, urls)
        return {url: page.markdown for url, (page, _, _) in pages.items() if page is not None}

    async def prune(self, owner: CassetteOwner) -> Pruned:
        """What of one cassette is stale (see the module docstring)."""
        pruned = Pruned(owner.cassette, shown(owner.cassette, self.root))
        try:
            raw = owner.cassette.read_bytes()
        except OSError as error:
            pruned.problem = f"it cannot be opened ({error.strerror or type(error).__name__})"
            return pruned
        pruned.digest = hashlib.sha256(raw).hexdigest()
        if owner.source is None:
            if owner.missing is None:
                pruned.problem = owner.problem
                return pruned
            module = tests_module(owner.cassette, self.cassette_dir, self.root)
            if module is None:
                case_file = shown(owner.missing, self.root)
                return _whole(pruned, raw, f"no case file {case_file} records into it")
            pruned.kept = f"it may be a test's cassette, of {module} (no case file records into it)"
            return pruned
        try:
            await self._stale(pruned, owner, raw)
        except (CassetteContentError, SignatureRefused, CitationsError) as error:
            pruned.problem = error.problem if isinstance(error, SignatureRefused) else str(error)
            pruned.found, pruned.unsure = [], []
        return pruned

    async def _stale(self, pruned: Pruned, owner: CassetteOwner, raw: bytes) -> None:
        assert owner.source is not None
        interactions, section = read_cassette(raw, self.trust.check if self.trust else None)
        choices = parse_choices(section)
        needs = CaseNeeds.of(claim.request for claim in owner.source.claims)
        pages = await self._pages(owner.cassette, page_urls(choices, needs))
        found = staleness(interactions, choices, needs, pages)
        pruned.unsure = found.unsure
        if found.stale:
            text = raw.decode("utf-8")
            spans = entry_spans(text)
            check_editable(spans, found.interactions, found.choices)  # refused now, if ever
            pruned.found = _sized(found.stale, text, spans)


def _write(pruned: Pruned) -> None:
    raw = pruned.cassette.read_bytes()
    if hashlib.sha256(raw).hexdigest() != pruned.digest:
        raise CassetteContentError("it changed while it was pruned: run prune again")
    if pruned.whole:
        pruned.cassette.unlink()
        return
    text = raw.decode("utf-8")
    interactions = {at for found in pruned.found for at in found.stale.interactions}
    choices = {at for found in pruned.found for at in found.stale.choices}
    write_atomically(pruned.cassette, sealed(without_entries(text, interactions, choices)))


def write_pruned(pruned: Pruned) -> None:
    """Take out of its file what ``pruned`` found stale (see the module docstring); a
    failure leaves the file as it was and becomes its ``problem``."""
    if pruned.problem or not pruned.recordings:
        return
    try:
        _write(pruned)
    except (OSError, CassetteContentError, UnsignableCassette, CitationsError) as error:
        pruned.problem = (
            f"it cannot be written ({error.strerror or type(error).__name__})"
            if isinstance(error, OSError) and not isinstance(error, CitationsError)
            else str(error)
        )
        return
    pruned.written = True


async def prune_cassettes(
    paths: Sequence[Path],
    settings: Settings,
    cassette_dir: Path,
    root: Path,
    *,
    write: bool = False,
    vcr_config: VcrConfig | None = None,
    backends: Backends | None = None,
    trust: TrustedKeys | None = None,
) -> list[Pruned]:
    """What is stale in each cassette among ``paths`` (folders searched), in order, taken
    out with ``write``. ``settings`` give the fetch settings the pages were recorded with.
    With ``trust``, a cassette the keys refuse is not pruned (a write would seal an edit).
    Raises ``FileNotFoundError`` for a path that does not exist."""
    owners = owners_of(cassette_files(paths), cassette_dir, root)
    async with Pruner(
        settings, cassette_dir, root, vcr_config=vcr_config, backends=backends, trust=trust
    ) as pruner:
        found = [await pruner.prune(owner) for owner in owners]
    if write:
        for pruned in found:
            write_pruned(pruned)
    return found


def tally(found: Sequence[Pruned]) -> StaleTally:
    """The totals of a listing."""
    stale = [pruned for pruned in found if pruned.recordings and not pruned.problem]
    return StaleTally(
        sum(p.recordings for p in stale), len(stale), sum(pruned.size for pruned in stale)
    )
