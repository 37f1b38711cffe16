"""Where each entry of a cassette's text stands (each recorded interaction, each of
retrieval's choices), and the text with some of them taken out, every other byte kept: what
``pytest-citations cassettes prune --write`` writes before the file is sealed again.

Only block sequences are edited, by the offsets of their items: an item runs from the start
of the line of its ``-`` to the start of the next item's line (the last one to the next
top-level key), so that what stays is the text as it was, comments and layout included. The
edited text is read back and must be the document less exactly those entries; anything else
(a flow sequence, an item that shares its line with something else) is refused, never
rewritten another way.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

import yaml

try:  # libyaml's C composer: a 22 MB cassette in a fraction of a second
    from yaml import CSafeLoader as _Loader
except ImportError:  # pragma: no cover - PyYAML built without libyaml
    from yaml import SafeLoader as _Loader  # type: ignore[assignment]

from .files import CassetteContentError, load_yaml

#: What stands before an entry on its line: its indentation and the sequence's dash.
_DASH = re.compile(r"[ ]*-[ ]+")
INTERACTIONS, RETRIEVAL = "interactions", "retrieval"
Span = tuple[int, int]


class UneditableCassette(CassetteContentError):
    """A cassette whose text cannot lose an entry with every other byte kept."""


@dataclass(frozen=True)
class EntrySpans:
    """The character spans of a cassette's entries and of its top-level sections."""

    interactions: tuple[Span, ...]
    choices: tuple[Span, ...]
    #: Each top-level key's whole section: from its line to the next key's line.
    sections: dict[str, Span]
    #: The top-level keys whose value is a block sequence (entries may be taken out).
    editable: frozenset[str]


def _line_start(text: str, index: int) -> int:
    return text.rfind("\n", 0, index) + 1


def _items(text: str, node: yaml.Node, end: int) -> tuple[Span, ...]:
    """The spans of a sequence's items, the last one ending at ``end``."""
    if not isinstance(node, yaml.SequenceNode):
        return ()
    starts = [_line_start(text, item.start_mark.index) for item in node.value]
    return tuple(zip(starts, [*starts[1:], end], strict=True))


def _block(text: str, node: yaml.Node) -> bool:
    """A block sequence whose every item starts its own line after its dash."""
    if not isinstance(node, yaml.SequenceNode) or node.flow_style:
        return False
    for item in node.value:
        start = item.start_mark.index
        if not _DASH.fullmatch(text[_line_start(text, start) : start]):
            return False
    return True


def entry_spans(text: str) -> EntrySpans:
    """Where each entry of a readable cassette's ``text`` stands. Raises
    :class:`UneditableCassette` when its top level is not a block mapping."""
    root = yaml.compose(text, Loader=_Loader)
    if not isinstance(root, yaml.MappingNode) or not root.value or root.flow_style:
        raise UneditableCassette("its top level is not a block mapping")
    starts = [_line_start(text, key.start_mark.index) for key, _ in root.value]
    ends = [*starts[1:], len(text)]
    sections: dict[str, Span] = {}
    found: dict[str, tuple[Span, ...]] = {}
    editable = set()
    for (key, value), start, end in zip(root.value, starts, ends, strict=True):
        name = str(key.value)
        sections[name] = (start, end)
        found[name] = _items(text, value, end)
        if _block(text, value):
            editable.add(name)
    return EntrySpans(
        found.get(INTERACTIONS, ()), found.get(RETRIEVAL, ()), sections, frozenset(editable)
    )


def _expected(document: dict[str, Any], interactions: set[int], choices: set[int]) -> Any:
    """The document less the entries at those positions (an emptied ``retrieval`` gone)."""
    expected = dict(document)
    expected[INTERACTIONS] = [
        entry for at, entry in enumerate(document[INTERACTIONS]) if at not in interactions
    ]
    if choices:
        kept = [entry for at, entry in enumerate(document[RETRIEVAL]) if at not in choices]
        if kept:
            expected[RETRIEVAL] = kept
        else:
            del expected[RETRIEVAL]
    return expected


def check_editable(
    spans: EntrySpans, interactions: Collection[int], choices: Collection[int]
) -> None:
    """Raise :class:`UneditableCassette` unless the entries at those positions can be
    taken out in place (see the module docstring)."""
    for name, listed, taken in (
        (INTERACTIONS, spans.interactions, interactions),
        (RETRIEVAL, spans.choices, choices),
    ):
        if taken and name not in spans.editable:
            raise UneditableCassette(
                f"its {name!r} is not a block list with one entry a line, which prune edits"
            )
        if max(taken, default=-1) >= len(listed):
            raise UneditableCassette("an entry to take out is not in the file")


def _cuts(
    text: str, spans: EntrySpans, interactions: set[int], choices: set[int]
) -> list[tuple[Span, str]]:
    """The spans to take out, each with what replaces it."""
    cuts: list[tuple[Span, str]] = []
    for name, listed, taken in (
        (INTERACTIONS, spans.interactions, interactions),
        (RETRIEVAL, spans.choices, choices),
    ):
        if not taken:
            continue
        if len(taken) < len(listed):
            cuts += [(listed[at], "") for at in sorted(taken)]
            continue
        start, end = spans.sections[name]
        section = text[start:end]
        indent = section[: len(section) - len(section.lstrip(" "))]
        # A cassette always lists its interactions, if none; an empty section goes.
        cuts.append(((start, end), f"{indent}{name}: []\n" if name == INTERACTIONS else ""))
    return sorted(cuts)


def without_entries(text: str, interactions: Collection[int], choices: Collection[int]) -> str:
    """``text`` (a readable cassette's) without the interactions and retrieval choices at
    those positions (counted from 0), every other byte as it was; an emptied ``retrieval``
    section goes, emptied interactions become ``interactions: []``. Raises
    :class:`UneditableCassette` when that cannot be done in place, or when the result does
    not read as the document less exactly those entries."""
    taken_interactions, taken_choices = set(interactions), set(choices)
    spans = entry_spans(text)
    check_editable(spans, taken_interactions, taken_choices)
    pieces, at = [], 0
    for (start, end), replacement in _cuts(text, spans, taken_interactions, taken_choices):
        pieces += [text[at:start], replacement]
        at = end
    edited = "".join([*pieces, text[at:]])
    expected = _expected(load_yaml(text), taken_interactions, taken_choices)
    try:
        read_back = load_yaml(edited)
    except (yaml.YAMLError, CassetteContentError, RecursionError):
        read_back = None
    if read_back != expected:
        raise UneditableCassette("its entries could not be taken out with the rest kept as is")
    return edited
