"""Review edits carried over to the next import, claim by claim.

The claims an import writes are a function of the answer's text and citations
(:meth:`~pytest_citations.importing.answers.ImportedAnswer.claims`), so what the last import
wrote is known again from the case file's own ``answer:`` and ``citations:``. What the file
holds beyond that is the review: a claim marked ``general: true``, given ``expect:``,
``notes:`` or other sources, its text rewritten, split into several, or deleted.

Each reviewed claim is linked to the sentence it was reviewed from: its ``from:``, else its
own text when that is a sentence of the old answer, else the most similar sentence between
its linked neighbours. A sentence whose text (normalised) is in the new answer too keeps its
reviewed claims (their citations re-pointed at the new numbering, a ``from:`` written where
the text differs, so that the link is visible and survives the next import). A sentence not
in the new answer is changed, when the new answer has a new sentence in its place, or
removed; a changed sentence gets the new import's claim, without the old edits. A reviewed
claim linked to no sentence is the reviewer's own and stays after the claim it followed.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher
from typing import Any

from ..cases.claims import extract_claims
from .answers import AnswerClaim, ImportedAnswer
from .identity import claim_key, without_tracking
from .render import claim_entry, marker_key

#: How alike a rewritten claim and a sentence must be for the claim to count as reviewed
#: from it: the share of the shorter one's words that the other holds (a claim that adds a
#: condition to the sentence, or a half split from it, holds most of them).
SIMILAR = 0.5
_WORDS = re.compile(r"\w+")


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
    def imported(cls, answer: str, citations: Mapping[str, str]) -> Sentences:
        """What an import wrote for a case file's ``answer:`` and ``citations:`` (an answer
        without markers had every sentence cite every source)."""
        unmarked = not any(claim.markers for claim in extract_claims(answer))
        whole = ImportedAnswer(
            "", answer, dict(citations), whole_answer=unmarked and bool(citations)
        )
        return cls.of(whole.claims(), citations)

    @property
    def keys(self) -> list[str]:
        """Each sentence's identity."""
        return [claim_key(claim.text) for claim in self.claims]


@dataclass(frozen=True)
class ClaimsMerge:
    """The ``claims:`` of a case after the merge, and what changed."""

    entries: list[Any]
    #: Sentences whose review was kept (a deletion counts), and claims of the reviewer's own.
    kept_edits: int
    #: ``(old text, new text)`` of each sentence whose text changed.
    changed: tuple[tuple[str, str], ...]
    removed: tuple[str, ...]
    added: int
    #: Claims written as imported that cite nothing (still to be decided in review).
    uncited: int


def _text(entry: Any) -> str | None:
    text = entry.get("text") if isinstance(entry, Mapping) else entry
    return text if isinstance(text, str) and text.strip() else None


def _words(text: str) -> set[str]:
    return set(_WORDS.findall(text.lower()))


def _likeness(one: str, other: str) -> float:
    """The share of the shorter text's words that the longer one holds."""
    words, others = _words(one), _words(other)
    return len(words & others) / min(len(words), len(others)) if words and others else 0.0


def _most_similar(text: str, candidates: Sequence[str]) -> str | None:
    """The candidate most like ``text``, when alike enough; the first of equals."""
    best, score = None, SIMILAR
    for candidate in candidates:
        likeness = _likeness(text, candidate)
        if likeness > score or (best is None and likeness == score):
            best, score = candidate, likeness
    return best


def _links(reviewed: Sequence[Any], old: Sentences) -> list[str | None]:
    """The sentence (by key) each reviewed claim came from, None for the reviewer's own."""
    keys = old.keys
    first = {key: index for index, key in reversed(list(enumerate(keys)))}
    links: list[str | None] = []
    for entry in reviewed:
        origin = entry.get("from") if isinstance(entry, Mapping) else None
        text = _text(entry)
        if isinstance(origin, str) and origin.strip():
            links.append(claim_key(origin))
        else:
            links.append(claim_key(text) if text and claim_key(text) in first else None)
    for number, entry in enumerate(reviewed):
        text = _text(entry)
        if links[number] is not None or text is None:
            continue
        before = [first[link] for link in links[:number] if link in first]
        after = [first[link] for link in links[number + 1 :] if link in first]
        low, high = (before[-1] if before else 0), (after[0] if after else len(keys) - 1)
        candidates = keys[min(low, high) : max(low, high) + 1]
        found = _most_similar(text, [old.claims[first[key]].text for key in candidates])
        links[number] = claim_key(found) if found else None
    return links


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
    text = _text(entry)
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
    links = _links(reviewed, old)
    groups: dict[str, list[Any]] = {}
    for entry, link in zip(reviewed, links, strict=True):
        if link is not None:
            groups.setdefault(link, []).append(entry)
    imported: dict[str, list[Any]] = {}
    for key, fresh in zip(old.keys, old.entries, strict=True):
        imported.setdefault(key, []).append(fresh)
    edited = {key for key in {*groups, *imported} if groups.get(key, []) != imported.get(key, [])}
    own = _own(reviewed, links, set(new.keys))
    entries = [_carried(entry, None, old, new) for entry in own.get(None, [])]
    kept, uncited, seen = sum(map(len, own.values())), 0, set()
    for claim, key, fresh in zip(new.claims, new.keys, new.entries, strict=True):
        first = key not in seen
        seen.add(key)
        if key not in edited:
            entries.append(fresh)
            uncited += claim.uncited
        elif first:
            entries.extend(_carried(entry, claim.text, old, new) for entry in groups.get(key, []))
            kept += 1
        if first:
            entries.extend(_carried(entry, None, old, new) for entry in own.get(key, []))
    changed, removed, added = _changes(old, new)
    stale = [
        str(group[0].get("from"))
        for key, group in groups.items()
        if key not in imported and key not in seen and isinstance(group[0], Mapping)
    ]
    return ClaimsMerge(entries, kept, changed, (*removed, *stale), added, uncited)


def _own(
    reviewed: Sequence[Any], links: Sequence[str | None], surviving: set[str]
) -> dict[str | None, list[Any]]:
    """The reviewer's own claims, by the sentence whose claims they follow (None: first)."""
    own: dict[str | None, list[Any]] = {}
    anchor: str | None = None
    for entry, link in zip(reviewed, links, strict=True):
        if link is None:
            own.setdefault(anchor, []).append(entry)
        elif link in surviving:
            anchor = link
    return own


def _changes(old: Sentences, new: Sentences) -> tuple[tuple[tuple[str, str], ...], list[str], int]:
    """Sentences whose text changed (old, new), sentences removed, and how many are new."""
    old_keys, new_keys = old.keys, new.keys
    gone_keys, came_keys = set(old_keys) - set(new_keys), set(new_keys) - set(old_keys)
    changed: list[tuple[str, str]] = []
    removed: list[str] = []
    added = 0
    matcher = SequenceMatcher(None, old_keys, new_keys, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        gone = [old.claims[i].text for i in range(i1, i2) if old_keys[i] in gone_keys]
        came = [new.claims[j].text for j in range(j1, j2) if new_keys[j] in came_keys]
        changed.extend(zip(gone, came, strict=False))  # the rest: removed or added
        removed.extend(gone[len(came) :])
        added += max(0, len(came) - len(gone))
    return tuple(changed), removed, added
