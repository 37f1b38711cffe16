"""The ``retrieval:`` section of a cassette: for each judge call, which passages of the
recorded page the judge was shown and why (their pieces of the page text, their scores, and
the settings that chose them), and how many times the judge was asked about them, readable
in review. A replay reads it instead of running a model."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from ..pipeline.recall import ChoiceKey
from ..retrieval.selection import Chooser, Selection, Shown
from .files import CassetteContentError

_PIECE = re.compile(r"^\s*(\d+)-(\d+)\s*$")


def choice_document(key: ChoiceKey, selection: Selection) -> dict[str, Any]:
    """One entry of the section; ``votes`` only when the judge was asked more than once."""
    entry: dict[str, Any] = {
        "claim": key.claim,
        "url": key.url,
        "page": key.page,
        "chose": selection.chooser.to_dict(),
        "shown": [
            {
                "pieces": ", ".join(f"{start}-{end}" for start, end in shown.pieces),
                "score": shown.score,
                "starts": shown.starts,
            }
            for shown in selection.shown
        ],
    }
    if selection.votes is not None and selection.votes != 1:
        entry["votes"] = selection.votes
    return entry


def choices_document(choices: Mapping[ChoiceKey, Selection]) -> list[dict[str, Any]]:
    """The section, in the order the choices were made."""
    return [choice_document(key, selection) for key, selection in choices.items()]


def _piece_list(raw: Any, what: str) -> tuple[tuple[int, int], ...]:
    if not isinstance(raw, str):
        raise CassetteContentError(f"the pieces of {what} are not text")
    found = []
    for part in raw.split(","):
        match = _PIECE.match(part)
        if match is None:
            raise CassetteContentError(f"the pieces of {what} are not START-END spans")
        start, end = int(match.group(1)), int(match.group(2))
        if not start < end:
            raise CassetteContentError(f"a piece of {what} is empty")
        found.append((start, end))
    return tuple(found)


def _choice(number: int, item: Any) -> tuple[ChoiceKey, Selection]:
    what = f"retrieval choice {number}"
    if not isinstance(item, dict):
        raise CassetteContentError(f"{what} is not a mapping")
    try:
        key = ChoiceKey(str(item["claim"]), str(item["url"]), str(item["page"]))
        chooser = Chooser.from_dict(item["chose"])
        shown = tuple(
            Shown(
                _piece_list(entry["pieces"], what),
                float(entry["score"]),
                str(entry.get("starts") or ""),
            )
            for entry in item["shown"]
        )
    # OverflowError: a hand-edited ``.inf`` where a choice holds a whole number
    except (KeyError, TypeError, ValueError, AttributeError, OverflowError) as error:
        raise CassetteContentError(f"{what} is not readable ({type(error).__name__})") from None
    votes = item.get("votes")
    if votes is not None and (isinstance(votes, bool) or not isinstance(votes, int) or votes < 1):
        raise CassetteContentError(f"the votes of {what} are not a whole number of at least 1")
    return key, Selection(shown, chooser, votes)


def parse_choices(raw: Iterable[Any] | None) -> dict[ChoiceKey, Selection]:
    """The section read back (an absent section is an empty one)."""
    if raw is None:
        return {}
    if not isinstance(raw, list):
        raise CassetteContentError("its 'retrieval' is not a list")
    found: dict[ChoiceKey, Selection] = {}
    numbers: dict[ChoiceKey, int] = {}
    for number, item in enumerate(raw, start=1):
        key, selection = _choice(number, item)
        if key in found:
            raise CassetteContentError(
                f"retrieval choices {numbers[key]} and {number} are both for the claim "
                f"{key.claim!r} against {key.url} on one page (a recording makes one)"
            )
        found[key], numbers[key] = selection, number
    return found
