"""A cassette is a file users commit and edit: a recorded request body of JSON nested
thousands deep made every claim of its case file an ERROR with a RecursionError (issue 17).
Such a body is filed by its bytes, like any body that is not JSON, and the rest of the
cassette replays."""

from __future__ import annotations

import copy

import yaml
from plugin_helpers import BOILING_URL, SUPPORTED_CLAIM, Citations, single_claim_case
from vcr.request import Request as VcrRequest

from pytest_citations.recording.lookup import body_key

JUDGE = "https://api.openai.com/v1/chat/completions"
DEEP = "[" * 3000 + "]" * 3000
#: Parsed by the JSON reader, but too deep for the recursion that normalises it.
ALMOST = "[" * 990 + "]" * 990


def test_a_body_nested_too_deeply_is_keyed_by_its_bytes() -> None:
    for body in (DEEP, ALMOST):
        request = VcrRequest("POST", JUDGE, body, {"content-type": "application/json"})
        assert body_key(request) == body.encode("utf-8")


def test_a_cassette_holding_a_body_nested_too_deeply_still_replays(citations: Citations) -> None:
    citations.write("cases/water.yaml", single_claim_case("water", SUPPORTED_CLAIM, BOILING_URL))
    citations.record("cases/", gate="default")[0].assert_outcomes(passed=2)
    path = citations.cassette("cases/water.yaml")
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    judged = data["interactions"][-1]
    # A copy: values shared with the original would be written as YAML aliases, which a
    # cassette may not hold.
    deep = copy.deepcopy(judged)
    deep["request"]["body"] = DEEP
    data["interactions"].insert(0, deep)
    path.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")

    result = citations.run("cases/", gate="default")

    result.assert_outcomes(passed=2)
    assert "RecursionError" not in result.stdout.str()
