"""Review edits carried over to the next import, claim by claim.

The claims an import writes are a function of the answer's text and citations
(:meth:`~pytest_citations.importing.answers.ImportedAnswer.claims`), so what the last import
wrote is known again from the case file's own ``answer:`` and ``citations:``. What the file
holds beyond that is the review: a claim marked ``general: true``, given ``expect:``,
``notes:`` or other sources, its text rewritten, split into several, or deleted.

Each reviewed claim is linked to the sentence it was reviewed from (:mod:`.links`): its
``from:``, else its own text when that is a sentence of the old answer, else the most similar
sentence, in the answer's order; the n-th copy of a sentence the answer holds twice is a
sentence of its own. A sentence that the new answer says too, in the same words (as a
reviewer reads them: :func:`~.identity.claim_key`) and citing the same pages (tracking
parameters aside), keeps its reviewed claims (their citations re-pointed at the new
numbering, a ``from:`` written where the text differs, so that the link is visible and
survives the next import). A sentence not in the new answer (its words or its pages
changed) is changed, when the new answer has a new sentence in its place, or removed; a
changed sentence gets the new import's claim, without the old edits: a review of a claim
against one page says nothing of it against another. A reviewed
claim linked to no sentence is the reviewer's own and stays after the claim it followed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher
from typing import Any

from ..cases.claims import extract_claims
from .answers import AnswerClaim, ImportedAnswer
from .formats import Document
from .identity import claim_key, without_tracking
from .links import Link, claim_text, links
from .render import claim_entry, marker_key, reviewed_part

#: What makes a sentence the same in the next answer: its text and the pages it cites.
Identity = tuple[str, frozenset[str]]


@dataclass(frozen=True)
class Sentences:
    """The claims an import writes for one answer: the sentences, their entries of
    ``claims:``, and marker -> URL."""

    claims: tuple[AnswerClaim, ...]
    entries: tuple[dict[str, Any], ...]
    citations: Mapping[str, str]

    @classmethod
    def of(cls, claims: Sequence[AnswerClaim], citations: Mapping[str, str]) -> Sentences:
        """The sentences and the entries the import writes for them."""
        return cls(tuple(claims), tuple(map(claim_entry, claims)), citations)

    @classmethod
    def imported(
        cls, answer: str, citations: Mapping[str, str], documents: Mapping[str, str] = {}
    ) -> Sentences:
        """What an import wrote for a case file's ``answer:`` and ``citations:`` (an answer
        without markers had every sentence cite every source; ``documents``: the cited
        documents without a URL, by marker)."""
        unmarked = not any(claim.markers for claim in extract_claims(answer))
        whole = ImportedAnswer(
            "",
            answer,
            dict(citations),
            whole_answer=unmarked and bool(citations),
            documents={marker: Document(name) for marker, name in documents.items()},
        )
        return cls.of(whole.claims(), citations)

    @property
    def keys(self) -> list[str]:
        """Each sentence's text, as reviewed claims name it (:func:`~.identity.claim_key`)."""
        return [claim_key(claim.text) for claim in self.claims]

    @property
    def identities(self) -> list[Identity]:
        """What makes each sentence the same in the next answer: its text and the pages it
        cites (without tracking parameters). A sentence that cites another page says
        something else: its review was of the claim against the old page."""
        return [
            (key, frozenset(without_tracking(url) for url in claim.urls))
            for key, claim in zip(self.keys, self.claims, strict=True)
        ]


@dataclass(frozen=True)
class ClaimsMerge:
    """The ``claims:`` of a case after the merge, and what changed."""

    entries: list[Any]
    #: Sentences whose review was kept (a deletion counts), and claims of the reviewer's own.
    kept_edits: int
    #: The old and the new sentence of each one that changed (its text, or the pages it
    #: cites).
    changed: tuple[tuple[AnswerClaim, AnswerClaim], ...]
    removed: tuple[str, ...]
    added: int
    #: Claims written as imported that cite nothing (still to be decided in review).
    uncited: int


def _places(old: Sequence[Identity], new: Sequence[Identity]) -> list[int | None]:
    """For each new sentence, the place of the same sentence in the old answer (the n-th
    time it stands there for its n-th time here), None for a sentence new to the answer."""
    found: dict[Identity, list[int]] = {}
    for place, key in enumerate(old):
        found.setdefault(key, []).append(place)
    seen: dict[Identity, int] = {}
    places: list[int | None] = []
    for key in new:
        count = seen[key] = seen.get(key, -1) + 1
        candidates = found.get(key, [])
        places.append(candidates[count] if count < len(candidates) else None)
    return places


def _repointed(cites: Any, old: Mapping[str, str], new: Mapping[str, str]) -> Any:
    """The cites of a kept claim, each marker re-pointed at the marker its URL has now (the
    URL itself when the new answer does not cite it; URLs compared without tracking
    parameters, as the import writes them); unchanged when nothing moved."""
    listed = cites if isinstance(cites, list) else [cites]
    markers: dict[str, str] = {}
    for marker, url in new.items():
        markers.setdefault(without_tracking(url), marker)
    moved = []
    for cite in listed:
        marker = str(cite).strip().strip("[]").strip()
        literal = cite.strip() if isinstance(cite, str) and "://" in cite else None
        cited = old.get(marker) or literal
        target = markers.get(without_tracking(cited)) if cited else None
        if cited is None or target == marker or (target is None and cite == cited):
            moved.append(cite)
        elif target is None:
            moved.append(cited)
        else:
            moved.append(marker_key(target))
    return moved if moved != listed else cites


def _carried(entry: Any, origin: str | None, old: Sentences, new: Sentences) -> Any:
    """A reviewed claim as it is kept: citations re-pointed, ``from:`` written when its text
    is not the sentence's."""
    text = claim_text(entry)
    linked = origin is not None and text is not None and claim_key(text) != claim_key(origin)
    if not isinstance(entry, Mapping):
        return {"text": entry, "from": origin} if linked else entry
    carried: dict[Any, Any] = {}
    for key, value in entry.items():
        if key == "cites":
            value = _repointed(value, old.citations, new.citations)
        carried[key] = value
        if key == "text" and linked and "from" not in entry:
            carried["from"] = origin
    return carried


def merge_claims(reviewed: Sequence[Any], old: Sentences, new: Sentences) -> ClaimsMerge:
    """The reviewed ``claims:`` of a case carried over to the claims of its new answer."""
    linked = links(reviewed, old.keys, [claim.text for claim in old.claims])
    groups: dict[int | str, list[Any]] = {}
    for entry, origin in zip(reviewed, linked, strict=True):
        if origin is not None:
            groups.setdefault(origin, []).append(entry)
    places = _places(old.identities, new.identities)
    own = _own(reviewed, linked, {place for place in places if place is not None})
    entries = [_carried(entry, None, old, new) for entry in own.get(None, [])]
    kept, uncited, done = sum(map(len, own.values())), 0, set()
    for claim, key, fresh, place in zip(new.claims, new.keys, new.entries, places, strict=True):
        group: int | str = key if place is None else place
        if place is None:  # a new sentence, kept only when a from: names it already
            edited = key in groups and key not in done
        else:
            edited = list(map(reviewed_part, groups.get(place, []))) != [
                reviewed_part(old.entries[place])
            ]
        if edited:
            entries.extend(_carried(entry, claim.text, old, new) for entry in groups.get(group, []))
            kept += 1
            done.add(key)
        else:
            entries.append(fresh)
            uncited += claim.uncited
        if place is not None:  # the reviewer's own claims after this sentence's
            entries.extend(_carried(entry, None, old, new) for entry in own.get(place, []))
    if not entries:  # every sentence left was deleted in review: a case needs a claim
        entries, kept = list(new.entries), 0
        uncited = sum(claim.uncited for claim in new.claims)
    changed, removed, added = _changes(old, new)
    stale = [
        str(entries_of[0].get("from"))
        for origin, entries_of in groups.items()
        if isinstance(origin, str) and origin not in new.keys and isinstance(entries_of[0], Mapping)
    ]
    return ClaimsMerge(entries, kept, changed, (*removed, *stale), added, uncited)


def _own(
    reviewed: Sequence[Any], links: Sequence[Link], surviving: set[int]
) -> dict[int | None, list[Any]]:
    """The reviewer's own claims, by the place of the sentence whose claims they follow
    (None: before every claim)."""
    own: dict[int | None, list[Any]] = {}
    anchor: int | None = None
    for entry, link in zip(reviewed, links, strict=True):
        if link is None:
            own.setdefault(anchor, []).append(entry)
        elif isinstance(link, int) and link in surviving:
            anchor = link
    return own


def _changes(
    old: Sentences, new: Sentences
) -> tuple[tuple[tuple[AnswerClaim, AnswerClaim], ...], list[str], int]:
    """Sentences that changed (old, new: their text, or the pages they cite), the text of
    those removed, and how many are new."""
    old_keys, new_keys = old.identities, new.identities
    gone_keys, came_keys = set(old_keys) - set(new_keys), set(new_keys) - set(old_keys)
    changed: list[tuple[AnswerClaim, AnswerClaim]] = []
    removed: list[str] = []
    added = 0
    matcher = SequenceMatcher(None, old_keys, new_keys, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        gone = [old.claims[i] for i in range(i1, i2) if old_keys[i] in gone_keys]
        came = [new.claims[j] for j in range(j1, j2) if new_keys[j] in came_keys]
        changed.extend(zip(gone, came, strict=False))  # the rest: removed or added
        removed.extend(claim.text for claim in gone[len(came) :])
        added += max(0, len(came) - len(gone))
    return tuple(changed), removed, added
