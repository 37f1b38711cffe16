"""Inside ordinary tests: the ``citation_verifier`` fixture and the assertion helpers, with
a cassette per test (``cassettes/<test dir>/<module>/<Class>.<test>.yaml``) replayed
offline."""

from __future__ import annotations

import pytest
from plugin_helpers import (
    BOILING_URL,
    CONTRADICTED_CLAIM,
    OLD_REPORT_URL,
    REFUNDS_CLAIM,
    REFUNDS_URL,
    SUPPORTED_CLAIM,
    Citations,
    crawled_urls,
)

TESTS = f"""\
import pytest

from pytest_citations import (
    Label,
    assert_not_contradicted,
    assert_precision,
    assert_supported,
)

BOILING = "{BOILING_URL}"
OLD_REPORT = "{OLD_REPORT_URL}"
REFUNDS = "{REFUNDS_URL}"


def test_verify(citation_verifier):
    verdict = citation_verifier.verify("{SUPPORTED_CLAIM}", [BOILING, OLD_REPORT])
    assert verdict.label is Label.SUPPORTED
    assert [c.label.value for c in verdict.citations] == ["supported", "unreachable"]
    assert verdict.citations[0].evidence_quote.startswith("Water boils at 100")
    assert verdict.citations[1].reason == "http_404"
    assert citation_verifier.verdicts == [verdict]
    assert citation_verifier.cassette.name == "test_verify.yaml"


def test_helpers(citation_verifier):
    supported = assert_supported("{REFUNDS_CLAIM}", [REFUNDS])
    also = citation_verifier.assert_supported("{SUPPORTED_CLAIM}", BOILING)
    citation_verifier.assert_not_contradicted("{SUPPORTED_CLAIM}", BOILING)
    assert_not_contradicted("{SUPPORTED_CLAIM}", [BOILING, OLD_REPORT])
    precision = assert_precision([supported, also], minimum=1.0)
    assert (precision.supported, precision.total) == (2, 2)


def test_assert_supported_fails(citation_verifier):
    citation_verifier.assert_supported("{CONTRADICTED_CLAIM}", BOILING)


def test_assert_not_contradicted_fails(citation_verifier):
    assert_not_contradicted("{CONTRADICTED_CLAIM}", [BOILING])


def test_assert_precision_fails(citation_verifier):
    verdict = citation_verifier.verify("{SUPPORTED_CLAIM}", [BOILING, OLD_REPORT])
    assert_precision([verdict], minimum=0.75)


def test_helper_without_the_fixture():
    assert_supported("{SUPPORTED_CLAIM}", BOILING)
"""

PASSING = ("test_verify", "test_helpers")
FAILING = (
    "test_assert_supported_fails",
    "test_assert_not_contradicted_fails",
    "test_assert_precision_fails",
)


def check_outcomes(result: pytest.RunResult) -> None:
    """The two passing tests pass; the helpers fail with readable messages."""
    result.assert_outcomes(passed=2, failed=4)
    result.stdout.fnmatch_lines(
        [
            "*_ test_assert_supported_fails _*",
            "E *AssertionError: claim is not supported by its citations",
            f"E *claim: {CONTRADICTED_CLAIM}",
            "E *label: contradicted",
            f"E *{BOILING_URL}",
            "E *contradicted, confidence 0.90",
            "E *origin status: 200, rid: *",
            'E *quote: "On high mountains the air pressure is lower*90 °C*"',
        ]
    )
    result.stdout.fnmatch_lines(
        [
            "*_ test_assert_not_contradicted_fails _*",
            "E *AssertionError: claim is contradicted by a cited page",
            f"E *claim: {CONTRADICTED_CLAIM}",
            "E *label: contradicted",
        ]
    )
    result.stdout.fnmatch_lines(
        [
            "*_ test_assert_precision_fails _*",
            "E *AssertionError: citation precision 0.5000 (1/2) is below the minimum 0.7500",
            f"E *unreachable  {OLD_REPORT_URL} (http_404)",
        ]
    )
    result.stdout.fnmatch_lines(
        [
            "*_ test_helper_without_the_fixture _*",
            "E *RuntimeError: no citation verifier is active: request the 'citation_verifier' "
            "fixture in this test, or pass verifier=",
        ]
    )


def test_fixture_and_helpers_record_then_replay_offline(citations: Citations) -> None:
    citations.pytester.makepyfile(test_answers=TESTS)
    with citations.web() as web:
        recorded = citations.run_tests("--citations-record=once")

    check_outcomes(recorded)
    assert web.crawlbase.crawl_count == 3  # one fetch per URL for the whole session
    written = sorted(p.name for p in (citations.path / "cassettes" / "test_answers").iterdir())
    assert written == sorted(f"{name}.yaml" for name in PASSING + FAILING)
    # A page fetched for an earlier test is copied into every later test's cassette.
    assert set(crawled_urls(citations.path / "cassettes/test_answers/test_verify.yaml")) == {
        BOILING_URL,
        OLD_REPORT_URL,
    }
    assert crawled_urls(
        citations.path / "cassettes/test_answers/test_assert_supported_fails.yaml"
    ) == [BOILING_URL]

    replayed = citations.run_tests()

    check_outcomes(replayed)


def test_each_test_replays_from_its_own_cassette(citations: Citations) -> None:
    citations.pytester.makepyfile(test_answers=TESTS)
    with citations.web():
        citations.run_tests("--citations-record=once")

    alone = citations.run_tests("test_answers.py::test_assert_precision_fails")

    alone.assert_outcomes(failed=1)
    alone.stdout.fnmatch_lines(["E *AssertionError: citation precision 0.5000 (1/2)*"])
    assert "request_refused" not in alone.stdout.str()


def test_missing_test_cassette_names_it_and_the_command(citations: Citations) -> None:
    citations.pytester.makepyfile(test_answers=TESTS)

    result = citations.run_tests("test_answers.py::test_verify")

    result.assert_outcomes(failed=1)
    assert not list((citations.path / "cassettes").rglob("*.yaml"))  # none written
    result.stdout.fnmatch_lines(
        [
            "*cassettes/test_answers/test_verify.yaml has no recording of the Crawlbase crawl of "
            f"{BOILING_URL} (normal token, readability); record it with: CRAWLBASE_TOKEN=… "
            "OPENAI_API_KEY=… pytest test_answers.py::test_verify "
            "--citations-record=new_episodes*"
        ]
    )


def test_fixture_in_a_test_class_and_a_parametrized_test(citations: Citations) -> None:
    citations.pytester.makepyfile(
        test_more=f"""
        import pytest

        class TestAnswers:
            @pytest.mark.parametrize("url", ["{BOILING_URL}"])
            def test_boiling(self, citation_verifier, url):
                citation_verifier.assert_supported("{SUPPORTED_CLAIM}", url)
        """
    )
    with citations.web():
        recorded = citations.run_tests("--citations-record=once")
    replayed = citations.run_tests()

    recorded.assert_outcomes(passed=1)
    replayed.assert_outcomes(passed=1)
    # pytest-recording's name: the class, a dot, the test with its parameters ("/" made safe).
    cassettes = [p.name for p in (citations.path / "cassettes" / "test_more").iterdir()]
    assert cassettes == ["TestAnswers.test_boiling[https---example.org-physics-boiling].yaml"]


def test_recording_without_a_token_is_one_usage_error(citations: Citations) -> None:
    citations.pytester.makepyfile(test_answers=TESTS)
    with citations.web(tokens={"OPENAI_API_KEY": "sk-only-the-judge"}) as web:
        result = citations.run_tests("--citations-record=once")

    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stdout.fnmatch_lines(
        ["*--citations-record=once sends requests and needs CRAWLBASE_TOKEN*"]
    )
    assert "Traceback" not in result.stdout.str()
    assert web.requests == 0
