"""What a cassette may hold and how requests are compared: secrets scrubbed before anything
is matched or written, the matcher that ignores which token a JavaScript attempt used, the
VCR configuration, and secret-free descriptions of requests for messages."""

from __future__ import annotations

import asyncio
import copy
import json
from collections.abc import Callable
from typing import Any, TypeAlias
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import httpx
import vcr
from vcr.request import Request as VcrRequest

from ..fetchers.crawlbase import CRAWL_FAILED_STATUS
from ..sanitize import Redactor
from .files import ReadableYamlSerializer

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
        return json.dumps(json.loads(text), indent=1, sort_keys=True, ensure_ascii=False)
    except (ValueError, RecursionError):  # not JSON, or nested deeper than it can be read
        return text


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


#: The VCR configuration a run records and replays with (the hook adjusts it).
VcrConfig: TypeAlias = vcr.VCR


def build_vcr(redactor: Redactor) -> VcrConfig:
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
    built: VcrConfig = config
    return built


def keep_builtin_scrubbing(config: vcr.VCR, redactor: Redactor) -> None:
    """Call after ``pytest_citations_vcr``: whatever a hook did to ``before_record_request``
    or ``before_record_response`` (replaced, listed, removed), the built-in scrubbing still
    runs, and runs last, so that no hook can let a token reach a cassette."""
    config.before_record_request = _then(config.before_record_request, scrub_request(redactor))
    config.before_record_response = _then(config.before_record_response, scrub_response(redactor))


_OWN = ("scrub_request.<locals>.scrub", "scrub_response.<locals>.scrub")


def _others(hooks: Any) -> list[Callable[[Any], Any]]:
    """``hooks`` (None, one callable or several; vcrpy accepts each) but the plugin's own
    scrubbers."""
    if hooks is None:
        listed: list[Callable[[Any], Any]] = []
    elif callable(hooks):
        listed = [hooks]
    else:
        listed = list(hooks)
    return [hook for hook in listed if getattr(hook, "__qualname__", "") not in _OWN]


def _then(hooks: Any, builtin: Callable[[Any], Any]) -> list[Callable[[Any], Any]]:
    """``hooks`` followed by ``builtin``, without the plugin's own scrubbers (scrubbing
    twice would be harmless)."""
    return [*_others(hooks), builtin]


def rewrites_requests(config: vcr.VCR) -> bool:
    """Whether a ``pytest_citations_vcr`` hook added a ``before_record_request`` of its own:
    a recorded request may then say other than the request it answers (a scrubbed claim)."""
    return bool(_others(config.before_record_request))


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
