"""``pytest-citations cassettes check``: whether each cassette replays as the recording it
claims to be, fast and without a model. A cassette is a file a pull request can edit; the
check finds, with the file and the retrieval entry, everything a replay refuses:

- a file the loader refuses (aliases, merge keys, a key given twice, numbers too long to
  read, two entries for one claim against one page);
- a recorded choice whose page the cassette does not hold, or that is not one its chooser
  could have made from that page (:func:`~pytest_citations.retrieval.validity.choice_problem`:
  pieces out of order, overlapping, or off the recorded ranking's units);
- a choice whose judge call the cassette does not hold, or whose ``votes`` disagree with the
  number of recorded calls that carry its passages;
- recorded judge calls that carry no choice's passages (a replay would choose them with the
  model), and judge calls in a cassette with no choice at all (not upgraded).

A judge call carries a choice's passages when its body holds the user message the judge is
sent for that claim and those passages (:func:`~pytest_citations.judges.prompt.user_message`,
the same for every provider). The recorded pages are read through the fetch rules offline,
as a replay reads them; nothing is sent, and nothing is written.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..drift.replay import Replayer
from ..errors import CitationsError
from ..judges.prompt import JOINT_SYSTEM_PROMPT, user_message
from ..labels import counted
from ..pipeline.backends import Backends
from ..pipeline.recall import ChoiceKey
from ..pipeline.settings import Settings
from ..recording import VcrConfig, build_vcr
from ..recording.files import CassetteContentError
from ..recording.pages import body_strings, judge_bodies, read_recording
from ..recording.signing import SignatureRefused, TrustedKeys
from ..retrieval.selection import Selection, page_digest
from ..retrieval.validity import choice_problem


@dataclass
class SoundCassette:
    """One cassette checked: its choices and judge calls, and what is wrong with it."""

    cassette: str
    choices: int = 0
    calls: int = 0
    problems: list[str] = field(default_factory=list)
    #: It holds judge calls but no choice: the command that adds them (else empty).
    not_upgraded: str = ""
    #: Why it could not be read at all (it cannot be opened, is damaged, or its signature is
    #: refused): nothing else of it was checked.
    unread: str = ""

    @property
    def failed(self) -> bool:
        """Whether a replay would refuse something here, or it is not upgraded."""
        return bool(self.problems or self.not_upgraded or self.unread)

    def lines(self) -> list[str]:
        """``cassettes/cases/x.yaml: 4 choices, 5 judge calls, sound`` or its problems."""
        if self.unread:
            return [f"{self.cassette}: not checked: {self.unread}"]
        if self.not_upgraded:
            return [f"{self.cassette}: not upgraded: run {self.not_upgraded}"]
        held = f"{counted(self.choices, 'choice')}, {counted(self.calls, 'judge call')}"
        if not self.problems:
            return [f"{self.cassette}: {held}, sound"]
        found = counted(len(self.problems), "problem")
        return [f"{self.cassette}: {held}, {found}:", *(f"  {p}" for p in self.problems)]


def _entry(number: int, key: ChoiceKey) -> str:
    return f"retrieval entry {number} ({key.claim!r} against {key.url})"


def _choice_problem(
    number: int, key: ChoiceKey, selection: Selection, markdown: str | None, calls: int
) -> str | None:
    what = _entry(number, key)
    if markdown is None or page_digest(markdown) != key.page:
        return f"{what}: its recorded page is not in the cassette"
    problem = choice_problem(markdown, selection)
    if problem is not None:
        return f"{what}: not a choice retrieval makes from the recorded page: {problem}"
    if not calls:
        return f"{what}: no recorded judge call carries its passages"
    if selection.votes is not None and selection.votes != calls:
        return (
            f"{what}: it says votes: {selection.votes}, and the recording holds "
            f"{counted(calls, 'judge call')} with its passages"
        )
    return None


async def check_soundness(replayer: Replayer, path: Path) -> SoundCassette:
    """Check one cassette (see the module docstring)."""
    checked = SoundCassette(replayer.library.shown(path))
    try:
        interactions, choices = read_recording(path, replayer.trust)
    except (OSError, CassetteContentError, SignatureRefused) as error:
        checked.unread = (
            f"it cannot be opened ({error.strerror or type(error).__name__})"
            if isinstance(error, OSError)
            else error.problem
            if isinstance(error, SignatureRefused)
            else str(error)
        )
        return checked
    bodies = judge_bodies(interactions)
    checked.choices, checked.calls = len(choices), len(bodies)
    if not choices:
        if bodies:
            checked.not_upgraded = f"pytest-citations cassettes upgrade {checked.cassette}"
        return checked
    try:
        pages = await replayer.pages(path, list(dict.fromkeys(key.url for key in choices)))
    except CitationsError as error:
        checked.problems.append(str(error))
        return checked
    texts = [body_strings(body) for body in bodies]
    carried = [False] * len(texts)
    for number, (key, selection) in enumerate(choices.items(), start=1):
        page = pages[key.url][0]
        markdown = page.markdown if page is not None else None
        message = None
        if markdown is not None and page_digest(markdown) == key.page:
            message = user_message(key.claim, selection.texts(markdown))
        held = [at for at, strings in enumerate(texts) if message in strings]
        for at in held:
            carried[at] = True
        problem = _choice_problem(number, key, selection, markdown, len(held))
        if problem is not None:
            checked.problems.append(problem)
    stray = sum(
        1
        for at, strings in enumerate(texts)
        if not carried[at] and JOINT_SYSTEM_PROMPT not in strings
    )
    if stray:
        checked.problems.append(
            f"{counted(stray, 'recorded judge call')} with passages no retrieval entry names "
            "(a replay would choose them again with the model)"
        )
    return checked


async def check_integrity(
    paths: Sequence[Path],
    settings: Settings,
    *,
    vcr_config: VcrConfig | None = None,
    backends: Backends | None = None,
    root: Path | None = None,
    trust: TrustedKeys | None = None,
) -> list[SoundCassette]:
    """Check each cassette (see :func:`check_soundness`), in order. ``settings`` give the
    fetch settings the pages were recorded with; no model is needed or loaded. With
    ``trust``, a cassette whose signature the keys refuse is a finding too."""
    backends = backends or Backends()
    # Pages only: the lexical embedder is never asked, and needs no model to exist.
    settings = settings.replace(embedding_model="lexical")
    config = vcr_config or build_vcr(settings.redactor())
    async with Replayer(settings, config, backends, {}, root, trust=trust) as replayer:
        return [await check_soundness(replayer, path) for path in paths]
