"""``--citations-concurrency`` (env ``BATCH_CONCURRENCY``): the claims of a case file are
verified concurrently inside its cassette, never more requests in flight than allowed."""

from __future__ import annotations

import pytest
from plugin_helpers import (
    BOILING_URL,
    REFUNDS_CLAIM,
    REFUNDS_URL,
    RETURNS_URL,
    SOFTWARE_URL,
    SUPPORTED_CLAIM,
    Citations,
    crawled_urls,
)

FOUR_PAGES = f"""\
id: four
citations: [{BOILING_URL}, {REFUNDS_URL}, {RETURNS_URL}, {SOFTWARE_URL}]
claims:
  - {{text: {SUPPORTED_CLAIM}, cites: [1]}}
  - {{text: {REFUNDS_CLAIM}, cites: [2]}}
  - {{text: Consumers can return hardware within 30 days of delivery., cites: [3]}}
  - {{text: Unopened boxed software can be returned within 30 days., cites: [4]}}
"""


@pytest.mark.parametrize(
    ("args", "env", "expected"),
    [
        ((), None, range(2, 5)),
        (("--citations-concurrency", "1"), None, range(1, 2)),
        ((), "1", range(1, 2)),
        (("--citations-concurrency", "3"), "1", range(2, 4)),
    ],
    ids=["default-4", "option-1", "env-1", "option-wins-over-env"],
)
def test_claims_of_a_file_are_verified_concurrently_within_the_limit(
    citations: Citations, args: tuple[str, ...], env: str | None, expected: range
) -> None:
    citations.write("cases/four.yaml", FOUR_PAGES)
    if env:
        citations.monkeypatch.setenv("BATCH_CONCURRENCY", env)
    with citations.web(latency=0.3) as web:
        result = citations.run("cases/", "--citations-record=once", *args)

    result.assert_outcomes(passed=5)
    assert web.crawlbase.crawl_count == 4
    assert web.crawlbase.max_in_flight in expected
    # Recorded concurrently, the cassette still holds every page once.
    assert sorted(crawled_urls(citations.cassette("cases/four.yaml"))) == sorted(
        [BOILING_URL, REFUNDS_URL, RETURNS_URL, SOFTWARE_URL]
    )
    assert citations.run("cases/").ret == pytest.ExitCode.OK


def test_invalid_concurrency_is_a_usage_error(citations: Citations) -> None:
    citations.write("cases/four.yaml", FOUR_PAGES)

    result = citations.run("cases/", "--citations-concurrency", "0")

    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--citations-concurrency must be at least 1*"])
