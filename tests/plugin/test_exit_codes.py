"""The exit statuses docs/getting-started.md documents: 0 all passed, 1 a claim or case
failed (or the suite's precision is too low), 2 interrupted (a token the API refused),
4 usage error, 5 nothing collected."""

from __future__ import annotations

import pytest
from plugin_helpers import (
    BOILING_CASE,
    BOILING_URL,
    SUPPORTED_CLAIM,
    TOKENS,
    Citations,
    single_claim_case,
)


def test_all_passed_is_0_and_a_failed_claim_is_1(citations: Citations) -> None:
    citations.write("cases/good.yaml", single_claim_case("good", SUPPORTED_CLAIM, BOILING_URL))
    citations.write("cases/boiling.yaml", BOILING_CASE)
    citations.record("cases/", gate="default")

    assert citations.run("cases/good.yaml", gate="default").ret == pytest.ExitCode.OK
    assert citations.run("cases/", gate="default").ret == pytest.ExitCode.TESTS_FAILED


def test_nothing_collected_is_5(citations: Citations) -> None:
    citations.write("cases/README.md", "no case files here")

    assert citations.run("cases/", gate="default").ret == pytest.ExitCode.NO_TESTS_COLLECTED


def test_a_refused_token_interrupts_the_run_with_2(citations: Citations) -> None:
    citations.write("cases/a.yaml", single_claim_case("a", SUPPORTED_CLAIM, BOILING_URL))
    citations.write("cases/b.yaml", single_claim_case("b", SUPPORTED_CLAIM, BOILING_URL))
    with citations.web() as web:
        wrong = "wrong-token-" + TOKENS["CRAWLBASE_TOKEN"]
        citations.monkeypatch.setenv("CRAWLBASE_TOKEN", wrong)
        result = citations.run("cases/", "--citations-record=once", gate="default")

    assert result.ret == pytest.ExitCode.INTERRUPTED
    assert web.crawlbase.crawl_count >= 1
    assert {record.status for record in web.crawlbase.requests} == {401}
    result.stdout.fnmatch_lines(["*CRAWLBASE_TOKEN*", "*Interrupted*"], consecutive=False)
    assert "cases/b.yaml" not in result.stdout.str()  # stopped before the next file
    assert wrong not in result.stdout.str() + result.stderr.str()
    assert "Traceback" not in result.stdout.str()
