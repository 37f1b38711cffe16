"""Answer records from files: JSONL (one record a line), or a JSON object or array.

An array (a file, or a line) that is a bare Responses ``output`` list, as
``print(response.output)`` shows one response, is that one response, not a list of records.

Every record keeps its file and 1-based line, so that one that cannot be read is reported
where a person can find it, and the others are still imported. A line that is not JSON,
nested deeper than Python's parser can follow, or not an object, is a :class:`BadAnswerRecord`,
never an exception.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .formats import is_output_list

#: Files a folder given as input contributes, in name order.
RECORD_SUFFIXES = (".jsonl", ".ndjson", ".json")
_BOM = b"\xef\xbb\xbf"
#: Why a value nested too deeply for the JSON parser (a RecursionError) is skipped.
TOO_DEEP = "invalid JSON: nested too deeply to read"


@dataclass(frozen=True)
class AnswerRecord:
    """One answer record and where it came from."""

    source: Path
    line: int
    data: dict[str, Any]


@dataclass(frozen=True)
class BadAnswerRecord:
    """A record (or a whole file, at line 0) that could not be read, and why."""

    source: Path
    line: int
    reason: str

    def __str__(self) -> str:
        where = f"{self.source}:{self.line}" if self.line else str(self.source)
        return f"{where}: {self.reason}"


def expand_inputs(paths: Iterable[Path | str]) -> list[Path]:
    """The files to read: each path given, a folder as its record files in name order."""
    if isinstance(paths, str | Path):
        paths = [paths]  # one path, not the characters of one
    files: list[Path] = []
    for entry in map(Path, paths):
        if entry.is_dir():
            files.extend(
                sorted(
                    child
                    for child in entry.iterdir()
                    if child.is_file() and child.suffix.lower() in RECORD_SUFFIXES
                )
            )
        else:
            files.append(entry)
    return files


def _record(source: Path, line: int, value: Any) -> AnswerRecord | BadAnswerRecord:
    if isinstance(value, dict):
        return AnswerRecord(source, line, value)
    if is_output_list(value):
        return AnswerRecord(source, line, {"output": value})
    kind = "null" if value is None else type(value).__name__.replace("dict", "object")
    return BadAnswerRecord(source, line, f"a record must be a JSON object, got {kind}")


def _json_lines(source: Path, data: bytes) -> Iterator[AnswerRecord | BadAnswerRecord]:
    for number, raw in enumerate(data.splitlines(), start=1):
        if number == 1 and raw.startswith(_BOM):
            raw = raw[len(_BOM) :]
        if not raw.strip():
            continue
        try:
            value = json.loads(raw.decode("utf-8"))
        except UnicodeDecodeError as error:
            yield BadAnswerRecord(source, number, f"not UTF-8 text ({error.reason})")
        except json.JSONDecodeError as error:
            yield BadAnswerRecord(
                source, number, f"invalid JSON: {error.msg} (column {error.colno})"
            )
        except RecursionError:
            yield BadAnswerRecord(source, number, TOO_DEEP)
        else:
            yield _record(source, number, value)


def _json_document(source: Path, data: bytes) -> Iterator[AnswerRecord | BadAnswerRecord]:
    """A ``.json`` file: one object, or an array whose items keep their own line numbers."""
    try:
        text = data.removeprefix(_BOM).decode("utf-8")
    except UnicodeDecodeError as error:
        yield BadAnswerRecord(source, 0, f"not UTF-8 text ({error.reason})")
        return
    decoder = json.JSONDecoder()
    start = len(text) - len(text.lstrip())
    whole = _output_list(text)
    if whole is not None:
        yield AnswerRecord(source, text.count("\n", 0, start) + 1, {"output": whole})
        return
    if not text[start:].startswith("["):
        line = text.count("\n", 0, start) + 1
        try:
            value = json.loads(text)
        except json.JSONDecodeError as error:
            yield BadAnswerRecord(source, error.lineno, f"invalid JSON: {error.msg}")
            return
        except RecursionError:
            yield BadAnswerRecord(source, line, TOO_DEEP)
            return
        yield _record(source, line, value)
        return
    yield from _array_items(source, text, decoder, start + 1)


def _array_items(
    source: Path, text: str, decoder: json.JSONDecoder, position: int
) -> Iterator[AnswerRecord | BadAnswerRecord]:
    """The items of a top-level array from ``position`` on, each a record with its line."""
    # Decode item by item so that each keeps its line and a broken item ends the file
    # with a line number rather than losing every record before it.
    while True:
        position = _skip(text, position)
        if text.startswith("]", position):
            return
        line = text.count("\n", 0, position) + 1
        try:
            value, position = decoder.raw_decode(text, position)
        except json.JSONDecodeError as error:
            yield BadAnswerRecord(
                source,
                error.lineno,
                f"invalid JSON: {error.msg}; the rest of the file was not read",
            )
            return
        except RecursionError:
            end = _end_of_value(text, position)
            if end is None:
                yield BadAnswerRecord(
                    source, line, f"{TOO_DEEP}; the rest of the file was not read"
                )
                return
            yield BadAnswerRecord(source, line, TOO_DEEP)
            position = end
        else:
            yield _record(source, line, value)
        position = _skip(text, position)
        if text.startswith(",", position):
            position += 1
        elif not text.startswith("]", position):
            line = text.count("\n", 0, position) + 1
            yield BadAnswerRecord(
                source, line, "invalid JSON: expected ',' or ']'; the rest of the file was not read"
            )
            return


def _output_list(text: str) -> list[Any] | None:
    """The file's array when it is one bare Responses ``output`` list, else None (an array
    of records is read item by item, each keeping its line)."""
    if not text.lstrip().startswith("["):
        return None
    try:
        value = json.loads(text)
    except (json.JSONDecodeError, RecursionError):
        return None
    return value if is_output_list(value) else None


def _end_of_value(text: str, position: int) -> int | None:
    """Where the array or object at ``position`` ends, found without recursion (strings and
    their escapes skipped), so that one item nested too deeply costs only itself; None when
    it never closes."""
    depth, index, size = 0, position, len(text)
    while index < size:
        char = text[index]
        if char == '"':
            index += 1
            while index < size and text[index] != '"':
                index += 2 if text[index] == "\\" else 1
        elif char in "[{":
            depth += 1
        elif char in "]}":
            depth -= 1
            if depth == 0:
                return index + 1
        index += 1
    return None


def _skip(text: str, position: int) -> int:
    while position < len(text) and text[position].isspace():
        position += 1
    return position


def read_records(paths: Iterable[Path | str]) -> Iterator[AnswerRecord | BadAnswerRecord]:
    """Every record of the files (folders: their ``.jsonl``/``.ndjson``/``.json`` files), in
    file order then line order. ``.json`` files hold one object or an array of objects;
    anything else is read as JSONL."""
    for source in expand_inputs(paths):
        try:
            data = source.read_bytes()
        except OSError as error:
            yield BadAnswerRecord(source, 0, f"cannot read the file: {error.strerror or error}")
            continue
        if source.suffix.lower() == ".json":
            yield from _json_document(source, data)
        else:
            yield from _json_lines(source, data)
