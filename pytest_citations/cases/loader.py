"""Case-file YAML: a safe loader whose mappings and lists remember their lines, and that
refuses what no case needs and an attacker could use (aliases, merge keys, deep nesting)."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

from .model import CaseFileError

#: Deeper YAML than this is refused: no case needs it, and PyYAML composes recursively.
MAX_DEPTH = 100
_MERGE_TAG = "tag:yaml.org,2002:merge"
#: Half of a UTF-16 pair on its own (YAML's ``"\\ud800"``): no UTF-8 file, report or
#: request can hold it.
_SURROGATE = re.compile(r"[\ud800-\udfff]")


class LineLoader(yaml.SafeLoader):
    """A safe loader whose mappings remember the line of each key and of themselves, and
    that refuses aliases and nesting deeper than :data:`MAX_DEPTH` while composing, before
    anything is built: a few hundred bytes of aliases expand to gigabytes once a value is
    turned into text, and deep nesting exhausts the stack."""

    _depth = 0

    def compose_node(self, parent: yaml.Node | None, index: Any) -> yaml.Node | None:
        if self.check_event(yaml.AliasEvent):
            event = self.peek_event()  # type: ignore[no-untyped-call]
            raise CaseFileError(
                "",
                event.start_mark.line + 1,
                f"YAML aliases (*{event.anchor}) are not allowed in case files; "
                "write the value out",
            )
        if self._depth >= MAX_DEPTH:
            raise CaseFileError(
                "",
                self.peek_event().start_mark.line + 1,  # type: ignore[no-untyped-call]
                f"nested deeper than {MAX_DEPTH} levels",
            )
        self._depth += 1
        try:
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1


class Mapping(dict[Any, Any]):
    """A YAML mapping that knows its line and the line of each key."""

    line: int = 0
    key_lines: dict[Any, int]


class Sequence(list[Any]):
    """A YAML list that knows its line and the line of each item."""

    line: int = 0
    item_lines: list[int]


def _construct_mapping(loader: LineLoader, node: yaml.MappingNode) -> Mapping:
    for key_node, _ in node.value:
        if key_node.tag == _MERGE_TAG:
            raise CaseFileError(
                "",
                key_node.start_mark.line + 1,
                "YAML merge keys (<<) are not allowed in case files; write the keys out",
            )
    mapping = Mapping()
    mapping.line = node.start_mark.line + 1
    mapping.key_lines = {}
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node, deep=True)
        if key in mapping:
            raise CaseFileError("", key_node.start_mark.line + 1, f"duplicate key {key!r}")
        mapping[key] = loader.construct_object(value_node, deep=True)
        mapping.key_lines[key] = key_node.start_mark.line + 1
    return mapping


def _construct_sequence(loader: LineLoader, node: yaml.SequenceNode) -> Sequence:
    sequence = Sequence(loader.construct_object(child, deep=True) for child in node.value)
    sequence.line = node.start_mark.line + 1
    sequence.item_lines = [child.start_mark.line + 1 for child in node.value]
    return sequence


def _construct_text(loader: LineLoader, node: yaml.ScalarNode) -> str:
    text = loader.construct_scalar(node)
    found = _SURROGATE.search(text)
    if found is not None:
        raise CaseFileError(
            "",
            node.start_mark.line + 1,
            f"a lone surrogate (\\u{ord(found.group()):04x}) cannot be written as UTF-8; write "
            "the character it was cut from, or leave it out",
        )
    return text


def _readable(
    construct: Callable[[LineLoader, yaml.ScalarNode], Any], what: str
) -> Callable[[LineLoader, yaml.ScalarNode], Any]:
    """A scalar's constructor whose ValueError (an integer of more digits than Python
    converts, a date that does not exist) is the file's problem at the scalar's line."""

    def construct_readable(loader: LineLoader, node: yaml.ScalarNode) -> Any:
        try:
            return construct(loader, node)
        except ValueError:
            raise CaseFileError("", node.start_mark.line + 1, f"{what} cannot be read") from None

    return construct_readable


LineLoader.add_constructor("tag:yaml.org,2002:str", _construct_text)
LineLoader.add_constructor(
    "tag:yaml.org,2002:int", _readable(yaml.SafeLoader.construct_yaml_int, "a number this long")
)
LineLoader.add_constructor(
    "tag:yaml.org,2002:timestamp",
    _readable(yaml.SafeLoader.construct_yaml_timestamp, "a date that does not exist"),
)
LineLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)
LineLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_SEQUENCE_TAG, _construct_sequence)


def line_of(container: Any, key: Any = None, default: int = 0) -> int:
    """The line of ``key`` in a mapping or list read by :class:`LineLoader` (of the
    container itself without a key); ``default`` for anything else."""
    if isinstance(container, Mapping):
        return container.key_lines.get(key, container.line) if key is not None else container.line
    if isinstance(container, Sequence):
        if isinstance(key, int) and 0 <= key < len(container.item_lines):
            return container.item_lines[key]
        return container.line
    return default


def load_document(path: Path, text: str | None = None) -> Any:
    """The YAML document of a case file, or a :class:`CaseFileError` naming the line."""
    if text is None:
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as error:
            raise CaseFileError(path, 0, f"cannot read the file: {error}") from None
    try:
        document = yaml.load(text, Loader=LineLoader)  # a SafeLoader subclass
    except CaseFileError as error:
        raise CaseFileError(path, error.line, error.message) from None
    except RecursionError:
        # MAX_DEPTH keeps composing shallow; this is for a stack already deep when called.
        raise CaseFileError(path, 0, "the YAML is nested too deeply") from None
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        line = mark.line + 1 if mark is not None else 0
        problem = error.problem or str(error)
        raise CaseFileError(path, line, f"invalid YAML: {problem}") from None
    except yaml.YAMLError as error:
        raise CaseFileError(path, 0, f"invalid YAML: {error}") from None
    if document is None:
        raise CaseFileError(path, 1, "the file is empty")
    return document
