"""Which sentence of the old answer each reviewed claim came from.

A reviewed claim names its sentence by its ``from:``, else by its own text when that is a
sentence of the old answer; a claim that names none (rewritten or split before the import
wrote ``from:``) is like one in its words. The claims are aligned with the answer in order,
the alignment that links the most: so that of a sentence the answer holds twice, the one a
reviewer rewrote or deleted is told from the one left alone, however often the file is
merged again. A claim an ordered alignment cannot place (moved by the reviewer) takes a free
place of the sentence it names; one that names a sentence the old answer lacks keeps the
name; one that neither names nor is like a sentence is the reviewer's own.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from .identity import claim_key

#: How alike a rewritten claim and a sentence must be for the claim to count as reviewed
#: from it: the share of the shorter one's words that the other holds (a claim that adds a
#: condition to the sentence, or a half split from it, holds most of them).
SIMILAR = 0.5
#: Where a reviewed claim came from: the place of a sentence in the old answer, the key of a
#: sentence its ``from:`` names that the old answer lacks, or None (the reviewer's own).
Link = int | str | None
#: What linking a claim to a sentence is worth to the alignment: a claim that is the
#: sentence's own text takes a sentence of its own (a second one on the same sentence is
#: worth less than the next copy of it), a ``from:`` claim may share its sentence with the
#: other halves of a split; a claim only alike is worth its likeness (at most 1).
_OWN_TEXT, _SHARED_TEXT, _NAMED = 3.0, 1.0, 2.0
_NOWHERE = float("-inf")  # a state no alignment reaches
_WORDS = re.compile(r"\w+")


def claim_text(entry: Any) -> str | None:
    """The text of a reviewed claim (a mapping's ``text:`` or a bare string)."""
    text = entry.get("text") if isinstance(entry, Mapping) else entry
    return text if isinstance(text, str) and text.strip() else None


def _words(text: str) -> set[str]:
    return set(_WORDS.findall(text.lower()))


def _likeness(words: set[str], others: set[str]) -> float:
    """The share of the shorter text's words that the longer one holds."""
    return len(words & others) / min(len(words), len(others)) if words and others else 0.0


def _named(entry: Any, keys: set[str]) -> tuple[str, bool] | None:
    """The sentence a reviewed claim names, and whether by a ``from:``."""
    origin = entry.get("from") if isinstance(entry, Mapping) else None
    if isinstance(origin, str) and origin.strip():
        return claim_key(origin), True
    text = claim_text(entry)
    return (claim_key(text), False) if text and claim_key(text) in keys else None


def _worth(
    entry: Any, keys: Sequence[str], words: Sequence[set[str]]
) -> dict[int, tuple[float, float]]:
    """For each sentence (given by key and words) a claim may be linked to: what the link is
    worth when the claim is the first on that sentence, and when it shares it with the
    claim before."""
    named = _named(entry, set(keys))
    if named is not None:
        key, by_from = named
        fresh, shared = (_NAMED, _NAMED) if by_from else (_OWN_TEXT, _SHARED_TEXT)
        return {place: (fresh, shared) for place, found in enumerate(keys) if found == key}
    text = claim_text(entry)
    own = _words(text) if text else set()
    worth: dict[int, tuple[float, float]] = {}
    for place, sentence in enumerate(words):
        likeness = _likeness(own, sentence)
        if likeness >= SIMILAR:
            worth[place] = (likeness, likeness)
    return worth


def _aligned(
    worths: Sequence[Mapping[int, tuple[float, float]]], sentences: int
) -> list[int | None]:
    """The links, in the answer's order (each claim on the sentence of the claim before or
    a later one, or on none), worth the most together; of equals, the first found."""
    # After each claim, for each place of the last link (0: none yet, else place + 1): the
    # best worth so far, and the step that got there (the place before, the claim's link).
    best = [0.0] + [_NOWHERE] * sentences
    steps: list[list[tuple[int, int | None]]] = []
    for worth in worths:
        after = list(best)
        step: list[tuple[int, int | None]] = [(state, None) for state in range(len(best))]
        lead, leader = _NOWHERE, 0  # the best worth among the places before this one
        for state in range(1, len(best)):
            if best[state - 1] > lead:
                lead, leader = best[state - 1], state - 1
            if state - 1 in worth:
                fresh, shared = worth[state - 1]
                for total, before in ((best[state] + shared, state), (lead + fresh, leader)):
                    if total > after[state]:
                        after[state], step[state] = total, (before, state - 1)
        best = after
        steps.append(step)
    state = max(range(len(best)), key=lambda at: (best[at], -at))
    found: list[int | None] = []
    for step in reversed(steps):
        state, link = step[state]
        found.append(link)
    return found[::-1]


def links(reviewed: Sequence[Any], keys: Sequence[str], texts: Sequence[str]) -> list[Link]:
    """Where each reviewed claim came from, given the old answer's sentence keys and texts."""
    words = [_words(text) for text in texts]
    aligned = _aligned([_worth(entry, keys, words) for entry in reviewed], len(keys))
    free = [place for place in range(len(keys)) if place not in aligned]
    found: list[Link] = list(aligned)
    for number, entry in enumerate(reviewed):
        named = _named(entry, set(keys))
        if found[number] is not None or named is None:
            continue
        places = [place for place, key in enumerate(keys) if key == named[0]]
        spare = [place for place in free if place in places]
        if spare:
            free.remove(spare[0])
        found[number] = spare[0] if spare else places[-1] if places else named[0]
    return found
