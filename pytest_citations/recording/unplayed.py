"""The run summary's count of stale recordings, from what the replay loaded and played: the
figure ``pytest-citations cassettes prune`` lists, without reading a case file again.

A replay plays what its case file needs, so a recording is stale only if it was not played
(or, a retrieval choice, not looked up); and of those, only what :mod:`.needs` tells stale
by name is (a fetch of a URL no claim cites, a judge call for a claim the file no longer
holds, a choice for a citation it no longer makes), as prune tells it: what prune keeps
(another vote of a held claim, a request of another kind) is not counted either. The
replay cannot vouch for the figure, and the summary says nothing, where prune would read
the recorded pages (a claim that dropped one of its URLs), where the file on disk may not
hold what was played where it was played (a hook left a recording out when it was read or
may when it is written; record modes ``all`` and ``rewrite``), and where a hook's looser
matching or rewritten requests may have played a recording for another request than the
one it names in the file. The cassette of a case file the run did not replay (another
folder of case files) is told by name from both files, as prune tells it; one whose case
file does not exist is stale whole, unless it may be a test's
(:func:`~.needs.tests_module`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ..cases import CaseFileError, iter_claims, load_cases
from ..errors import SignatureRefused
from ..judges.prompt import neutralize_fences
from ..labels import counted
from ..paths import shown
from ..pipeline.claimwork import ClaimRequest
from ..pipeline.recall import ChoiceKey
from .choices import parse_choices
from .files import CassetteContentError, Interaction, read_cassette
from .needs import CaseNeeds, judge_message, stored_pages, stored_read, tests_module
from .pages import body_strings, body_text, crawl_target, is_judge_call
from .scrub import MATCH_ON, rewrites_requests
from .session import CassetteSession, RecordMode

if TYPE_CHECKING:
    from .signing import TrustedKeys


def size_of(size: int) -> str:
    """A size in bytes as a listing shows it: ``812 B``, ``1.2 KB``, ``3.4 MB``."""
    if size < 1024:
        return f"{size} B"
    if size < 1024 * 1024:
        return f"{size / 1024:.1f} KB"
    return f"{size / 1024 / 1024:.1f} MB"


@dataclass(frozen=True)
class StaleTally:
    """How much is stale in a cassette folder: the run summary's line."""

    recordings: int
    cassettes: int
    size: int

    def line(self, command: str) -> str | None:
        """``3 stale recordings in 2 cassettes (4.1 KB): COMMAND lists them`` (None when
        nothing is stale)."""
        if not self.recordings:
            return None
        return (
            f"{counted(self.recordings, 'stale recording')} in "
            f"{counted(self.cassettes, 'cassette')} ({size_of(self.size)}): {command} lists them"
        )


def prune_command(cassette_dir: Path, root: Path) -> str:
    """The command that lists what is stale in ``cassette_dir``, run from ``root``."""
    folder = shown(cassette_dir, root)
    words = ["pytest-citations", "cassettes", "prune", folder.rstrip("/") + "/"]
    if cassette_dir.resolve() != (root / "cassettes").resolve():
        words += ["--cassette-dir", folder]
    return " ".join(words)


#: One cassette's stale recordings and their bytes in the file.
Unplayed = tuple[int, int]


def _stale_interactions(
    loaded: Sequence[Interaction], left: Sequence[int], needs: CaseNeeds
) -> list[int]:
    """Of the interactions the replay did not play (``left``), those stale by name."""
    stale: list[int] = []
    stored: dict[str, tuple[str, bool]] | None = None
    for at in left:
        request = loaded[at][0]
        target = crawl_target(request)
        if target is not None:
            stale += [at] if needs.drops(target) else []
        elif is_judge_call(request):
            found = judge_message(body_strings(body_text(request)))
            stale += [at] if found is not None and found[1] not in needs.claims else []
        elif (rid := stored_read(loaded[at])) is not None:
            stored = stored_pages(loaded, needs) if stored is None else stored
            stale += [at] if rid in stored and not stored[rid][1] else []
    return stale


def _told_apart(session: CassetteSession) -> bool:
    """Whether each recording answers the request it names, as prune reads it from the file:
    the cassette's matching compares all the plugin's does (a looser one lets a recording
    stale by name answer another claim's request) and no hook rewrites requests (a
    scrubbed claim names none the file holds)."""
    config = session.library.config
    if rewrites_requests(config):
        return False
    return all(config.matchers.get(name) in session.match_on for name in MATCH_ON)


def unplayed(session: CassetteSession, requests: Sequence[ClaimRequest]) -> Unplayed | None:
    """What of a case file's cassette its replay (of every claim in ``requests``) left
    stale, as prune lists it: (recordings, bytes); None when the replay cannot vouch for it
    (the session is closed: what it wrote is on disk)."""
    if not _told_apart(session):
        return None  # a recording may have answered another request than the one it names
    counts = session.cassette.play_counts
    loaded = session.loaded
    left = [at for at in range(len(loaded)) if not counts[at]]
    if not left and len(session.recalled) == len(session.loaded_choices):
        return (0, 0) if session.held == len(loaded) or not session.existed else None
    if session.library.record_mode in (RecordMode.ALL, RecordMode.REWRITE):
        return None  # what it writes is not what it read
    if session.held != len(loaded) or (session.may_record and session.save_hooks):
        return None  # a hook left out a recording when it was read, or may when written
    return _counted(session.path, None, loaded, left, list(session.loaded_choices), requests)


def _counted(
    path: Path,
    text: str | None,
    interactions: Sequence[Interaction],
    left: Sequence[int],
    keys: Sequence[ChoiceKey],
    requests: Sequence[ClaimRequest],
) -> Unplayed | None:
    """Of a cassette's interactions not played (``left``) and its choices (``keys``), what
    is stale by name for a case file's claims (``requests``), with its bytes in the file
    (its ``text``, read when None); None when the pages would have to tell."""
    needs = CaseNeeds.of(requests)
    choices = [at for at, key in enumerate(keys) if not needs.needs_choice(key)]
    if {neutralize_fences(keys[at].claim) for at in choices} & needs.claims:
        return None  # which calls of a claim that dropped a URL are stale takes its pages
    stale = _stale_interactions(interactions, left, needs)
    if not stale and not choices:
        return (0, 0)
    # Only a cassette with stale entries is measured: the reading of its text by entries
    # (prune's) loads here.
    from .entries import UneditableCassette, check_editable, entry_spans

    try:
        text = path.read_text("utf-8") if text is None else text
        spans = entry_spans(text)
        check_editable(spans, stale, choices)
    except (OSError, UnicodeDecodeError):
        return None
    except UneditableCassette:
        return (0, 0)  # prune says why it cannot take them out, and counts none
    size = sum(
        len(text[start:end].encode("utf-8"))
        for start, end in [
            *(spans.interactions[at] for at in stale),
            *(spans.choices[at] for at in choices),
        ]
    )
    return (len(stale) + len(choices), size)


def _not_replayed(cassette: Path, case_file: Path, trust: TrustedKeys | None) -> Unplayed | None:
    """What is stale in the cassette of a case file the run did not replay (another folder
    of case files than the run's), told by name from the case file and the cassette."""
    try:
        cases = load_cases(case_file)
        raw = cassette.read_bytes()
        interactions, section = read_cassette(raw, trust.check if trust is not None else None)
        keys = list(parse_choices(section))
        text = raw.decode("utf-8")
    except (CaseFileError, OSError, CassetteContentError, SignatureRefused):
        return (0, 0)  # prune says why it cannot prune it, and counts none
    except UnicodeDecodeError:
        return None
    requests = [
        ClaimRequest.of(claim.text, claim.urls, case.retrieved)
        for case, claim in iter_claims(cases)
    ]
    return _counted(cassette, text, interactions, range(len(interactions)), keys, requests)


def _whole(cassette: Path) -> Unplayed:
    """A cassette stale whole: its recordings (one, when it cannot be read) and bytes."""
    try:
        raw = cassette.read_bytes()
    except OSError:
        return (0, 0)  # prune cannot open it: not counted
    try:
        interactions, section = read_cassette(raw)
        count = len(interactions) + len(parse_choices(section))
    except CassetteContentError:
        count = 1
    return (count, len(raw))


def folder_tally(
    cassette_dir: Path,
    root: Path,
    played: Mapping[str, Unplayed | None],
    trust: TrustedKeys | None = None,
) -> StaleTally | None:
    """How much is stale in the whole cassette folder, from what each case file's replay
    left unplayed (``played``, by the cassette's resolved path); None when the run cannot
    vouch for it (see the module docstring). ``trust``: the keys a cassette must be signed
    by, as the run reads them."""
    if not cassette_dir.is_dir():
        return StaleTally(0, 0, 0)
    found: list[Unplayed] = []
    folder = cassette_dir.resolve()
    paths = sorted({*cassette_dir.rglob("*.yaml"), *cassette_dir.rglob("*.yml")})
    for cassette in paths:
        resolved = cassette.resolve()
        if str(resolved) in played:
            known = played[str(resolved)]
            if known is None:
                return None
            found.append(known)
        elif not resolved.is_relative_to(folder):
            continue  # prune cannot prune it either
        elif (case_file := root / resolved.relative_to(folder)).is_file():
            known = _not_replayed(cassette, case_file, trust)
            if known is None:
                return None
            found.append(known)
        elif tests_module(cassette, cassette_dir, root) is None:
            found.append(_whole(cassette))
    stale = [(count, size) for count, size in found if count]
    return StaleTally(sum(c for c, _ in stale), len(stale), sum(s for _, s in stale))
