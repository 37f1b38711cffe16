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
  naming the cassette and the command that records it, never the raw URL.
"""

from __future__ import annotations

import contextlib
import copy
import inspect
import json
import threading
from collections.abc import Callable, Hashable, Iterator
from contextvars import ContextVar
from enum import StrEnum
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import httpx
import vcr
import yaml
from vcr.cassette import Cassette
from vcr.request import Request as VcrRequest

from .errors import RequestRefused
from .redact import Redactor
from .tracing import current_work
from .transport import REPLAYED

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
class _Dumper(yaml.SafeDumper):
    pass


def _represent_str(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    style = "|" if "\n" in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_Dumper.add_representer(str, _represent_str)


class ReadableYamlSerializer:
    """Cassettes as YAML with multi-line bodies in block style, for reviewable diffs."""

    @staticmethod
    def serialize(data: dict[str, Any]) -> str:
        return yaml.dump(data, Dumper=_Dumper, allow_unicode=True, sort_keys=False, width=100)

    @staticmethod
    def deserialize(text: str) -> dict[str, Any]:
        loaded = yaml.safe_load(text)
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


# Sessions, library, transport -----------------------------------------------------------
Interaction = tuple[VcrRequest, dict[str, Any]]


class CassetteSession:
    """One cassette file opened for a case file or a test."""

    def __init__(self, library: CassetteLibrary, path: Path, cassette: Cassette) -> None:
        self.library = library
        self.path = path
        self.cassette = cassette
        self.existed = path.exists()
        self.used: set[Hashable] = set()
        self.closed = False

    @property
    def may_record(self) -> bool:
        """Whether a request missing from this cassette may go to the network."""
        mode = self.library.record_mode
        if mode is RecordMode.NONE:
            return False
        return not (mode is RecordMode.ONCE and self.existed)

    @contextlib.contextmanager
    def active(self) -> Iterator[CassetteSession]:
        """Route requests made in this context (and the tasks it starts) to this cassette."""
        token = _current.set(self)
        try:
            yield self
        finally:
            _current.reset(token)

    def close(self) -> None:
        """Copy shared traffic this cassette needs, then write it if anything changed."""
        if self.closed:
            return
        self.closed = True
        if self.library.record_mode.records and self.may_record:
            for key in sorted(self.used, key=repr):
                for request, response in self.library.shared(key):
                    if not self._holds(request):
                        self.cassette.data.append((request, copy.deepcopy(response)))
                        self.cassette.dirty = True
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.cassette._save()  # vcrpy's own writer (honours its record mode and hooks)

    def _holds(self, request: VcrRequest) -> bool:
        return any(
            vcr.matchers.requests_match(request, stored, self.cassette._match_on)
            for stored, _ in self.cassette.data
        )


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
        self._opened: set[Path] = set()
        self._lock = threading.Lock()
        self.played = 0
        self.recorded = 0

    def open(self, path: Path) -> CassetteSession:
        """Load (or start) the cassette at ``path`` according to the record mode."""
        if self.record_mode is RecordMode.REWRITE and path not in self._opened and path.exists():
            path.unlink()
        self._opened.add(path)
        vcr_mode = {
            RecordMode.NONE: "none",
            RecordMode.ONCE: "once",
            RecordMode.NEW_EPISODES: "new_episodes",
            RecordMode.ALL: "all",
            RecordMode.REWRITE: "new_episodes",
        }[self.record_mode]
        merged = self.config.get_merged_config(path=str(path), record_mode=vcr_mode)
        accepted = inspect.signature(Cassette.__init__).parameters
        cassette = Cassette.load(**{k: v for k, v in merged.items() if k in accepted})
        return CassetteSession(self, path, cassette)

    def shown(self, path: Path) -> str:
        """A cassette path as the user knows it: relative to the rootdir when inside it."""
        if self.root is not None:
            with contextlib.suppress(ValueError):
                return str(path.resolve().relative_to(self.root.resolve()))
        return str(path)

    # WorkObserver
    def used(self, key: Hashable) -> None:
        """Remember that the active cassette needed this (possibly shared) work."""
        session = _current.get()
        if session is not None:
            session.used.add(key)

    def scope(self) -> Hashable | None:
        """Work done for the active cassette is shared with the whole run."""
        return None

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


def _from_vcr_response(recorded: dict[str, Any], request: httpx.Request) -> httpx.Response:
    headers = [
        (name, value)
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
    """Replays from the active cassette, records what the mode allows, refuses the rest."""

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
            self.library.remember(work, (cassette.filter_request(live), recorded))
            response = _from_vcr_response(recorded, request)
            response.extensions[REPLAYED] = True
            return response
        if not session.may_record:
            scrubbed = cassette.filter_request(live)
            raise RequestRefused(
                f"{self.library.shown(session.path)} has no recording of {describe(scrubbed)}; "
                f"record it with: {self.library.record_command(session.path)}"
            )
        response = await self.inner.handle_async_request(request)
        try:
            content = await response.aread()
        finally:
            await response.aclose()
        before = len(cassette.data)
        cassette.append(live, _to_vcr_response(response, content))
        self.library.recorded += 1
        if len(cassette.data) > before:
            self.library.remember(work, cassette.data[-1])
        return httpx.Response(
            status_code=response.status_code,
            headers=[
                (k, v) for k, v in response.headers.multi_items() if k.lower() not in _WIRE_HEADERS
            ],
            content=content,
            request=request,
        )

    async def aclose(self) -> None:
        await self.inner.aclose()
