"""Cassette files: vcrpy's layout in readable YAML, read with every check a damaged file
needs, and written so that a cassette only ever holds the old file or the whole new one."""

from __future__ import annotations

import contextlib
import copy
import inspect
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import IO, Any, NoReturn

import yaml
from vcr.filters import sensitive_data_hooks
from vcr.persisters.filesystem import CassetteNotFoundError
from vcr.request import Request as VcrRequest

try:  # libyaml's C loader and dumper: a 22 MB cassette in a fraction of a second
    from yaml import CSafeDumper as _SafeDumper
    from yaml import CSafeLoader as _Loader
except ImportError:  # pragma: no cover - PyYAML built without libyaml
    from yaml import SafeDumper as _SafeDumper  # type: ignore[assignment]
    from yaml import SafeLoader as _Loader  # type: ignore[assignment]

from ..atomic import write_atomically
from ..errors import CitationsError


# Readable YAML --------------------------------------------------------------------------
class _Dumper(_SafeDumper):
    def ignore_aliases(self, data: Any) -> bool:
        return True  # a value met twice is written twice: the loader refuses aliases


def _represent_str(dumper: yaml.representer.SafeRepresenter, value: str) -> yaml.ScalarNode:
    style = "|" if "\n" in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_Dumper.add_representer(str, _represent_str)


class ReadableYamlSerializer:
    """Cassettes as YAML with multi-line bodies in block style, for reviewable diffs."""

    @staticmethod
    def serialize(data: dict[str, Any]) -> str:
        return dump_cassette(data) or ""

    @staticmethod
    def deserialize(text: str) -> dict[str, Any]:
        loaded = load_yaml(text)
        return loaded if isinstance(loaded, dict) else {}


# Reading and writing cassette files ------------------------------------------------------
#: The cassette layout vcrpy reads and writes.
CASSETTE_FORMAT_VERSION = 1
Interaction = tuple[VcrRequest, dict[str, Any]]


class UnreadableCassette(CitationsError):
    """A cassette file that exists but cannot be read. Never replayed as empty, never
    overwritten by a recording: the message names the file and how to repair it."""

    def __init__(self, shown: str, problem: str, record_command: str) -> None:
        self.shown = shown
        self.problem = problem
        super().__init__(
            f"cassette {shown} cannot be read: {problem}. Restore it from version control, "
            f"or delete it and record it again with: {record_command}"
        )


class CassetteClash(CitationsError):
    """Two sources (case files, tests) whose recordings would go to one cassette file."""

    def __init__(self, shown: str, owners: Sequence[str]) -> None:
        self.shown = shown
        self.owners = tuple(owners)
        super().__init__(
            f"cassette {shown} would hold the recordings of both {' and '.join(owners)}; "
            "recording one would wipe the other. Rename one of them so that each has a "
            "cassette of its own."
        )


class CassetteContentError(Exception):
    """What is wrong with a cassette file's content (wrapped in :class:`UnreadableCassette`
    by the library, which knows how to name the file and the command)."""


def _mark(error: yaml.YAMLError) -> str:
    mark = getattr(error, "problem_mark", None) or getattr(error, "context_mark", None)
    problem = getattr(error, "problem", None) or str(error).splitlines()[0]
    where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
    return f"it is not valid YAML{where} ({problem})"


#: Longer numbers are refused before they are built: no cassette holds one, and turning a
#: few thousand digits into an int is refused by Python (or costs quadratic time).
MAX_NUMBER_DIGITS = 100
_INT_TAG = "tag:yaml.org,2002:int"
_MERGE_TAG = "tag:yaml.org,2002:merge"


def _line(node: yaml.Node) -> int:
    return int(node.start_mark.line) + 1


def _alias_line(text: str) -> str:
    """Where the first alias of ``text`` stands, and what it repeats (only called once a
    shared node was found, so the extra pass costs nothing on a good file)."""
    for event in yaml.parse(text, Loader=_Loader):
        if isinstance(event, yaml.AliasEvent) and event.start_mark is not None:
            return f"*{event.anchor} at line {event.start_mark.line + 1}"
    return "an alias"  # pragma: no cover - a shared node always comes from an alias


def _checked(text: str, root: yaml.Node) -> None:
    """Refuse, before anything is built, what no cassette holds and a hostile one could use:
    aliases (a few hundred bytes of them stand for gigabytes once a value is walked, copied or
    matched), merge keys, a key given twice in one mapping (the second would silently win),
    and numbers too long to read. One pass over the composed nodes, each visited once."""
    seen: set[int] = set()
    stack = [root]
    mapping, sequence = yaml.MappingNode, yaml.SequenceNode
    while stack:
        node = stack.pop()
        if id(node) in seen:  # libyaml hands an alias over as its anchor's node again
            raise CassetteContentError(
                f"it uses a YAML alias ({_alias_line(text)}), which cassettes never hold"
            )
        seen.add(id(node))
        if isinstance(node, mapping):
            keys: set[object] = set()
            for key, value in node.value:
                name = (key.tag, key.value) if type(key.value) is str else id(key)
                if name in keys or key.tag == _MERGE_TAG:
                    _refuse_key(node, key)
                keys.add(name)
                stack.append(key)
                stack.append(value)
        elif isinstance(node, sequence):
            stack.extend(node.value)
        elif node.tag == _INT_TAG and len(node.value) > MAX_NUMBER_DIGITS:
            raise CassetteContentError(
                f"it holds a number of {len(node.value)} characters at line {_line(node)}"
            )


def _refuse_key(mapping: yaml.MappingNode, key: yaml.Node) -> NoReturn:
    """The error of a merge key, or of a key the mapping holds before ``key``."""
    if key.tag == _MERGE_TAG:
        raise CassetteContentError(f"it uses a YAML merge key (<<) at line {_line(key)}")
    first = next(k for k, _ in mapping.value if k.tag == key.tag and k.value == key.value)
    raise CassetteContentError(
        f"the key {key.value!r} at line {_line(key)} is given twice in one mapping (first at "
        f"line {_line(first)})"
    )


def load_yaml(text: str) -> Any:
    """A cassette's YAML document with libyaml's C parser, checked by :func:`_checked`
    before it is built. Raises ``yaml.YAMLError``, ``RecursionError`` or
    :class:`CassetteContentError`."""
    loader = _Loader(text)
    try:
        root = loader.get_single_node()
        if root is None:
            return None
        _checked(text, root)
        return loader.construct_document(root)
    finally:
        loader.dispose()


def _mapping(value: Any, what: str) -> dict[Any, Any]:
    if not isinstance(value, dict):
        raise CassetteContentError(f"{what} is not a mapping")
    return value


def _interaction(index: int, item: Any) -> Interaction:
    """One stored interaction, checked against vcrpy's layout, as vcrpy's objects."""
    what = f"interaction {index}"
    entry = _mapping(item, what)
    request = _mapping(entry.get("request"), f"the request of {what}")
    response = _mapping(entry.get("response"), f"the response of {what}")
    method, uri = request.get("method"), request.get("uri")
    if not isinstance(method, str) or not isinstance(uri, str):
        raise CassetteContentError(f"the request of {what} has no method or uri")
    body = request.get("body")
    if body is not None and not isinstance(body, str | bytes):
        raise CassetteContentError(f"the request body of {what} is not text")
    headers = request.get("headers") or {}
    _mapping(headers, f"the request headers of {what}")
    status = _mapping(response.get("status"), f"the status of {what}")
    if not isinstance(status.get("code"), int):
        raise CassetteContentError(f"the status of {what} has no numeric code")
    _mapping(response.get("headers") or {}, f"the response headers of {what}")
    content = _mapping(response.get("body"), f"the response body of {what}").get("string")
    if content is not None and not isinstance(content, str | bytes):
        raise CassetteContentError(f"the response body of {what} is not text")
    stored = copy.deepcopy(response)
    stored.setdefault("headers", {})
    if isinstance(content, str):
        stored["body"]["string"] = content.encode("utf-8")
    return VcrRequest(method, uri, body, dict(headers)), stored


def parse_cassette(raw: bytes) -> list[Interaction]:
    """The interactions of a cassette file's bytes; raises ``CassetteContentError`` saying what is
    wrong (never an empty list for a damaged file)."""
    return read_cassette(raw)[0]


def read_cassette(
    raw: bytes, check: Callable[[dict[str, Any]], None] | None = None
) -> tuple[list[Interaction], Any]:
    """The interactions of a cassette file's bytes, and its ``retrieval`` section as stored
    (None when it has none: a recording made before retrieval's choices were kept).
    ``check`` sees the parsed document of a readable file last, and may refuse it by
    raising (a signature that does not verify, :mod:`.signing`)."""
    if not raw.strip():
        raise CassetteContentError("it is empty (a write that was cut short, or a truncated copy)")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        bad = raw[error.start : error.start + 1].hex()
        raise CassetteContentError(
            f"it is not valid UTF-8 (byte 0x{bad} at offset {error.start})"
        ) from None
    try:
        data = load_yaml(text)
    except yaml.YAMLError as error:
        raise CassetteContentError(_mark(error)) from None
    except RecursionError:
        raise CassetteContentError("it is nested too deeply to be a cassette") from None
    except (ValueError, TypeError, OverflowError) as error:  # a value its tag cannot build
        raise CassetteContentError(f"it holds a value that cannot be read ({error})") from None
    if not isinstance(data, dict) or ("interactions" not in data and "version" not in data):
        raise CassetteContentError("it has neither 'interactions' nor 'version' at its top level")
    if "version" not in data:
        # Written last, as vcrpy's own YAML writer does: a cut-off file has lost it.
        raise CassetteContentError("it has no 'version' (the end of the file is missing)")
    if data["version"] != CASSETTE_FORMAT_VERSION:
        raise CassetteContentError(
            f"its version is {data['version']!r}; pytest-citations reads version "
            f"{CASSETTE_FORMAT_VERSION}"
        )
    interactions = data.get("interactions")
    if not isinstance(interactions, list):
        raise CassetteContentError("its 'interactions' is not a list")
    listed = [_interaction(index, item) for index, item in enumerate(interactions, start=1)]
    if check is not None:
        check(data)
    return listed, data.get("retrieval")


def _text(value: Any) -> Any:
    """Bytes as text when they are UTF-8 (readable in review), else left as bytes."""
    if isinstance(value, bytes):
        with contextlib.suppress(UnicodeDecodeError):
            return value.decode("utf-8")
    return value


def cassette_document(
    interactions: Sequence[Interaction], retrieval: Sequence[Any] = ()
) -> dict[str, Any]:
    """What a cassette file holds: vcrpy's layout (vcrpy reads a file with more keys), the
    ``retrieval`` section when there is one, and ``version`` written last so that a file cut
    short is recognisable (vcrpy's own YAML writer sorts it last too)."""
    listed = []
    for request, response in interactions:
        stored = copy.deepcopy(response)
        body = stored.get("body")
        if isinstance(body, dict) and "string" in body:
            body["string"] = _text(body["string"])
        listed.append(
            {
                "request": {
                    "method": request.method,
                    "uri": request.uri,
                    "body": _text(request.body),
                    "headers": {name: [value] for name, value in request.headers.items()},
                },
                "response": stored,
            }
        )
    document: dict[str, Any] = {"interactions": listed}
    if retrieval:
        document["retrieval"] = list(retrieval)
    document["version"] = CASSETTE_FORMAT_VERSION
    return document


def dump_cassette(document: Mapping[str, Any], stream: IO[str] | None = None) -> str | None:
    """The readable YAML of a cassette document, to ``stream`` or returned."""
    dumped: str | None = yaml.dump(
        dict(document),
        stream,
        Dumper=_Dumper,
        allow_unicode=True,
        sort_keys=False,
        width=100,
    )
    return dumped


def write_cassette(
    path: Path, interactions: Sequence[Interaction], retrieval: Sequence[Any] = ()
) -> None:
    """Write a cassette so that ``path`` only ever holds the old file or the whole new one
    (:func:`~pytest_citations.atomic.write_atomically`: a locked temporary file beside it,
    flushed to disk, renamed over it). An interruption at any point (SIGINT, SIGKILL, a full
    disk) leaves the old file as it was. Signed when ``CITATIONS_SIGNING_KEY`` is set
    (:func:`sealed`)."""
    write_atomically(path, sealed(dump_cassette(cassette_document(interactions, retrieval)) or ""))


def sealed(text: str) -> str:
    """A cassette's text as every writer writes it: signed with ``CITATIONS_SIGNING_KEY``
    when it is set, else without a signature (:func:`~.sealing.seal`)."""
    # Signing is a backend: loaded by the first cassette written, never by a replay.
    from .sealing import seal

    return seal(text, lambda written: yaml.load(written, Loader=_Loader))


def with_retrieval(raw: bytes, retrieval: Sequence[Any]) -> str:
    """A cassette file's text with its ``retrieval`` section replaced by ``retrieval``
    (dropped when empty) and ``version`` written last, every other byte kept as it is: its
    interactions stay exactly as recorded, whatever wrote them. ``raw`` must be a readable
    cassette (:func:`read_cassette`)."""
    text = raw.decode("utf-8")
    root = yaml.compose(text, Loader=_Loader)
    if not isinstance(root, yaml.MappingNode) or not root.value:
        raise CassetteContentError("it has no top-level mapping")
    names = [str(key.value) for key, _ in root.value]
    starts = [key.start_mark.index for key, _ in root.value] + [len(text)]
    kept = text[: starts[0]] + "".join(
        text[starts[at] : starts[at + 1]]
        for at, name in enumerate(names)
        if name not in ("retrieval", "version")
    )
    if kept and not kept.endswith("\n"):
        kept += "\n"
    section = (dump_cassette({"retrieval": list(retrieval)}) or "") if retrieval else ""
    return kept + section + (dump_cassette({"version": CASSETTE_FORMAT_VERSION}) or "")


class Preloaded:
    """A vcrpy persister that hands over interactions this module has already read and
    checked (vcrpy's own reader treats a damaged file as an empty cassette)."""

    def __init__(self, interactions: list[Interaction] | None) -> None:
        self.interactions = interactions

    def load_cassette(
        self, cassette_path: str, serializer: Any
    ) -> tuple[list[VcrRequest], list[dict[str, Any]]]:
        if self.interactions is None:
            raise CassetteNotFoundError()
        return [r for r, _ in self.interactions], [s for _, s in self.interactions]

    @staticmethod
    def save_cassette(cassette_path: str, cassette_dict: Any, serializer: Any) -> None:
        raise RuntimeError("pytest-citations writes its cassettes itself (write_cassette)")


def save_hooks(merged: Mapping[str, Any]) -> list[Callable[..., Any]]:
    """The VCR configuration's ``before_save_interaction`` hooks, ``filter_sensitive_data``
    last, as vcrpy applies them when it saves."""
    hooks = merged.get("before_save_interaction")
    listed: list[Callable[..., Any]] = (
        [] if hooks is None else [hooks] if callable(hooks) else list(hooks)
    )
    sensitive = merged.get("filter_sensitive_data")
    if sensitive:
        listed.append(sensitive_data_hooks(sensitive)[0])
    return listed


def accepts_cassette(hook: Callable[..., Any]) -> bool:
    try:
        inspect.signature(hook).bind(None, None, None)
    except (TypeError, ValueError):
        return False
    return True
