"""Issue 8, where the engine's guarantees meet the pytest shell: what a user sees when a
run could not check something, when the account is out of credits, when a test using the
fixture is interrupted, and when a cassette could not be read."""

from __future__ import annotations

import pytest
from plugin_helpers import (
    BOILING_URL,
    CONTRADICTED_CLAIM,
    REFUNDS_CLAIM,
    REFUNDS_URL,
    SUPPORTED_CLAIM,
    Citations,
    Web,
    single_claim_case,
)

WATER = single_claim_case("water", SUPPORTED_CLAIM, BOILING_URL)
REFUNDS = single_claim_case("refunds", REFUNDS_CLAIM, REFUNDS_URL)


def failing(web: Web, url: str, errors: list[int]) -> None:
    """Serve ``url`` as the example site does, after ``errors`` (a copy of the site's page:
    the site's own page objects are shared by every test)."""
    web.crawlbase.add(url, markdown=web.crawlbase.pages[url].markdown, errors=list(errors))


def release_line(result: pytest.RunResult) -> str:
    (line,) = [line for line in result.outlines if line.startswith("Release decision: ")]
    return line


def test_a_file_whose_cassette_cannot_be_read_never_makes_the_decision_pass(
    citations: Citations,
) -> None:
    citations.write("cases/water.yaml", WATER)
    citations.write("cases/refunds.yaml", REFUNDS)
    citations.record("cases/", gate="default")[0].assert_outcomes(passed=4)
    cassette = citations.cassette("cases/water.yaml")
    cassette.write_bytes(b"\xff" + cassette.read_bytes())

    result = citations.run("cases/", gate="default")

    assert result.ret != 0
    assert release_line(result).startswith(
        "Release decision: incomplete (cases/water.yaml: not verified (cassette "
        "cassettes/cases/water.yaml cannot be read"
    )
    assert "cases/refunds.yaml::refunds: fully supported 1 of 1; release decision: pass" in (
        result.outlines
    )


def test_an_account_out_of_credits_stops_the_run_and_records_nothing(
    citations: Citations,
) -> None:
    citations.write("cases/water.yaml", WATER)
    citations.write("cases/refunds.yaml", REFUNDS)
    with citations.web() as web:
        failing(web, BOILING_URL, [402])
        failing(web, REFUNDS_URL, [402])
        result = citations.run("cases/", "--citations-record=once", "-p", "no:randomly",
                               gate="default")
        crawls = web.crawlbase.crawl_count

    output = result.stdout.str()
    assert "out of credits" in output
    assert "Interrupted" in output or "stopping after" in output
    assert crawls == 1  # no retry, no JavaScript token, no second file
    assert not (citations.path / "cassettes").exists() or not list(
        (citations.path / "cassettes").rglob("*.yaml")
    )
    assert "release decision: pass" not in output.lower()


def test_cassettes_left_as_they_were_are_listed_in_the_summary_under_xdist(
    citations: Citations,
) -> None:
    pytest.importorskip("xdist")
    citations.write("cases/water.yaml", WATER)
    citations.write("cases/refunds.yaml", REFUNDS)
    with citations.web() as web:
        failing(web, BOILING_URL, [503] * 10)
        result = citations.run_subprocess("cases/", "--citations-record=once", "-n", "2",
                                          gate="default")

    assert "cassettes not written (nothing of a failed or interrupted run is recorded):" in (
        result.outlines
    )
    assert (
        "  cassettes/cases/water.yaml not written: a request failed (HTTP 503 from the "
        "Crawlbase API)"
    ) in result.outlines
    assert citations.cassette("cases/refunds.yaml").exists()
    assert not citations.cassette("cases/water.yaml").exists()


INTERRUPTED_TEST = f"""\
def test_two_claims(citation_verifier):
    citation_verifier.verify({SUPPORTED_CLAIM!r}, [{BOILING_URL!r}])
    raise KeyboardInterrupt  # as if the user pressed Ctrl-C between two checks
    citation_verifier.verify({CONTRADICTED_CLAIM!r}, [{BOILING_URL!r}])
"""


def test_a_test_interrupted_between_two_checks_records_nothing(citations: Citations) -> None:
    citations.write("tests/test_answers.py", INTERRUPTED_TEST)
    with citations.web() as web:
        # In a subprocess: an in-process run would pass the interrupt on to this one.
        result = citations.pytester.runpytest_subprocess(
            "-p",
            "no:cacheprovider",
            "--citations-embedder",
            "lexical",
            "--citations-record=once",
            "tests/",
        )
        assert web.crawlbase.crawl_count == 1  # the first check did run, and record

    assert result.ret == pytest.ExitCode.INTERRUPTED
    assert list((citations.path / "cassettes").rglob("*.yaml")) == []


def test_a_damaged_cassette_fails_a_fixture_test_in_one_clear_line(citations: Citations) -> None:
    citations.write(
        "tests/test_answers.py",
        f"def test_boils(citation_verifier):\n"
        f"    citation_verifier.assert_supported({SUPPORTED_CLAIM!r}, {BOILING_URL!r})\n",
    )
    with citations.web():
        citations.run_tests("--citations-record=once", "tests/").assert_outcomes(passed=1)
    (cassette,) = (citations.path / "cassettes").rglob("*.yaml")
    cassette.write_text("interactions: [\n", encoding="utf-8")

    result = citations.run_tests("tests/")

    result.assert_outcomes(errors=1)
    output = result.stdout.str()
    assert "cannot be read" in output
    assert "def citation_verifier" not in output  # no fixture source, no traceback


def test_the_command_does_not_exit_0_when_a_citation_could_not_be_checked(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    from ops_support import emulators, run_cli

    with emulators(tmp_path_factory.mktemp("cli")) as web:
        web.judge.fail_next(503, count=20)
        env = {**web.env, "CITATIONS_RETRIES": "0"}
        strict = run_cli("verify", CONTRADICTED_CLAIM, BOILING_URL, env=env)
        web.judge.fail_next(503, count=20)
        allowed = run_cli("verify", "--allow-unchecked", CONTRADICTED_CLAIM, BOILING_URL, env=env)

    assert strict.returncode == 1, strict.stderr
    assert "1 citation(s) could not be checked" in strict.stderr
    assert '"reason": "judge_error"' in strict.stdout
    assert allowed.returncode == 0, allowed.stderr
