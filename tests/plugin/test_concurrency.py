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
        result = citations.run("cases/", "--citations-record=once", *args, gate="default")

    result.assert_outcomes(passed=5)
    assert web.crawlbase.crawl_count == 4
    assert web.crawlbase.max_in_flight in expected
    # Recorded concurrently, the cassette still holds every page once.
    assert sorted(crawled_urls(citations.cassette("cases/four.yaml"))) == sorted(
        [BOILING_URL, REFUNDS_URL, RETURNS_URL, SOFTWARE_URL]
    )
    assert citations.run("cases/", gate="default").ret == pytest.ExitCode.OK


def test_invalid_concurrency_is_a_usage_error(citations: Citations) -> None:
    citations.write("cases/four.yaml", FOUR_PAGES)

    result = citations.run("cases/", "--citations-concurrency", "0", gate="default")

    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--citations-concurrency must be at least 1*"])


# Case files verified ahead of their items (issue 10) ----------------------------------
PAGES = [
    (BOILING_URL, SUPPORTED_CLAIM),
    (REFUNDS_URL, REFUNDS_CLAIM),
    (RETURNS_URL, "Consumers can return hardware within 30 days of delivery."),
    (SOFTWARE_URL, "Unopened boxed software can be returned within 30 days."),
]


def one_page_per_file(citations: Citations) -> list[str]:
    names = []
    for number, (url, claim) in enumerate(PAGES):
        name = f"cases/file{number}.yaml"
        text = f"id: f{number}\ncitations: [{url}]\nclaims:\n  - {{text: {claim}, cites: [1]}}\n"
        citations.write(name, text)
        names.append(name)
    return names


def test_case_files_are_verified_ahead_each_into_its_own_cassette(citations: Citations) -> None:
    names = one_page_per_file(citations)
    with citations.web(latency=0.3) as web:
        result = citations.run("cases/", "--citations-record=once", "-p", "no:randomly",
                               gate="default")

    result.assert_outcomes(passed=8)
    # One claim and one page per file: one file at a time would never have two crawls out.
    assert web.crawlbase.max_in_flight >= 2
    for name, (url, _) in zip(names, PAGES, strict=True):
        assert crawled_urls(citations.cassette(name)) == [url]
    replay = citations.run("cases/", gate="default")
    replay.assert_outcomes(passed=8)


def test_a_replay_verifies_ahead_and_reports_in_item_order(citations: Citations) -> None:
    one_page_per_file(citations)
    with citations.web():
        assert citations.run("cases/", "--citations-record=once",
                             gate="default").ret == pytest.ExitCode.OK

    result = citations.run("cases/", "-p", "no:randomly", "-v", gate="default")

    result.assert_outcomes(passed=8)
    ran = [line.split(" ")[0] for line in result.outlines if " PASSED" in line]
    assert ran == sorted(ran)


def test_a_file_whose_cassette_is_missing_does_not_hold_up_the_others(
    citations: Citations,
) -> None:
    names = one_page_per_file(citations)
    with citations.web():
        assert citations.run("cases/", "--citations-record=once",
                             gate="default").ret == pytest.ExitCode.OK
    citations.cassette(names[1]).unlink()

    result = citations.run("cases/", "-p", "no:randomly", gate="default")

    result.assert_outcomes(passed=7, errors=1)
    result.stdout.fnmatch_lines(["*file1.yaml*--citations-record=new_episodes*"])
