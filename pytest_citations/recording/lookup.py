"""Finding a request's recording without comparing it with every interaction of a cassette.

vcrpy looks a request up by running every matcher against every stored interaction, twice
(``can_play_response_for``, then ``play_response``), and its body matcher writes a diff for
each one that differs: a replay of a case file with n judge calls costs O(n²) diffs. Here
each interaction is filed once under what its matchers compare (method, path, query, the
body as JSON reads it), and vcrpy's own ``requests_match`` confirms the few candidates with
every configured matcher, custom ones included. Filing is only ever coarser than matching:
two requests a matcher calls equal always land in the same place, so nothing that vcrpy
would replay is missed.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Hashable, Sequence
from typing import Any

import vcr.matchers
from vcr.request import Request as VcrRequest

from .scrub import _canonical_query, citations_query

#: Matchers that compare one attribute of the request with ``==``.
_ATTRIBUTES: dict[Callable[..., Any], Callable[[VcrRequest], Hashable]] = {
    vcr.matchers.method: lambda request: request.method,
    vcr.matchers.uri: lambda request: request.uri,
    vcr.matchers.scheme: lambda request: request.scheme,
    vcr.matchers.host: lambda request: request.host,
    vcr.matchers.port: lambda request: request.port,
    vcr.matchers.path: lambda request: request.path,
    vcr.matchers.query: lambda request: tuple(request.query),
    citations_query: lambda request: tuple(_canonical_query(request)),
}
_BODIES = (vcr.matchers.body, vcr.matchers.raw_body)
#: Content types whose bodies vcrpy's ``body`` matcher reads in ways a key cannot follow
#: (form fields in any order, XML-RPC, chunked): filed where every lookup looks.
_UNKEYED_TYPES = ("application/x-www-form-urlencoded", "text/xml", "application/xml")


def _normalised(value: Any) -> Any:
    """A parsed JSON value with the distinctions ``==`` ignores removed (``true == 1``,
    ``1.0 == 1``), so that values vcrpy finds equal file under one key."""
    if isinstance(value, dict):
        return {str(k): _normalised(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_normalised(v) for v in value]
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def _header(request: VcrRequest, name: str) -> str:
    value = request.headers.get(name) or request.headers.get(name.title()) or ""
    return value.decode("latin-1") if isinstance(value, bytes) else str(value)


def body_key(request: VcrRequest, raw: bool = False) -> Hashable | None:
    """What the body matcher compares, as a key; None when it cannot be keyed."""
    body = request.body or b""
    data = body.encode("utf-8") if isinstance(body, str) else bytes(body)
    if raw:
        return data
    kind = _header(request, "content-type").lower()
    if _header(request, "transfer-encoding").lower() == "chunked" or kind.startswith(
        _UNKEYED_TYPES
    ):
        return None
    try:
        return json.dumps(_normalised(json.loads(data)), sort_keys=True, separators=(",", ":"))
    except (ValueError, RecursionError):  # not JSON, or nested deeper than it can be read
        return data  # compared as bytes whatever the headers say


class InteractionIndex:
    """The interactions of one cassette, filed by what ``match_on`` compares."""

    def __init__(self, match_on: Sequence[Callable[..., Any]]) -> None:
        self.match_on = tuple(match_on)
        self._parts = [_ATTRIBUTES[m] for m in self.match_on if m in _ATTRIBUTES]
        body = next((m for m in self.match_on if m in _BODIES), None)
        self._body: bool | None = None if body is None else body is vcr.matchers.raw_body
        #: key -> body key -> indexes, and key -> indexes whose body cannot be keyed.
        self._files: dict[Hashable, dict[Hashable, list[int]]] = {}
        self._loose: dict[Hashable, list[int]] = {}
        self._filed = 0
        #: Keys by request object (held, so that an id is never reused while cached).
        self._known: dict[int, tuple[VcrRequest, tuple[Hashable, Hashable | None]]] = {}

    def _keys(self, request: VcrRequest) -> tuple[Hashable, Hashable | None]:
        known = self._known.get(id(request))
        if known is not None and known[0] is request:
            return known[1]
        key = tuple(part(request) for part in self._parts)
        keys = (key, b"" if self._body is None else body_key(request, raw=self._body))
        self._known[id(request)] = (request, keys)
        return keys

    def update(self, data: Sequence[tuple[VcrRequest, Any]]) -> None:
        """File the interactions appended since the last call."""
        for index in range(self._filed, len(data)):
            key, body = self._keys(data[index][0])
            if body is None:
                self._loose.setdefault(key, []).append(index)
            else:
                self._files.setdefault(key, {}).setdefault(body, []).append(index)
        self._filed = len(data)

    def candidates(self, request: VcrRequest) -> list[int]:
        """Indexes of the interactions that may match ``request``, in recorded order."""
        key, body = self._keys(request)
        filed = self._files.get(key, {})
        if body is None:
            found = [index for indexes in filed.values() for index in indexes]
        else:
            found = list(filed.get(body, ()))
        found += self._loose.get(key, ())
        return sorted(found)

    def matches(self, first: VcrRequest, second: VcrRequest) -> bool:
        """vcrpy's verdict on two requests, after a quick look at their keys."""
        (key1, body1), (key2, body2) = self._keys(first), self._keys(second)
        if key1 != key2 or (body1 is not None and body2 is not None and body1 != body2):
            return False
        return bool(vcr.matchers.requests_match(first, second, self.match_on))
