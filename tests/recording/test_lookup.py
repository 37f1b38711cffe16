"""Finding a recording by index (issue 10, "a cold replay"): the same answers as vcrpy's
scan of every interaction, without the scan."""

from __future__ import annotations

import json

import pytest
import vcr.matchers
from vcr.request import Request as VcrRequest

from pytest_citations.recording.lookup import InteractionIndex
from pytest_citations.recording.scrub import citations_query

DEFAULT = (vcr.matchers.method, vcr.matchers.path, citations_query, vcr.matchers.body)
JUDGE = "https://api.openai.com/v1/chat/completions"
CRAWL = "https://api.crawlbase.com/?token=<CRAWLBASE_TOKEN>&url=https%3A%2F%2Fa.example%2F"


def post(body: bytes | str, content_type: str = "application/json", url: str = JUDGE):
    return VcrRequest("POST", url, body, {"content-type": content_type})


def get(url: str) -> VcrRequest:
    return VcrRequest("GET", url, None, {})


PAIRS = [
    # JSON bodies vcrpy compares parsed: key order, spacing, 1 == 1.0 == true.
    (post('{"a": 1, "b": [1, 2]}'), post('{"b":[1,2],"a":1}')),
    (post('{"t": 1.0}'), post('{"t": 1}')),
    (post('{"t": true}'), post('{"t": 1}')),
    (post('{"t": 0.5}'), post('{"t": 0.25}')),
    # A body that is not JSON, or JSON sent under another type.
    (post(b"plain", "text/plain"), post(b"plain", "text/plain")),
    (post('{"a": 1}', "text/plain"), post('{"a":1}', "application/json")),
    (post(b"not json"), post(b"not json")),
    # Form fields in another order: vcrpy parses them.
    (post("a=1&b=2", "application/x-www-form-urlencoded"),
     post("b=2&a=1", "application/x-www-form-urlencoded")),
    # The JavaScript token and the javascript flag are the same attempt (citations_query).
    (get(CRAWL + "&javascript=true"),
     get(CRAWL.replace("<CRAWLBASE_TOKEN>", "<CRAWLBASE_JS_TOKEN>"))),
    (get(CRAWL), get(CRAWL + "&javascript=true")),
    (get(CRAWL), VcrRequest("GET", CRAWL, b"", {})),
    (post("{}"), post("{}", url=JUDGE.replace("chat", "chats"))),
]  # fmt: skip


@pytest.mark.parametrize(("first", "second"), PAIRS)
@pytest.mark.parametrize(
    "match_on",
    [DEFAULT, (vcr.matchers.method, vcr.matchers.uri, vcr.matchers.raw_body), (vcr.matchers.path,)],
    ids=["default", "raw", "path-only"],
)
def test_the_index_agrees_with_vcrpy_on_every_pair(first, second, match_on) -> None:
    index = InteractionIndex(match_on)
    index.update([(second, None)])
    expected = vcr.matchers.requests_match(first, second, match_on)

    assert index.matches(first, second) is expected
    found = [i for i in index.candidates(first) if index.matches(first, second)]
    assert (found == [0]) is expected


def test_candidates_keep_recorded_order_and_duplicates() -> None:
    bodies = [json.dumps({"claim": n % 3}) for n in range(9)]
    data = [(post(body), {"n": n}) for n, body in enumerate(bodies)]
    index = InteractionIndex(DEFAULT)
    index.update(data[:4])
    index.update(data)  # only the new ones are filed

    assert index.candidates(post('{"claim": 1}')) == [1, 4, 7]


def test_a_custom_matcher_still_decides() -> None:
    def same_model(first: VcrRequest, second: VcrRequest) -> bool:
        return json.loads(first.body)["model"] == json.loads(second.body)["model"]

    index = InteractionIndex((vcr.matchers.method, same_model))
    recorded = post('{"model": "a", "seed": 1}')
    index.update([(recorded, None)])

    assert index.candidates(post('{"model": "b"}')) == [0]  # filed by method only
    assert index.matches(post('{"model": "a", "seed": 2}'), recorded)
    assert not index.matches(post('{"model": "b"}'), recorded)


def test_a_lookup_compares_a_handful_of_interactions_not_all() -> None:
    compared = 0

    def counting(first: VcrRequest, second: VcrRequest) -> None:
        nonlocal compared
        compared += 1

    match_on = (*DEFAULT, counting)
    data = [(post(json.dumps({"claim": n})), None) for n in range(2000)]
    index = InteractionIndex(match_on)
    index.update(data)

    for n in range(0, 2000, 100):
        request = post(json.dumps({"claim": n}))
        hits = [i for i in index.candidates(request) if index.matches(request, data[i][0])]
        assert hits == [n]
    assert compared == 20  # one confirmation per lookup; a scan would be 2000 each
