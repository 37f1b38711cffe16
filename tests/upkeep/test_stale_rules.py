"""The rules of :func:`~pytest_citations.upkeep.stale.staleness` on recorded requests of each
kind (issue 27): a fetch is matched in the form the fetcher requests its URL (IDNA, its
JavaScript retry with it), a stored page read goes with the fetches that stored its page,
and what prune cannot tell (a read of a page no fetch stored, a request of another kind, a
judge body that names no claim) is kept and said."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from vcr.request import Request as VcrRequest

from pytest_citations.drift import DriftSource
from pytest_citations.recording.files import Interaction
from pytest_citations.recording.needs import CaseNeeds
from pytest_citations.upkeep.stale import staleness

API = "http://127.0.0.1:9/"
KEPT_URL = "https://bücher.example/katalog"
KEPT_SENT = "https://xn--bcher-kva.example/katalog"  # as the fetcher requests it (IDNA)
DROPPED_URL = "https://example.org/dropped"


def needs(tmp_path: Path, *urls: str) -> CaseNeeds:
    cited = "\n".join(f"  {n}: {url}" for n, url in enumerate(urls, start=1))
    marks = ", ".join(str(n) for n in range(1, len(urls) + 1))
    path = tmp_path / "cases" / "c.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        f"id: c\ncitations:\n{cited}\nclaims:\n  - text: A claim.\n    cites: [{marks}]\n",
        encoding="utf-8",
    )
    source = DriftSource.from_case_file(path, tmp_path / "cassettes", tmp_path)
    return CaseNeeds.of(claim.request for claim in source.claims)


def crawl(url: str, *, javascript: bool = False, rid: str = "") -> Interaction:
    token = "<CRAWLBASE_JS_TOKEN>" if javascript else "<CRAWLBASE_TOKEN>"
    headers: dict[str, Any] = {}
    if rid:
        headers["storage_url"] = [f"{API}storage?token=<CRAWLBASE_TOKEN>&rid={rid}"]
    request = VcrRequest("GET", f"{API}?token={token}&url={url}&format=md&store=true", "", {})
    return request, {"status": {"code": 200}, "headers": headers, "body": {"string": b"# Page"}}


def read(rid: str) -> Interaction:
    request = VcrRequest("GET", f"{API}storage?token=<CRAWLBASE_TOKEN>&rid={rid}", "", {})
    return request, {"status": {"code": 200}, "headers": {}, "body": {"string": b"# Page"}}


def post(uri: str, body: str) -> Interaction:
    return VcrRequest("POST", uri, body, {}), {"status": {"code": 200}, "headers": {}}


def stale_lines(interactions: list[Interaction], needed: CaseNeeds) -> list[str]:
    return [found.what for found in staleness(interactions, {}, needed, {}).stale]


def test_a_fetch_is_needed_in_the_form_the_fetcher_requests_its_url(tmp_path: Path) -> None:
    interactions = [crawl(KEPT_SENT), crawl(DROPPED_URL), crawl(DROPPED_URL, javascript=True)]

    found = staleness(interactions, {}, needs(tmp_path, KEPT_URL), {})

    assert [(s.what, s.interactions) for s in found.stale] == [
        (f"fetch {DROPPED_URL}, 2 requests", (1, 2))  # its JavaScript retry goes with it
    ]
    assert found.unsure == []


def test_a_stored_page_read_goes_with_the_fetches_that_stored_its_page(tmp_path: Path) -> None:
    interactions = [
        crawl(KEPT_SENT, rid="kept1"),
        crawl(DROPPED_URL, rid="gone1"),
        read("kept1"),
        read("gone1"),
        read("nobody"),
    ]

    found = staleness(interactions, {}, needs(tmp_path, KEPT_URL), {})

    assert [(s.what, s.interactions) for s in found.stale] == [
        (f"fetch {DROPPED_URL}", (1,)),
        (f"stored page read of {DROPPED_URL} (rid gone1)", (3,)),
    ]
    assert found.unsure == ["1 stored page read of a page no fetch in the cassette stored"]


def test_what_prune_cannot_read_is_kept_and_said(tmp_path: Path) -> None:
    message = {"messages": [{"role": "user", "content": "Is it so?"}]}
    interactions = [
        crawl(KEPT_SENT),
        post(f"{API}v1/chat/completions", "not json"),
        post(f"{API}v1/chat/completions", json.dumps(message)),
        (VcrRequest("GET", "http://127.0.0.1:9/other", "", {}), {"status": {"code": 200}}),
    ]

    found = staleness(interactions, {}, needs(tmp_path, KEPT_URL), {})

    assert found.stale == []
    assert found.unsure == [
        "2 judge calls whose body names no claim",
        "1 interaction of another kind",
    ]
