"""What a case file's cassette holds that no replay of the case file uses any more, decided
without a model and without the network, from the case file and the cassette alone:

- a **retrieval choice** is needed while its claim still cites (or its case still
  retrieved) its URL;
- a **fetch** (a Crawling API call, its JavaScript and readability retries included) is
  needed while some claim of the file cites or retrieved its URL, in the form the fetcher
  requests it; a **stored page read** while a kept fetch stored that page;
- a **judge call** is needed when a replay would send its body. Its user message names the
  claim (:func:`~pytest_citations.judges.prompt.user_message`): a call for a claim the file
  no longer holds is stale, a joint call included. For a claim the file holds that no
  longer cites some URL, the recorded pages (read through the fetch rules, as a replay
  reads them) give the passages of each of its choices: a call is stale when it carries
  only the passages of dropped URLs, a joint call when it is not one that judges two or
  more of its still-cited pages together. A claim's votes are identical calls: they go, or
  stay, together.

Whatever cannot be told (a call that no choice names, a page that cannot be read, a request
of another kind) is kept and said, never removed."""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from ..judges.prompt import (
    JOINT_SYSTEM_PROMPT,
    joint_user_message,
    neutralize_fences,
    user_message,
)
from ..labels import counted
from ..pipeline.recall import ChoiceKey
from ..recording.files import Interaction
from ..recording.needs import CaseNeeds, judge_message, stored_pages, stored_read
from ..recording.pages import body_strings, body_text, crawl_target, is_judge_call
from ..retrieval.selection import Selection, page_digest
from ..sanitize import strip_controls

#: Claims are shown up to this many characters in a listing.
SHOWN_CLAIM = 80


def shown_claim(claim: str) -> str:
    """A claim as a listing shows it: quoted, cut at :data:`SHOWN_CLAIM` characters."""
    cut = claim if len(claim) <= SHOWN_CLAIM else claim[: SHOWN_CLAIM - 1] + "…"
    return repr(cut)


def shown_text(text: str) -> str:
    """A URL or a rid from a cassette (a file a pull request can edit) as one line of a
    listing: no control sequence, line breaks written as escapes."""
    return strip_controls(text).replace("\n", "\\n").replace("\t", "\\t")


@dataclass(frozen=True)
class Stale:
    """Recordings no replay uses, as one line of a listing: what they were, and their
    positions (interactions and retrieval entries, counted from 0)."""

    what: str
    interactions: tuple[int, ...] = ()
    choices: tuple[int, ...] = ()

    @property
    def count(self) -> int:
        """How many recordings it stands for."""
        return len(self.interactions) + len(self.choices)


@dataclass
class Staleness:
    """What of one cassette is stale, and what was kept because it could not be told."""

    stale: list[Stale] = field(default_factory=list)
    unsure: list[str] = field(default_factory=list)

    @property
    def interactions(self) -> frozenset[int]:
        """The positions of every stale interaction."""
        return frozenset(at for found in self.stale for at in found.interactions)

    @property
    def choices(self) -> frozenset[int]:
        """The positions of every stale retrieval entry."""
        return frozenset(at for found in self.stale for at in found.choices)


def page_urls(choices: Mapping[ChoiceKey, Selection], needs: CaseNeeds) -> list[str]:
    """The URLs whose recorded pages tell which judge calls are stale: those of the choices
    of every claim the file still holds but no longer cites some URL of."""
    touched = {
        neutralize_fences(key.claim)
        for key in choices
        if not needs.needs_choice(key) and neutralize_fences(key.claim) in needs.claims
    }
    return list(dict.fromkeys(k.url for k in choices if neutralize_fences(k.claim) in touched))


#: A claim citing more URLs than this has its joint calls kept untold: each subset of two
#: or more of its pages may be what a replay judges jointly.
MAX_JOINT_SOURCES = 8


class _Choices:
    """A cassette's choices: which are needed, and, for the claims that dropped a URL (whose
    pages were read, :func:`page_urls`), the user messages a replay may send."""

    def __init__(
        self, choices: Mapping[ChoiceKey, Selection], needs: CaseNeeds, pages: Mapping[str, str]
    ) -> None:
        self.keys = list(choices)
        self.needed = [needs.needs_choice(key) for key in self.keys]
        #: Claims (fences inert) the file holds with a choice no longer needed.
        self.touched = {
            neutralize_fences(key.claim)
            for at, key in enumerate(self.keys)
            if not self.needed[at] and neutralize_fences(key.claim) in needs.claims
        }
        self.messages: dict[int, str] = {}
        passages: dict[tuple[str, str], list[str]] = {}
        for at, (key, selection) in enumerate(choices.items()):
            markdown = pages.get(key.url)
            if markdown is None or page_digest(markdown) != key.page:
                continue
            if selection.fits(markdown):
                passages[(key.claim, key.url)] = selection.texts(markdown)
                self.messages[at] = user_message(key.claim, passages[(key.claim, key.url)])
        #: Of the touched claims, those with a needed choice whose message is not known.
        self.untold = {
            neutralize_fences(key.claim)
            for at, key in enumerate(self.keys)
            if self.needed[at] and at not in self.messages
        } & self.touched
        self.joint = self._joint(needs, passages)

    def _joint(self, needs: CaseNeeds, passages: dict[tuple[str, str], list[str]]) -> set[str]:
        """Every joint user message a replay may send for a touched claim: its cited pages'
        passages, two or more of them in citation order. A claim citing too many pages to
        list them all is untold."""
        found: set[str] = set()
        for claim, urls in needs.cited:
            if neutralize_fences(claim) not in self.touched:
                continue
            sources = [passages[(claim, url)] for url in urls if (claim, url) in passages]
            if len(sources) > MAX_JOINT_SOURCES:
                self.untold.add(neutralize_fences(claim))
                continue
            for size in range(2, len(sources) + 1):
                found.update(
                    joint_user_message(claim, chosen)
                    for chosen in itertools.combinations(sources, size)
                )
        return found

    def carriers(self, strings: frozenset[str]) -> list[int]:
        """The choices whose user message a judge call's body holds."""
        return [at for at, message in self.messages.items() if message in strings]


@dataclass(frozen=True)
class _Call:
    """One recorded judge call, read: its kind, claim, user message and carriers."""

    noun: str
    claim: str
    message: str
    carriers: tuple[int, ...]

    @classmethod
    def read(cls, strings: frozenset[str], choices: _Choices) -> _Call | None:
        found = judge_message(strings)
        if found is None:
            return None
        joint = JOINT_SYSTEM_PROMPT in strings
        noun = "joint judge call" if joint else "judge call"
        carriers = () if joint else tuple(choices.carriers(strings))
        return cls(noun, found[1], found[0], carriers)

    @property
    def joint(self) -> bool:
        return self.noun != "judge call"

    def what(self, choices: _Choices) -> str:
        """What it was, for a listing."""
        url = choices.keys[self.carriers[0]].url if self.carriers else ""
        against = f" against {shown_text(url)}" if url else ""
        return f"{self.noun} for {shown_claim(self.claim)}{against}"

    def stale(self, needs: CaseNeeds, choices: _Choices) -> bool:
        """Whether no replay of the case file sends it (see the module docstring)."""
        if self.claim not in needs.claims:
            return True
        if self.claim not in choices.touched or self.claim in choices.untold:
            return False
        if self.joint:
            return self.message not in choices.joint
        return bool(self.carriers) and not any(choices.needed[at] for at in self.carriers)

    def untold(self, choices: _Choices) -> tuple[str, str] | None:
        """Its noun and why, kept, it could not be told needed (None: it is needed). Only
        the calls of a claim that dropped a URL need telling apart by their passages."""
        if not choices.keys:
            return (self.noun, "in a cassette without retrieval choices (not upgraded)")
        if self.claim not in choices.touched:
            return None
        if self.claim in choices.untold:
            return (self.noun, "whose recorded pages could not all be read")
        if not self.joint and not self.carriers:
            return (self.noun, "that no retrieval choice names")
        return None


def _fetches(interactions: Sequence[Interaction], needs: CaseNeeds, found: Staleness) -> None:
    """Stale fetches, one line a URL (its retries with it), then stale stored page reads: a
    read of a page only stale fetches stored."""
    stale: dict[str, list[int]] = {}
    for at, (request, _) in enumerate(interactions):
        target = crawl_target(request)
        if target is not None and needs.drops(target):
            stale.setdefault(target, []).append(at)
    stored = stored_pages(interactions, needs)
    for target, positions in stale.items():
        retries = f", {len(positions)} requests" if len(positions) > 1 else ""
        found.stale.append(Stale(f"fetch {shown_text(target)}{retries}", tuple(positions)))
    reads: dict[str, list[int]] = {}
    unknown = 0
    for at, interaction in enumerate(interactions):
        rid = stored_read(interaction)
        if rid is not None and rid not in stored:
            unknown += 1
        elif rid is not None and not stored[rid][1]:
            reads.setdefault(rid, []).append(at)
    for rid, positions in reads.items():
        what = f"stored page read of {shown_text(stored[rid][0])} (rid {shown_text(rid)})"
        found.stale.append(Stale(what, tuple(positions)))
    if unknown:
        found.unsure.append(
            f"{counted(unknown, 'stored page read')} of a page no fetch in the cassette stored"
        )


def _calls(
    interactions: Sequence[Interaction], needs: CaseNeeds, choices: _Choices, found: Staleness
) -> None:
    """Stale judge calls, identical calls (a claim's votes) on one line; and those kept
    untold, counted by why."""
    stale: dict[tuple[str, str], list[int]] = {}
    untold: dict[tuple[str, str], int] = {}
    for at, (request, _) in enumerate(interactions):
        if not is_judge_call(request):
            continue
        call = _Call.read(body_strings(body_text(request)), choices)
        if call is not None and call.stale(needs, choices):
            stale.setdefault((call.what(choices), call.message), []).append(at)
            continue
        why = ("judge call", "whose body names no claim") if call is None else call.untold(choices)
        if why is not None:
            untold[why] = untold.get(why, 0) + 1
    for (what, _), positions in stale.items():
        votes = f", {len(positions)} votes" if len(positions) > 1 else ""
        found.stale.append(Stale(what + votes, tuple(positions)))
    found.unsure += [f"{counted(count, noun)} {why}" for (noun, why), count in untold.items()]


def _others(interactions: Sequence[Interaction]) -> int:
    """Interactions that are neither a crawl, a stored page read nor a judge call."""
    return sum(
        1
        for interaction in interactions
        if crawl_target(interaction[0]) is None
        and not is_judge_call(interaction[0])
        and stored_read(interaction) is None
    )


def staleness(
    interactions: Sequence[Interaction],
    choices: Mapping[ChoiceKey, Selection],
    needs: CaseNeeds,
    pages: Mapping[str, str],
) -> Staleness:
    """What of a cassette's ``interactions`` and ``choices`` no replay of the case file
    uses (see the module docstring). ``pages`` holds the recorded markdown of the URLs
    :func:`page_urls` names (those it lacks are pages that could not be read)."""
    found = Staleness()
    _fetches(interactions, needs, found)
    known = _Choices(choices, needs, pages)
    _calls(interactions, needs, known, found)
    for at, key in enumerate(known.keys):
        if not known.needed[at]:
            what = f"choice {shown_claim(key.claim)} against {shown_text(key.url)}"
            found.stale.append(Stale(what, choices=(at,)))
    others = _others(interactions)
    if others:
        found.unsure.append(counted(others, "interaction of another kind"))
    return found
