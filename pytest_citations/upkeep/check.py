"""``pytest-citations cassettes check --retrieval``: what a re-record would change in
retrieval, before paying for it. Each recorded choice is made again with the installed model
from what the cassette holds (the recorded page, through the same fetch rules, and the
entry's claim and settings); every citation whose passages would now differ is listed, the
recorded pieces beside the new ones. Nothing is sent and nothing is written."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..drift.replay import Replayer
from ..fetchers import FetchResult
from ..labels import counted
from ..pipeline.backends import Backends
from ..pipeline.recall import ChoiceKey
from ..pipeline.settings import Settings
from ..recording import VcrConfig, build_vcr
from ..recording.files import CassetteContentError
from ..recording.pages import judge_bodies, read_recording
from ..recording.signing import SignatureRefused, TrustedKeys
from ..retrieval.index import PageIndex
from ..retrieval.lines import EVIDENCE_WORDS
from ..retrieval.passages import split_spans
from ..retrieval.retriever import Retriever
from ..retrieval.selection import Chooser, Selection
from .upgrade import chooser_of, pieces_of


@dataclass(frozen=True)
class Recheck:
    """A recorded choice whose passages retrieval here would not choose again: what it
    chooses now (None: nothing, or the page is not in the cassette, with ``problem``)."""

    key: ChoiceKey
    recorded: Selection
    now: Selection | None
    problem: str = ""

    def lines(self) -> list[str]:
        """The citation, then the recorded and the new passages."""
        head = f"  {self.key.claim!r} against {self.key.url}"
        if self.problem:
            return [f"{head}: {self.problem}"]
        now = f"{pieces_of(self.now)}  ({chooser_of(self.now)})" if self.now else "no passage"
        return [
            head,
            f"    recorded: {pieces_of(self.recorded)}  ({chooser_of(self.recorded)})",
            f"    now:      {now}",
        ]


@dataclass
class CheckedCassette:
    """One cassette checked: how many choices it holds and which would change."""

    cassette: str
    choices: int = 0
    changed: list[Recheck] = field(default_factory=list)
    #: It holds judge calls but no choice: the command that adds them (else empty).
    not_upgraded: str = ""
    #: Why it could not be checked at all.
    problem: str = ""

    @property
    def failed(self) -> bool:
        """Whether a re-record would change something here, or it could not be checked."""
        return bool(self.changed or self.not_upgraded or self.problem)

    def lines(self) -> list[str]:
        """``cassettes/cases/x.yaml: 4 choices, 1 would change:`` and each that would."""
        if self.problem:
            return [f"{self.cassette}: not checked: {self.problem}"]
        if self.not_upgraded:
            return [f"{self.cassette}: not upgraded: run {self.not_upgraded}"]
        if not self.choices:
            return [f"{self.cassette}: no retrieval choice to check (no judge call)"]
        head = f"{self.cassette}: {counted(self.choices, 'choice')}"
        if not self.changed:
            return [f"{head}, none would change"]
        lines = [f"{head}, {len(self.changed)} would change:"]
        for recheck in self.changed:
            lines += recheck.lines()
        return lines


class _Rechooser:
    """Retrieval as it runs here, one retriever per recorded setting, each page indexed
    once per setting and passage size."""

    def __init__(self, cache_dir: Path | None) -> None:
        self._cache_dir = cache_dir
        self._retrievers: dict[str, Retriever] = {}
        self._indexes: dict[tuple[str, str, int], PageIndex] = {}

    def choose(self, claim: str, page: FetchResult, chooser: Chooser) -> Selection | None:
        retriever = self._retrievers.get(chooser.setting)
        if retriever is None:
            retriever = Retriever.named(chooser.setting, self._cache_dir)
            self._retrievers[chooser.setting] = retriever
        place = (chooser.setting, page.digest, chooser.passage_words)
        if place not in self._indexes:
            self._indexes[place] = retriever.index(split_spans(page.text, chooser.passage_words))
        return retriever.choose(
            claim,
            self._indexes[place],
            chooser.top_k,
            markdown=page.text,
            setting=chooser.setting,
            passage_words=chooser.passage_words,
            evidence_words=_evidence_words(chooser),
        )

    def close(self) -> None:
        for retriever in self._retrievers.values():
            retriever.close()


def _evidence_words(chooser: Chooser) -> int:
    """The evidence words a re-record of a choice would use: the recorded ones, or, for a
    choice of the ranking before them (the top ``top_k`` passages), today's default."""
    return chooser.evidence_words if chooser.ranking >= 2 else EVIDENCE_WORDS


def _pieces(selection: Selection | None) -> list[tuple[tuple[int, int], ...]]:
    return [shown.pieces for shown in selection.shown] if selection is not None else []


async def check_cassette(replayer: Replayer, path: Path, again: _Rechooser) -> CheckedCassette:
    """Check one cassette's recorded choices against retrieval here."""
    checked = CheckedCassette(replayer.library.shown(path))
    try:
        interactions, choices = read_recording(path, replayer.trust)
    except (OSError, CassetteContentError, SignatureRefused) as error:
        checked.problem = (
            str(error)
            if not isinstance(error, OSError)
            else (f"it cannot be opened ({error.strerror or type(error).__name__})")
        )
        return checked
    if not choices:
        if judge_bodies(interactions):
            checked.not_upgraded = f"pytest-citations cassettes upgrade {checked.cassette}"
        return checked
    checked.choices = len(choices)
    pages = await replayer.pages(path, list(dict.fromkeys(key.url for key in choices)))
    for key, recorded in choices.items():
        page = pages[key.url][0]
        if page is None or page.digest != key.page:
            problem = "its recorded page is not in the cassette (recorded with other settings?)"
            checked.changed.append(Recheck(key, recorded, None, problem))
            continue
        now = again.choose(key.claim, page, recorded.chooser)
        if _pieces(now) != _pieces(recorded):
            checked.changed.append(Recheck(key, recorded, now))
    return checked


async def check_cassettes(
    paths: Sequence[Path],
    settings: Settings,
    *,
    vcr_config: VcrConfig | None = None,
    backends: Backends | None = None,
    root: Path | None = None,
    trust: TrustedKeys | None = None,
) -> list[CheckedCassette]:
    """Check each cassette (see :func:`check_cassette`), in order. ``settings`` give the
    fetch settings the pages were recorded with; the retrieval settings come from each
    recorded choice. The embedding models must be installed. With ``trust``, a cassette
    none of those keys signed is not checked, and says why."""
    backends = backends or Backends()
    config = vcr_config or build_vcr(settings.redactor())
    again = _Rechooser(settings.embedding_cache_dir)
    try:
        async with Replayer(settings, config, backends, {}, root, trust=trust) as replayer:
            return [await check_cassette(replayer, path, again) for path in paths]
    finally:
        again.close()
