"""What a cassette recorded, read only: the Crawling API calls behind each cited page, the
judge requests, for the drift check.

Nothing here changes how cassettes are read, matched, written or replayed; the drift check
(:mod:`pytest_citations.drift`) uses it to know which interactions belong to which page.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qsl, urlsplit

from vcr.request import Request as VcrRequest

from ..pipeline.recall import ChoiceKey
from ..retrieval.selection import Selection
from .choices import parse_choices
from .files import Interaction, parse_cassette, read_cassette

if TYPE_CHECKING:
    from .signing import TrustedKeys


def _query(request: VcrRequest) -> dict[str, str]:
    return dict(parse_qsl(urlsplit(request.uri).query, keep_blank_values=True))


def crawl_target(request: VcrRequest) -> str | None:
    """The page a Crawling API request asked for (its ``url`` parameter, in the form
    :func:`~pytest_citations.fetchers.urls.request_url` gives), or None for a storage read or a
    judge call."""
    if request.method != "GET":
        return None
    return _query(request).get("url") or None


def is_judge_call(request: VcrRequest) -> bool:
    """A judge request: a POST that names neither a page nor a stored page."""
    query = _query(request)
    return request.method == "POST" and "url" not in query and "rid" not in query


def read_interactions(path: Path) -> list[Interaction]:
    """The interactions of a cassette file, checked as a replay checks them. Raises
    ``OSError`` or :class:`~pytest_citations.recording.files.CassetteContentError`."""
    return parse_cassette(path.read_bytes())


def read_recording(
    path: Path, trust: TrustedKeys | None = None
) -> tuple[list[Interaction], dict[ChoiceKey, Selection]]:
    """The interactions of a cassette file and retrieval's choices it holds, checked as a
    replay checks them (with ``trust``, its signature too). Raises ``OSError``,
    :class:`~pytest_citations.recording.files.CassetteContentError` or
    :class:`~pytest_citations.errors.SignatureRefused`."""
    interactions, section = read_cassette(path.read_bytes(), trust.check if trust else None)
    return interactions, parse_choices(section)


def body_text(request: VcrRequest) -> str:
    """A recorded request's body as text."""
    body = request.body
    return body.decode("utf-8", "replace") if isinstance(body, bytes) else str(body or "")


def judge_bodies(interactions: Sequence[Interaction]) -> list[str]:
    """The body of every judge request, as recorded (each one a distinct judge call when
    the recording was made)."""
    return [body_text(request) for request, _ in interactions if is_judge_call(request)]


def _strings(value: Any) -> Iterator[str]:
    """Every string in a parsed JSON value."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            yield item
        elif isinstance(item, dict):
            stack += item.values()
        elif isinstance(item, list):
            stack += item


def body_strings(body: str) -> frozenset[str]:
    """Every string of a JSON request body (a judge call's messages among them); empty for
    a body that is not JSON."""
    try:
        return frozenset(_strings(json.loads(body)))
    except (ValueError, RecursionError):
        return frozenset()
