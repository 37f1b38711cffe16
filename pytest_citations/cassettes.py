"""Cassettes: all Crawlbase and judge traffic recorded with vcrpy, replayed offline.

The only module that touches vcrpy. Rather than patching httpx globally, it plugs an httpx
transport into the verifier's client and drives vcrpy's ``Cassette`` through its public
methods, so that:

- the cassette in use follows the asyncio context (a case file's claims run concurrently
  inside its own cassette);
- every secret is scrubbed before anything is matched or written: the ``token`` query
  parameter becomes a placeholder naming its variable, credential headers are dropped,
  the token inside ``storage_url`` and any literal secret value are replaced;
- matching ignores scheme, host and port (recordings made against local emulators or
  through a proxy replay anywhere) and treats "JavaScript token" and "normal token with
  ``javascript=true``" as the same attempt, so a replay needs no token at all;
- judge requests match on their body, so a changed prompt never replays a stale verdict;
- traffic shared between case files (one fetch per URL per run) is copied into every
  cassette that needed it, so each cassette replays on its own;
- a request missing in replay fails only the citations that needed it, with a message
  naming the cassette and the command that records it, never the raw URL;
- a cassette that can only replay (mode ``none``, or ``once`` with an existing file)
  answers only from itself, never from work another file did earlier in the run.

Cassettes never lose data:

- a cassette is written only when the run of its case file (or test) completed, into a
  temporary file beside it that is renamed over it (an interruption leaves the old file);
- failures (401/402/403, 429, 5xx, timeouts, connection errors) are never recorded, and a
  run that met one for good leaves every cassette that depended on it as it was, saying so
  in :meth:`CassetteLibrary.notes`;
- a file that cannot be read is one clear error, never an empty cassette to record over;
- the file format is this module's own (vcrpy's layout, readable YAML), read and written
  here: a ``pytest_citations_vcr`` hook's serializer or persister is not used, its
  ``before_save_interaction`` and ``filter_sensitive_data`` are.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import inspect
import itertools
import json
import os
import re
import stat
import threading
import time
from collections.abc import Callable, Hashable, Iterator, Mapping, Sequence
from contextvars import ContextVar
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import IO, Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import httpx
import vcr
import vcr.matchers
import yaml
from vcr.cassette import Cassette
from vcr.filters import sensitive_data_hooks
from vcr.persisters.filesystem import CassetteNotFoundError
from vcr.request import Request as VcrRequest

try:  # libyaml's C loader and dumper: a 22 MB cassette in a fraction of a second
    from yaml import CSafeDumper as _SafeDumper
    from yaml import CSafeLoader as _Loader
except ImportError:  # pragma: no cover - PyYAML built without libyaml
    from yaml import SafeDumper as _SafeDumper  # type: ignore[assignment]
    from yaml import SafeLoader as _Loader  # type: ignore[assignment]

try:
    import fcntl as _fcntl
except ImportError:  # pragma: no cover - Windows
    _fcntl = None  # type: ignore[assignment]

from .errors import CitationsError, RequestRefused
from .fetchers.crawlbase import CRAWL_FAILED_STATUS
from .network import REPLAYED
from .redact import Redactor
from .sharing import current_work

#: Request headers that carry credentials; never recorded.
CREDENTIAL_HEADERS = frozenset({"authorization", "x-api-key", "api-key", "proxy-authorization"})
#: Response headers that describe the wire, not the answer; the body is stored decoded.
_WIRE_HEADERS = frozenset(
    {
        "content-encoding",
        "transfer-encoding",
        "content-length",
        "connection",
        "keep-alive",
        "date",
        "server",
    }
)
#: Request headers that only describe the client; left out to keep cassettes short.
_NOISE_REQUEST_HEADERS = frozenset(
    {"host", "accept", "accept-encoding", "connection", "user-agent", "content-length"}
)
JS_PLACEHOLDER = "<CRAWLBASE_JS_TOKEN>"
MATCH_ON = ("method", "path", "citations_query", "body")


class RecordMode(StrEnum):
    """When cassettes may be written (pytest-recording's modes)."""

    NONE = "none"  #: replay only; a missing request fails (the default)
    ONCE = "once"  #: record a cassette that does not exist yet, replay one that does
    NEW_EPISODES = "new_episodes"  #: replay what is there, record what is missing
    ALL = "all"  #: send everything, re-record every interaction
    REWRITE = "rewrite"  #: throw each cassette away and record it anew

    @property
    def records(self) -> bool:
        """True when this mode may reach the network."""
        return self is not RecordMode.NONE


_current: ContextVar[CassetteSession | None] = ContextVar("citations_cassette", default=None)


# Scrubbing -----------------------------------------------------------------------------
def _scrub_query(uri: str, redactor: Redactor) -> str:
    parts = urlsplit(uri)
    if not parts.query:
        return redactor(uri)
    placeholders = redactor.placeholders
    params = []
    for name, value in parse_qsl(parts.query, keep_blank_values=True):
        if name.lower() == "token":
            value = placeholders.get(value, value if value.startswith("<") else "<redacted>")
        else:
            value = redactor(value)
        params.append((name, value))
    query = urlencode(params, safe="<>/:")
    return urlunsplit((parts.scheme, parts.netloc, parts.path, query, parts.fragment))


def _readable_json(text: str) -> str:
    """JSON bodies indented, one field a line, so a changed prompt shows as a small diff
    (vcrpy's body matcher compares JSON bodies parsed, so layout never affects matching)."""
    try:
        data = json.loads(text)
    except ValueError:
        return text
    return json.dumps(data, indent=1, sort_keys=True, ensure_ascii=False)


def scrub_request(redactor: Redactor) -> Callable[[VcrRequest], VcrRequest]:
    """vcrpy ``before_record_request``: tokens become placeholders, credentials go."""

    def scrub(request: VcrRequest) -> VcrRequest:
        request = copy.deepcopy(request)
        request.uri = _scrub_query(request.uri, redactor)
        for name in list(request.headers):
            if name.lower() in CREDENTIAL_HEADERS or name.lower() in _NOISE_REQUEST_HEADERS:
                del request.headers[name]
            else:
                request.headers[name] = redactor(str(request.headers[name]))
        body = request.body
        if body:
            text = body.decode("utf-8", "replace") if isinstance(body, bytes) else str(body)
            clean = _readable_json(redactor(text))
            if clean != text:
                request.body = clean.encode()
        return request

    return scrub


def scrub_response(redactor: Redactor) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """vcrpy ``before_record_response``: no secret in any header (``storage_url``) or body."""

    def scrub(response: dict[str, Any]) -> dict[str, Any]:
        headers = {}
        for name, values in response.get("headers", {}).items():
            if name.lower() in _WIRE_HEADERS:
                continue
            listed = values if isinstance(values, list) else [values]
            if name.lower() == "storage_url":
                headers[name] = [_scrub_query(str(value), redactor) for value in listed]
            else:
                headers[name] = [redactor(str(value)) for value in listed]
        response["headers"] = headers
        body = response.get("body", {}).get("string", b"")
        text = body.decode("utf-8", "replace") if isinstance(body, bytes) else str(body)
        clean = redactor(text)
        if clean != text:
            response["body"]["string"] = clean.encode()
        return response

    return scrub


def _canonical_query(request: VcrRequest) -> list[tuple[str, str]]:
    """The query without its token, with JavaScript attempts marked the same either way."""
    params = parse_qsl(urlsplit(request.uri).query, keep_blank_values=True)
    javascript = False
    kept = []
    for name, value in params:
        if name == "token":
            javascript = javascript or value == JS_PLACEHOLDER
        elif name == "javascript":
            javascript = javascript or value.lower() == "true"
        else:
            kept.append((name, value))
    if javascript:
        kept.append(("javascript", "true"))
    return sorted(kept)


def citations_query(first: VcrRequest, second: VcrRequest) -> None:
    """vcrpy matcher: equal queries, ignoring which token a JavaScript attempt used."""
    if _canonical_query(first) != _canonical_query(second):
        raise AssertionError("the query strings differ")


# Readable YAML --------------------------------------------------------------------------
class _Dumper(_SafeDumper):
    pass


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
        loaded = yaml.load(text, Loader=_Loader)
        return loaded if isinstance(loaded, dict) else {}


def build_vcr(redactor: Redactor) -> vcr.VCR:
    """The VCR configuration the plugin hands to its ``pytest_citations_vcr`` hook."""
    config = vcr.VCR(
        serializer="citations-yaml",
        match_on=MATCH_ON,
        before_record_request=scrub_request(redactor),
        before_record_response=scrub_response(redactor),
        decode_compressed_response=True,
    )
    config.register_serializer("citations-yaml", ReadableYamlSerializer)
    config.register_matcher("citations_query", citations_query)
    return config


def keep_builtin_scrubbing(config: vcr.VCR, redactor: Redactor) -> None:
    """Call after ``pytest_citations_vcr``: whatever a hook did to ``before_record_request``
    or ``before_record_response`` (replaced, listed, removed), the built-in scrubbing still
    runs, and runs last, so that no hook can let a token reach a cassette."""
    config.before_record_request = _then(config.before_record_request, scrub_request(redactor))
    config.before_record_response = _then(config.before_record_response, scrub_response(redactor))


def _then(hooks: Any, builtin: Callable[[Any], Any]) -> list[Callable[[Any], Any]]:
    """``hooks`` (None, one callable or several; vcrpy accepts each) followed by
    ``builtin``, without the plugin's own scrubbers (scrubbing twice would be harmless)."""
    if hooks is None:
        listed: list[Callable[[Any], Any]] = []
    elif callable(hooks):
        listed = [hooks]
    else:
        listed = list(hooks)
    own = ("scrub_request.<locals>.scrub", "scrub_response.<locals>.scrub")
    return [hook for hook in listed if getattr(hook, "__qualname__", "") not in own] + [builtin]


# Describing a request without its secrets ------------------------------------------------
def describe(request: VcrRequest) -> str:
    """A short, secret-free description of a (scrubbed) request for error messages."""
    parts = urlsplit(request.uri)
    query = dict(parse_qsl(parts.query))
    if "url" in query:
        javascript = bool(dict(_canonical_query(request)).get("javascript"))
        flags = ["JavaScript" if javascript else "normal token"]
        flags.append("readability" if query.get("md_readability") == "true" else "no readability")
        return f"the Crawlbase crawl of {query['url']} ({', '.join(flags)})"
    if "rid" in query:
        return f"the Crawlbase storage read of rid {query['rid']}"
    return f"the judge call {request.method} {parts.path}"


def _is_crawl(request: VcrRequest) -> bool:
    """A Crawling API call (a storage read names a ``rid`` instead of a ``url``)."""
    return request.method == "GET" and "url" in dict(parse_qsl(urlsplit(request.uri).query))


def _peer(request: VcrRequest) -> str:
    """Who answered (or failed to): the Crawlbase API or the judge's endpoint."""
    query = dict(parse_qsl(urlsplit(request.uri).query))
    if {"url", "rid", "token"} & set(query):
        return "the Crawlbase API"
    return f"the judge ({request.method} {urlsplit(request.uri).path})"


#: Answers that say something about the account, the quota or the peer's health, never about
#: a cited page: replaying one would fail every offline run after it (an expired token
#: recorded by a scheduled ``--citations-record=all`` run, say).
_UNRECORDED_STATUSES = frozenset({401, 402, 403, 407, 408, 425, 429})


def unrecordable(request: VcrRequest, status: int) -> str | None:
    """Why an answer must not be written to a cassette, or None when it may be."""
    if status == CRAWL_FAILED_STATUS and _is_crawl(request):
        # The Crawling API's 520 is its documented answer about the page ("the crawl
        # failed"): it is what escalates a citation to the JavaScript token (F6), so a replay
        # needs it to take the same path. The same status from a judge is an outage.
        return None
    if status in _UNRECORDED_STATUSES or status >= 500:
        return f"HTTP {status} from {_peer(request)}"
    return None


def _what_failed(error: BaseException, request: VcrRequest) -> str:
    peer = _peer(request)
    if isinstance(error, httpx.TimeoutException):
        return f"no answer in time from {peer}"
    if isinstance(error, httpx.TransportError):
        return f"the connection to {peer} failed ({type(error).__name__})"
    if isinstance(error, asyncio.CancelledError):
        return f"the request to {peer} did not finish"
    return f"the request to {peer} could not be sent ({type(error).__name__})"


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


class _Unreadable(Exception):
    """What is wrong with a cassette file's content (wrapped in :class:`UnreadableCassette`
    by the library, which knows how to name the file and the command)."""


def _mark(error: yaml.YAMLError) -> str:
    mark = getattr(error, "problem_mark", None) or getattr(error, "context_mark", None)
    problem = getattr(error, "problem", None) or str(error).splitlines()[0]
    where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
    return f"it is not valid YAML{where} ({problem})"


def _mapping(value: Any, what: str) -> dict[Any, Any]:
    if not isinstance(value, dict):
        raise _Unreadable(f"{what} is not a mapping")
    return value


def _interaction(index: int, item: Any) -> Interaction:
    """One stored interaction, checked against vcrpy's layout, as vcrpy's objects."""
    what = f"interaction {index}"
    entry = _mapping(item, what)
    request = _mapping(entry.get("request"), f"the request of {what}")
    response = _mapping(entry.get("response"), f"the response of {what}")
    method, uri = request.get("method"), request.get("uri")
    if not isinstance(method, str) or not isinstance(uri, str):
        raise _Unreadable(f"the request of {what} has no method or uri")
    body = request.get("body")
    if body is not None and not isinstance(body, str | bytes):
        raise _Unreadable(f"the request body of {what} is not text")
    headers = request.get("headers") or {}
    _mapping(headers, f"the request headers of {what}")
    status = _mapping(response.get("status"), f"the status of {what}")
    if not isinstance(status.get("code"), int):
        raise _Unreadable(f"the status of {what} has no numeric code")
    _mapping(response.get("headers") or {}, f"the response headers of {what}")
    content = _mapping(response.get("body"), f"the response body of {what}").get("string")
    if content is not None and not isinstance(content, str | bytes):
        raise _Unreadable(f"the response body of {what} is not text")
    stored = copy.deepcopy(response)
    stored.setdefault("headers", {})
    if isinstance(content, str):
        stored["body"]["string"] = content.encode("utf-8")
    return VcrRequest(method, uri, body, dict(headers)), stored


def parse_cassette(raw: bytes) -> list[Interaction]:
    """The interactions of a cassette file's bytes; raises ``_Unreadable`` saying what is
    wrong (never an empty list for a damaged file)."""
    if not raw.strip():
        raise _Unreadable("it is empty (a write that was cut short, or a truncated copy)")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        bad = raw[error.start : error.start + 1].hex()
        raise _Unreadable(f"it is not valid UTF-8 (byte 0x{bad} at offset {error.start})") from None
    try:
        data = yaml.load(text, Loader=_Loader)
    except yaml.YAMLError as error:
        raise _Unreadable(_mark(error)) from None
    except RecursionError:
        raise _Unreadable("it is nested too deeply to be a cassette") from None
    if not isinstance(data, dict) or ("interactions" not in data and "version" not in data):
        raise _Unreadable("it has neither 'interactions' nor 'version' at its top level")
    if "version" not in data:
        # Written last, as vcrpy's own YAML writer does: a cut-off file has lost it.
        raise _Unreadable("it has no 'version' (the end of the file is missing)")
    if data["version"] != CASSETTE_FORMAT_VERSION:
        raise _Unreadable(
            f"its version is {data['version']!r}; pytest-citations reads version "
            f"{CASSETTE_FORMAT_VERSION}"
        )
    interactions = data.get("interactions")
    if not isinstance(interactions, list):
        raise _Unreadable("its 'interactions' is not a list")
    return [_interaction(index, item) for index, item in enumerate(interactions, start=1)]


def _text(value: Any) -> Any:
    """Bytes as text when they are UTF-8 (readable in review), else left as bytes."""
    if isinstance(value, bytes):
        with contextlib.suppress(UnicodeDecodeError):
            return value.decode("utf-8")
    return value


def cassette_document(interactions: Sequence[Interaction]) -> dict[str, Any]:
    """What a cassette file holds: vcrpy's layout, with ``version`` written last so that a
    file cut short is recognisable (vcrpy's own YAML writer sorts it last too)."""
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
    return {"interactions": listed, "version": CASSETTE_FORMAT_VERSION}


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


#: ``.<cassette name>.<pid>.<nonce>.tmp``: beside the cassette, never a case file
#: (``citations_files`` matches ``*.yaml``/``*.yml``) and recognisable when left behind.
_TEMPORARY = re.compile(r"^\..+\.\d+\.[0-9a-f]{8}\.tmp$")
#: Without ``fcntl`` a writer's lock cannot be seen: only files this old count as abandoned.
_ABANDONED_AFTER = 3600.0


def _temporary(path: Path) -> Path:
    return path.with_name(f".{path.name}.{os.getpid()}.{os.urandom(4).hex()}.tmp")


def _lock(fd: int, *, wait: bool) -> bool:
    """Hold an advisory lock on ``fd`` (released when the process dies, SIGKILL included)."""
    if _fcntl is None:  # pragma: no cover - Windows
        return True
    try:
        _fcntl.flock(fd, _fcntl.LOCK_EX | (0 if wait else _fcntl.LOCK_NB))
    except OSError:
        return False
    return True


def _sync_folder(folder: Path) -> None:
    """Make a rename durable: the folder's entry, not only the file, must reach the disk."""
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def write_cassette(path: Path, interactions: Sequence[Interaction]) -> None:
    """Write a cassette so that ``path`` only ever holds the old file or the whole new one:
    into a locked temporary file beside it, flushed to disk, then renamed over it. An
    interruption at any point (SIGINT, SIGKILL, a full disk) leaves the old file as it was."""
    document = cassette_document(interactions)
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        mode: int | None = stat.S_IMODE(path.stat().st_mode)
    except OSError:
        mode = None
    for _ in range(3):
        temporary = _temporary(path)
        try:
            # Created inside the try: a signal right after creation must remove it too.
            fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
            with open(fd, "w", encoding="utf-8", newline="\n") as stream:
                _lock(stream.fileno(), wait=True)
                dump_cassette(document, stream)
                stream.flush()
                os.fsync(stream.fileno())
                if mode is not None and hasattr(os, "fchmod"):
                    os.fchmod(stream.fileno(), mode)  # the old file's permissions
                try:
                    # Renamed while still locked, so a sweep never takes it for abandoned.
                    os.replace(temporary, path)
                except FileNotFoundError:
                    continue  # a sweep removed it before this writer took its lock; again
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
            raise
        _sync_folder(path.parent)
        return
    raise OSError(f"could not write {path}: its temporary file kept disappearing")


def sweep_temporary_files(folder: Path) -> list[Path]:
    """Remove the temporary files that killed runs left in ``folder`` (a live writer's file
    is locked and stays); returns what was removed."""
    removed: list[Path] = []
    try:
        names = [entry.name for entry in os.scandir(folder) if _TEMPORARY.match(entry.name)]
    except OSError:
        return removed
    for name in names:
        candidate = folder / name
        try:
            fd = os.open(candidate, os.O_RDONLY)
        except OSError:
            continue
        try:
            if _fcntl is None:  # pragma: no cover - Windows
                abandoned = time.time() - os.fstat(fd).st_mtime > _ABANDONED_AFTER
            else:
                # Locked by the writer that renames it: the lock is free only when that
                # writer died, and the name must still be that same file.
                abandoned = (
                    _lock(fd, wait=False)
                    and os.path.exists(candidate)
                    and os.path.samestat(os.fstat(fd), os.stat(candidate))
                )
            if abandoned:
                os.unlink(candidate)
                removed.append(candidate)
        except OSError:
            pass
        finally:
            os.close(fd)
    return removed


class _Preloaded:
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


def _save_hooks(merged: Mapping[str, Any]) -> list[Callable[..., Any]]:
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


def _accepts_cassette(hook: Callable[..., Any]) -> bool:
    try:
        inspect.signature(hook).bind(None, None, None)
    except (TypeError, ValueError):
        return False
    return True


# Sessions, library, transport -----------------------------------------------------------
@dataclass
class _Failure:
    """A request that failed (and was not recorded), until the same request succeeds."""

    session: CassetteSession
    work: Hashable | None
    request: VcrRequest
    reason: str


class CassetteSession:
    """One cassette file opened for a case file or a test.

    Recordings stay in memory until :meth:`close`, which writes the file (atomically) only
    when every run in it completed and no request failed for good; otherwise the file is
    left exactly as it was and :meth:`CassetteLibrary.notes` says why.
    """

    def __init__(
        self,
        library: CassetteLibrary,
        path: Path,
        cassette: Cassette,
        *,
        existed: bool,
        fresh: bool,
        match_on: Sequence[Callable[..., Any]],
        save_hooks: Sequence[Callable[..., Any]],
        serial: int,
    ) -> None:
        self.library = library
        self.path = path
        self.cassette = cassette
        self.existed = existed
        self.match_on = tuple(match_on)
        #: What the file held when it was opened (nothing in rewrite mode).
        self.loaded: list[Interaction] = list(cassette.data)
        self.used: set[Hashable] = set()
        self.closed = False
        self._fresh = fresh
        self._save_hooks = list(save_hooks)
        self._running = 0
        self._stopped: str | None = None
        self._lock = threading.Lock()
        #: What this session's work is shared under when it can only replay (see scope()).
        self.scope_key: Hashable = ("cassette", str(path), serial)

    @property
    def may_record(self) -> bool:
        """Whether a request missing from this cassette may go to the network."""
        mode = self.library.record_mode
        if mode is RecordMode.NONE:
            return False
        return not (mode is RecordMode.ONCE and self.existed)

    @contextlib.contextmanager
    def active(self) -> Iterator[CassetteSession]:
        """Route requests made in this context (and the tasks it starts) to this cassette.

        A run that leaves by an exception (a stopped run, a cancelled one) or has not left
        when the cassette is closed (an interrupted one) did not complete: nothing of it is
        written."""
        token = _current.set(self)
        with self._lock:
            self._running += 1
        try:
            yield self
        except BaseException as error:
            with self._lock:
                self._stopped = self._stopped or type(error).__name__
            raise
        finally:
            with self._lock:
                self._running -= 1
            _current.reset(token)

    def matches(self, first: VcrRequest, second: VcrRequest) -> bool:
        """Whether two requests are the same recording under the VCR's ``match_on``."""
        return bool(vcr.matchers.requests_match(first, second, self.match_on))

    def close(self) -> None:
        """Copy the shared traffic this cassette needs, then write the file if its runs
        completed and something changed; otherwise leave it as it was, with a note."""
        if self.closed:
            return
        self.closed = True
        if not self.may_record:
            return
        problem = self._problem()
        if problem is not None:
            self.library.leave(self, problem)
            return
        interactions = self._to_write()
        if interactions is not None:
            self.library.write(self, interactions)

    def abandon(self, reason: str) -> None:
        """Close without writing: what this session recorded is dropped, and the file is
        left as it was (with a note), as when its run was interrupted."""
        if self.closed:
            return
        self.closed = True
        if self.may_record:
            self.library.leave(self, reason)

    def _problem(self) -> str | None:
        with self._lock:
            running, stopped = self._running, self._stopped
        if running:
            return "the run was interrupted"
        failures = self.library.failures_of(self)
        if failures:
            return f"a request failed ({'; '.join(failures)})"
        if stopped is not None:
            return f"the run stopped ({stopped})"
        return None

    def _to_write(self) -> list[Interaction] | None:
        """The file's new content, or None when this run changed nothing."""
        data = self.cassette.data
        mode = self.library.record_mode
        fresh_from = len(self.loaded)
        for key in sorted(self.used, key=repr):
            for request, response in self.library.shared(key):
                # In "all" mode a loaded interaction is stale: only this run's count.
                held = data[fresh_from:] if mode is RecordMode.ALL else data
                if not any(self.matches(request, stored) for stored, _ in held):
                    data.append((request, copy.deepcopy(response)))
        recorded = list(data[fresh_from:])
        if mode is RecordMode.ALL:
            if not recorded:
                return None
            kept = [
                (stored, response)
                for stored, response in self.loaded
                if not any(self.matches(request, stored) for request, _ in recorded)
            ]
            return kept + recorded
        if mode is RecordMode.REWRITE and self._fresh:
            return recorded if recorded or self.existed else None
        return list(data) if recorded else None

    def saved(self, interactions: Sequence[Interaction]) -> list[Interaction]:
        """``interactions`` after the VCR's save hooks (each gets copies, as in vcrpy)."""
        if not self._save_hooks:
            return list(interactions)
        kept = []
        for request, response in interactions:
            interaction: Any = (copy.deepcopy(request), copy.deepcopy(response))
            for hook in self._save_hooks:
                extra = (self.cassette,) if _accepts_cassette(hook) else ()
                interaction = hook(*interaction, *extra)
                if interaction is None:
                    break
            if interaction is not None:
                kept.append((interaction[0], interaction[1]))
        return kept


class CassetteLibrary:
    """Every cassette of a run, plus the traffic shared between them."""

    def __init__(
        self,
        config: vcr.VCR,
        record_mode: RecordMode,
        record_command: Callable[[Path], str],
        root: Path | None = None,
    ) -> None:
        self.root = root
        self.config = config
        self.record_mode = record_mode
        self.record_command = record_command
        self._shared: dict[Hashable, list[Interaction]] = {}
        self._failures: list[_Failure] = []
        self._notes: list[str] = []
        self._owners: dict[Path, dict[Hashable, str]] = {}
        self._unreadable: dict[Path, str] = {}
        self._rewritten: set[Path] = set()
        self._swept: set[Path] = set()
        self._serials = itertools.count(1)
        self._lock = threading.Lock()
        self.played = 0
        self.recorded = 0

    # Which source records into which file ---------------------------------------------
    def assign(self, path: Path, owner: Hashable, described: str) -> Path:
        """Note that ``described`` (a case file, a test; ``owner`` identifies it) records
        into ``path``, and return ``path``. A second source of one path makes :meth:`open`
        refuse it with :class:`CassetteClash`, so that neither wipes the other's recording."""
        with self._lock:
            self._owners.setdefault(path.resolve(), {}).setdefault(owner, described)
        return path

    def open(self, path: Path) -> CassetteSession:
        """Load (or start) the cassette at ``path`` according to the record mode. Raises
        :class:`UnreadableCassette` for a damaged file, :class:`CassetteClash` for a file
        that two sources would share."""
        with self._lock:
            owners = list(self._owners.get(path.resolve(), {}).values())
            unreadable = self._unreadable.get(path)
        if len(owners) > 1:
            raise CassetteClash(self.shown(path), owners)
        if unreadable is not None:
            # Read once per run: every item of a damaged file reports the same problem.
            raise UnreadableCassette(self.shown(path), unreadable, self.record_command(path))
        if path.parent not in self._swept:
            self._swept.add(path.parent)
            sweep_temporary_files(path.parent)
        # Rewrite starts from nothing, and so never needs to read (or trust) the old file;
        # a second opening in the same run continues what this run wrote.
        fresh = self.record_mode is RecordMode.REWRITE and path not in self._rewritten
        existed = path.exists()
        interactions = None if fresh else self._read(path)
        vcr_mode = {
            RecordMode.NONE: "none",
            RecordMode.ONCE: "once",
            RecordMode.NEW_EPISODES: "new_episodes",
            RecordMode.ALL: "all",
            RecordMode.REWRITE: "new_episodes",
        }[self.record_mode]
        merged = self.config.get_merged_config(
            path=str(path), record_mode=vcr_mode, persister=_Preloaded(interactions)
        )
        accepted = inspect.signature(Cassette.__init__).parameters
        cassette = Cassette.load(**{k: v for k, v in merged.items() if k in accepted})
        return CassetteSession(
            self,
            path,
            cassette,
            existed=existed,
            fresh=fresh,
            match_on=merged["match_on"],
            save_hooks=_save_hooks(merged),
            serial=next(self._serials),
        )

    def _read(self, path: Path) -> list[Interaction] | None:
        """A cassette file's interactions; None when there is no file."""
        try:
            raw = path.read_bytes()
        except FileNotFoundError:
            return None
        except OSError as error:
            problem = f"it cannot be opened ({error.strerror or type(error).__name__})"
        else:
            try:
                return parse_cassette(raw)
            except _Unreadable as error:
                problem = str(error)
        with self._lock:
            self._unreadable[path] = problem
        raise UnreadableCassette(self.shown(path), problem, self.record_command(path))

    def write(self, session: CassetteSession, interactions: Sequence[Interaction]) -> None:
        """Write a session's cassette atomically."""
        write_cassette(session.path, session.saved(interactions))
        with self._lock:
            self._rewritten.add(session.path)

    def leave(self, session: CassetteSession, problem: str) -> None:
        """Record that a session's cassette was left as it was, and why."""
        verb = "left unchanged" if session.existed else "not written"
        note = f"{self.shown(session.path)} {verb}: {problem}"
        with self._lock:
            if note not in self._notes:
                self._notes.append(note)

    def notes(self) -> list[str]:
        """One line per cassette this run left as it was because a request failed for good
        or the run did not complete (``cassettes/x.yaml left unchanged: a request failed
        (HTTP 401 from the Crawlbase API)``), for the terminal summary."""
        with self._lock:
            return list(self._notes)

    def shown(self, path: Path) -> str:
        """A cassette path as the user knows it: relative to the rootdir when inside it."""
        if self.root is not None:
            with contextlib.suppress(ValueError):
                return str(path.resolve().relative_to(self.root.resolve()))
        return str(path)

    # Failures -------------------------------------------------------------------------
    def failed(
        self, session: CassetteSession, work: Hashable | None, request: VcrRequest, reason: str
    ) -> None:
        """A request failed and was not recorded; until it succeeds, the cassettes that
        depend on it (its own, and any that reuse its work) stay as they are."""
        with self._lock:
            self._failures.append(_Failure(session, work, request, reason))

    def succeeded(
        self, session: CassetteSession, work: Hashable | None, request: VcrRequest
    ) -> None:
        """A request succeeded: earlier failures of the same request were not final."""
        with self._lock:
            self._failures = [
                failure
                for failure in self._failures
                if not (
                    failure.work == work
                    and (work is not None or failure.session is session)
                    and session.matches(request, failure.request)
                )
            ]

    def failures_of(self, session: CassetteSession) -> list[str]:
        """Why the requests a session depends on failed for good, each reason once."""
        with self._lock:
            reasons = [
                failure.reason
                for failure in self._failures
                if failure.session is session
                or (failure.work is not None and failure.work in session.used)
            ]
        return list(dict.fromkeys(reasons))

    # WorkObserver ---------------------------------------------------------------------
    def used(self, key: Hashable) -> None:
        """Remember that the active (recording) cassette needed this work."""
        session = _current.get()
        if session is not None and session.may_record:
            session.used.add(key)

    def scope(self) -> Hashable | None:
        """Work done for a cassette that may record is shared with the whole run (and then
        copied into every cassette that needs it); a cassette that can only replay (mode
        none, or once with an existing file) answers only from itself, so that a file
        without its recording fails in a full run exactly as it does alone."""
        session = _current.get()
        if session is None or session.may_record:
            return None
        return session.scope_key

    def remember(self, key: Hashable | None, interaction: Interaction) -> None:
        """File an interaction under the work it belongs to."""
        if key is None:
            return
        with self._lock:
            self._shared.setdefault(key, []).append(interaction)

    def shared(self, key: Hashable) -> list[Interaction]:
        """The interactions of one piece of work, in the order they happened."""
        with self._lock:
            return list(self._shared.get(key, ()))

    def transport(self, inner: httpx.AsyncBaseTransport) -> CassetteTransport:
        """An httpx transport that replays and records through the active cassette."""
        return CassetteTransport(self, inner)


def _to_vcr_response(response: httpx.Response, content: bytes) -> dict[str, Any]:
    headers: dict[str, list[str]] = {}
    for name, value in response.headers.multi_items():
        headers.setdefault(name, []).append(value)
    return {
        "status": {"code": response.status_code, "message": response.reason_phrase},
        "headers": headers,
        "body": {"string": content},
    }


def _header_bytes(value: Any) -> bytes:
    """A stored header value for httpx: as UTF-8 bytes, since httpx encodes a ``str`` value
    as ASCII and a ``url`` header echoing an IDN (``https://bücher.example/``) is not."""
    if isinstance(value, bytes):
        return value
    return str(value).encode("utf-8")


def _from_vcr_response(recorded: dict[str, Any], request: httpx.Request) -> httpx.Response:
    headers = [
        (name, _header_bytes(value))
        for name, values in recorded.get("headers", {}).items()
        if name.lower() not in _WIRE_HEADERS
        for value in (values if isinstance(values, list) else [values])
    ]
    body = recorded.get("body", {}).get("string", b"")
    content = body.encode("utf-8") if isinstance(body, str) else bytes(body or b"")
    return httpx.Response(
        status_code=int(recorded["status"]["code"]),
        headers=headers,
        content=content,
        request=request,
    )


class CassetteTransport(httpx.AsyncBaseTransport):
    """Replays from the active cassette, records what the mode allows, refuses the rest.

    Failures (401/402/403, 429, 5xx, timeouts, connection errors) go back to the caller,
    which may retry, but are never recorded; one that stays unresolved keeps every cassette
    that depends on it as it was."""

    def __init__(self, library: CassetteLibrary, inner: httpx.AsyncBaseTransport) -> None:
        self.library = library
        self.inner = inner

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        session = _current.get()
        if session is None:
            raise RequestRefused("a request was made outside any cassette")
        body = await request.aread()
        live = VcrRequest(request.method, str(request.url), body, dict(request.headers))
        cassette = session.cassette
        work = current_work.get()
        if cassette.can_play_response_for(live):
            recorded = cassette.play_response(live)
            self.library.played += 1
            if session.may_record:
                self.library.remember(work, (cassette.filter_request(live), recorded))
            response = _from_vcr_response(recorded, request)
            response.extensions[REPLAYED] = True
            return response
        scrubbed = cassette.filter_request(live) or live
        if not session.may_record:
            raise RequestRefused(
                f"{self.library.shown(session.path)} has no recording of {describe(scrubbed)}; "
                f"record it with: {self.library.record_command(session.path)}"
            )
        try:
            response = await self.inner.handle_async_request(request)
            try:
                content = await response.aread()
            finally:
                await response.aclose()
        except BaseException as error:
            self.library.failed(session, work, scrubbed, _what_failed(error, scrubbed))
            raise
        failure = unrecordable(scrubbed, response.status_code)
        if failure is not None:
            self.library.failed(session, work, scrubbed, failure)
        else:
            self.library.succeeded(session, work, scrubbed)
            before = len(cassette.data)
            cassette.append(live, _to_vcr_response(response, content))
            if len(cassette.data) > before:
                self.library.recorded += 1
                self.library.remember(work, cassette.data[-1])
        return httpx.Response(
            status_code=response.status_code,
            # Raw bytes, as they came: a non-ASCII value (an IDN in ``url``) stays intact.
            headers=[
                (name, value)
                for name, value in response.headers.raw
                if name.decode("latin-1").lower() not in _WIRE_HEADERS
            ],
            content=content,
            request=request,
        )

    async def aclose(self) -> None:
        await self.inner.aclose()
