"""Issue 8, secrets: no token in any traceback, repr, log, report or file, whatever crashes,
and whatever other plugin (pytest-recording) is active.

Every run here records with canary tokens against the emulators, prints as much as pytest
can (``--tb=long -l``, ``-rA``, DEBUG live logs, JUnit XML), and then every byte of output
and every file in the project is searched for the canaries, raw and URL-encoded.
"""

from __future__ import annotations

import socket
from pathlib import Path

import pytest
from canaries import CANARIES, files_with_leaks, leaks
from plugin_helpers import (
    BOILING_URL,
    CONTRADICTED_CLAIM,
    SUPPORTED_CLAIM,
    Citations,
)

LONG_URL = "https://example.org/" + "a" * 70_000
IDN_URL = "https://bücher.example/straße"
BAD_HOST_URL = "https://exa mple.org/x"
LOUD = ("--tb=long", "-l", "-rA", "-vv", "--junitxml=out/junit.xml")
LOGS = ("-o", "log_cli=true", "--log-cli-level=DEBUG", "--log-level=DEBUG")

CRASH_CASE = f"""\
id: crash-paths
citations:
  1: {BOILING_URL}
  2: "{LONG_URL}"
  3: {IDN_URL}
  4: "{BAD_HOST_URL}"
claims:
  - text: {SUPPORTED_CLAIM}
    cites: [1, 2]
  - text: {CONTRADICTED_CLAIM}
    cites: [1, 3]
  - text: {SUPPORTED_CLAIM}
    cites: [4]
"""


def refused_url() -> str:
    """The URL of a port on 127.0.0.1 that nothing listens on."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}/"


def assert_clean(result: pytest.RunResult, project: Path) -> str:
    """No canary in stdout, stderr or any file of the project; the output, returned, shows
    no traceback from inside the engine or httpx."""
    output = "\n".join(result.outlines + result.errlines)
    assert leaks(output) == [], output[-3000:]
    assert files_with_leaks(project) == {}
    assert "INTERNALERROR" not in output
    for crash in ("InvalidURL", "UnicodeEncodeError", "QueryParams(", "<Request("):
        assert crash not in output, crash
    return output


def test_crash_paths_of_a_recording_leave_no_token_anywhere(citations: Citations) -> None:
    citations.write("cases/crash.yaml", CRASH_CASE)
    with citations.web(tokens=CANARIES) as web:
        web.crawlbase.add(
            "https://xn--bcher-kva.example/stra%C3%9Fe",
            markdown=web.crawlbase.pages[BOILING_URL].markdown,
        )
        result = citations.run_subprocess(
            "cases/", "--citations-record=all", "--citations-report=out/report.json", *LOUD, *LOGS,
            gate="default"
        )

    output = assert_clean(result, citations.path)
    junit = (citations.path / "out" / "junit.xml").read_text(encoding="utf-8")
    assert "invalid_url" in junit  # the over-long and the broken URL, as verdicts
    assert "crash-paths::claim-3" in output
    report = (citations.path / "out" / "report.json").read_text(encoding="utf-8")
    assert report.count('"reason": "invalid_url"') == 2
    assert '"url": "https://bücher.example/straße"' in report


@pytest.mark.parametrize("down", ["judge", "crawlbase"])
def test_a_peer_that_is_down_leaves_no_token_anywhere(citations: Citations, down: str) -> None:
    citations.write(
        "cases/down.yaml",
        f"""\
        id: down
        citations:
          1: {BOILING_URL}
        claims:
          - text: {CONTRADICTED_CLAIM}
            cites: [1]
        """,
    )
    with citations.web(tokens=CANARIES):
        variable = "OPENAI_BASE_URL" if down == "judge" else "CRAWLBASE_API_URL"
        citations.monkeypatch.setenv(variable, refused_url())
        citations.monkeypatch.setenv("CITATIONS_RETRIES", "1")
        result = citations.run_subprocess("cases/", "--citations-record=all", *LOUD, *LOGS,
                                          gate="default")

    output = assert_clean(result, citations.path)
    # A contradicted claim whose check could not run must never pass.
    assert result.ret != 0
    reason = "judge_error" if down == "judge" else "fetch_error"
    assert reason in output


USER_TEST = f"""\
import pytest


@pytest.mark.vcr
def test_answer_cites_its_source(citation_verifier):
    verdict = citation_verifier.verify({CONTRADICTED_CLAIM!r}, [{BOILING_URL!r}])
    assert verdict.label == "supported"  # fails: the page contradicts the claim
"""


def test_beside_pytest_recording_our_traffic_is_never_in_its_cassette(
    citations: Citations,
) -> None:
    pytest.importorskip("pytest_recording")
    citations.write("tests/test_answers.py", USER_TEST)
    with citations.web(tokens=CANARIES) as web:
        result = citations.pytester.runpytest_subprocess(
            "-p",
            "no:cacheprovider",
            "--citations-embedder",
            "lexical",
            "--citations-record=all",
            "--record-mode=all",
            *LOUD,
            "tests/",
        )
        crawls = web.crawlbase.crawl_count

    output = assert_clean(result, citations.path)
    assert "recording" in output  # pytest-recording was active
    assert crawls >= 1  # our request really went to the network (not to its cassette)
    result.assert_outcomes(failed=1)
    assert "contradicted" in output
    theirs = citations.path / "tests" / "cassettes" / "test_answers"
    recorded = "".join(p.read_text(encoding="utf-8") for p in theirs.rglob("*.yaml"))
    assert "example.org" not in recorded  # pytest-recording captured none of our traffic
    ours = sorted((citations.path / "cassettes").rglob("*.yaml"))
    assert ours, "the fixture's own cassette was not written"
    assert "<CRAWLBASE_TOKEN>" in ours[0].read_text(encoding="utf-8")


def test_pytest_recording_in_replay_mode_does_not_block_our_replay(citations: Citations) -> None:
    """With pytest-recording replaying (its default ``none``), our requests still come from
    our own cassette rather than failing as unrecorded in its cassette."""
    pytest.importorskip("pytest_recording")
    citations.write("tests/test_answers.py", USER_TEST.replace('"supported"', '"contradicted"'))
    with citations.web(tokens=CANARIES):
        recorded = citations.pytester.runpytest_subprocess(
            "-p",
            "no:cacheprovider",
            "--citations-embedder",
            "lexical",
            "--citations-record=all",
            "--record-mode=all",
            "tests/",
        )
    recorded.assert_outcomes(passed=1)
    replayed = citations.pytester.runpytest_subprocess(
        "-p", "no:cacheprovider", "--citations-embedder", "lexical", *LOUD, "tests/"
    )
    assert_clean(replayed, citations.path)
    replayed.assert_outcomes(passed=1)
