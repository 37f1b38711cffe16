"""Cassettes never lose data (issue 8): failures are never recorded, damaged files are one
clear error and are never recorded over, each case file has a cassette of its own, a file
without its recording fails in a full run as it does alone, non-ASCII response headers
record and replay, and temporary files a killed run left behind are harmless.

Interruptions by signal are in ``test_trust_interrupt.py``.
"""

from __future__ import annotations

import fnmatch
import os
import re
from collections.abc import Callable
from pathlib import Path

import pytest
from plugin_helpers import (
    BOILING_URL,
    REFUNDS_CLAIM,
    REFUNDS_URL,
    SUPPORTED_CLAIM,
    Citations,
    crawled_urls,
    interactions,
    load_report,
    single_claim_case,
)

from pytest_citations.recording import parse_cassette, sweep_temporary_files

WATER = single_claim_case("water", SUPPORTED_CLAIM, BOILING_URL)
#: The water case with a second claim on a page its recording never fetched.
WATER_AND_REFUNDS = (
    "id: water\ncitations:\n"
    f"  1: {BOILING_URL}\n  2: {REFUNDS_URL}\n"
    f"claims:\n  - text: {SUPPORTED_CLAIM}\n    cites: [1]\n"
    f"  - text: {REFUNDS_CLAIM}\n    cites: [2]\n"
)
OTHER = single_claim_case("other", REFUNDS_CLAIM, REFUNDS_URL)


@pytest.fixture
def recorded(citations: Citations) -> Citations:
    """``cases/water.yaml`` recorded (``once``), and a conftest that prints the notes."""
    citations.write("cases/water.yaml", WATER)
    result, _ = citations.record("cases/", gate="default")
    result.assert_outcomes(passed=2)
    return citations


def outcomes(result: pytest.RunResult) -> dict[str, str]:
    """Each item's first reported outcome (PASSED, FAILED, ERROR) in a ``-v`` run."""
    found: dict[str, str] = {}
    for line in result.outlines:
        match = re.match(r"^(\S+::\S+) (PASSED|FAILED|ERROR|SKIPPED)\b", line)
        if match:
            found.setdefault(match.group(1), match.group(2))
    return found


def notes(result: pytest.RunResult) -> list[str]:
    """The cassette notes the terminal summary printed (one line per cassette left as it
    was, under "cassettes not written")."""
    return [
        line.strip()
        for line in result.outlines
        if re.match(r"^  cassettes/\S+ (left unchanged|not written): ", line)
    ]


# Failures are never recorded --------------------------------------------------------------
def test_an_expired_token_in_a_scheduled_rerecording_leaves_the_cassette_as_it_was(
    recorded: Citations,
) -> None:
    cassette = recorded.cassette("cases/water.yaml")
    before = cassette.read_bytes()

    with recorded.web() as web:
        recorded.monkeypatch.setenv("CRAWLBASE_TOKEN", "expired-token")  # refused: HTTP 401
        result = recorded.run("cases/", "--citations-record=all", gate="default")

    assert web.crawlbase.requests[0].status == 401
    assert cassette.read_bytes() == before
    assert notes(result) == [
        "cassettes/cases/water.yaml left unchanged: a request failed "
        "(HTTP 401 from the Crawlbase API)"
    ]
    # The next offline run replays the good recording, not a 401.
    recorded.run("cases/", gate="default").assert_outcomes(passed=2)


@pytest.mark.parametrize(
    ("mode", "status"),
    [
        *(("all", status) for status in (402, 403, 429, 500, 503)),
        ("new_episodes", 503),
        ("rewrite", 429),
    ],
)
def test_a_final_failure_of_the_crawlbase_api_is_never_recorded(
    recorded: Citations, mode: str, status: int
) -> None:
    recorded.write("cases/water.yaml", WATER_AND_REFUNDS)
    cassette = recorded.cassette("cases/water.yaml")
    before = cassette.read_bytes()
    recorded.monkeypatch.setenv("CITATIONS_RETRIES", "0")

    with recorded.web() as web:
        web.crawlbase.add(REFUNDS_URL, markdown="# Refunds\n", errors=[status] * 4)
        result = recorded.run("cases/", f"--citations-record={mode}", gate="default")

    assert status in {record.status for record in web.crawlbase.requests}
    assert cassette.read_bytes() == before
    assert notes(result) == [
        "cassettes/cases/water.yaml left unchanged: a request failed "
        f"(HTTP {status} from the Crawlbase API)"
    ]


def test_a_new_cassette_whose_run_failed_is_not_written(citations: Citations) -> None:
    citations.write("cases/water.yaml", WATER)
    citations.write("cases/other.yaml", OTHER)
    citations.monkeypatch.setenv("CITATIONS_RETRIES", "0")

    with citations.web() as web:
        web.crawlbase.add(BOILING_URL, markdown="# Boiling\n", errors=[503] * 4)
        result = citations.run("cases/", "--citations-record=once", gate="default")

    assert not citations.cassette("cases/water.yaml").exists()
    assert crawled_urls(citations.cassette("cases/other.yaml")) == [REFUNDS_URL]
    assert notes(result) == [
        "cassettes/cases/water.yaml not written: a request failed (HTTP 503 from the Crawlbase API)"
    ]


def test_a_judge_that_cannot_be_reached_is_never_recorded(
    recorded: Citations, refused_url: str
) -> None:
    recorded.write("cases/water.yaml", WATER_AND_REFUNDS)
    cassette = recorded.cassette("cases/water.yaml")
    before = cassette.read_bytes()
    recorded.monkeypatch.setenv("CITATIONS_RETRIES", "0")

    with recorded.web() as web:
        recorded.monkeypatch.setenv("OPENAI_BASE_URL", refused_url + "v1")
        result = recorded.run("cases/", "--citations-record=new_episodes", gate="default")

    assert web.crawlbase.count(REFUNDS_URL) == 1  # the page came; its judge call did not
    assert cassette.read_bytes() == before
    assert notes(result) == [
        "cassettes/cases/water.yaml left unchanged: a request failed (the connection to "
        "the judge (POST /v1/chat/completions) failed (ConnectError))"
    ]


def test_a_judge_error_is_never_recorded(recorded: Citations) -> None:
    recorded.write("cases/water.yaml", WATER_AND_REFUNDS)
    cassette = recorded.cassette("cases/water.yaml")
    before = cassette.read_bytes()
    recorded.monkeypatch.setenv("CITATIONS_RETRIES", "0")

    with recorded.web() as web:
        web.judge.fail_next(500)
        result = recorded.run("cases/", "--citations-record=new_episodes", gate="default")

    assert web.judge.call_count == 1
    assert cassette.read_bytes() == before
    assert notes(result) == [
        "cassettes/cases/water.yaml left unchanged: a request failed (HTTP 500 from the "
        "judge (POST /v1/chat/completions))"
    ]


def test_a_timeout_is_never_recorded(recorded: Citations) -> None:
    cassette = recorded.cassette("cases/water.yaml")
    before = cassette.read_bytes()
    recorded.monkeypatch.setenv("CITATIONS_RETRIES", "0")
    recorded.monkeypatch.setenv("CITATIONS_TIMEOUT", "0.2")

    with recorded.web() as web:
        web.crawlbase.add(BOILING_URL, markdown="# Boiling\n", latency=5.0)
        result = recorded.run("cases/", "--citations-record=all", gate="default")

    assert cassette.read_bytes() == before
    assert notes(result) == [
        "cassettes/cases/water.yaml left unchanged: a request failed (no answer in time "
        "from the Crawlbase API)"
    ]


def test_a_failure_that_a_retry_overcame_is_left_out_and_the_rest_is_written(
    citations: Citations,
) -> None:
    citations.write("cases/water.yaml", WATER)
    citations.monkeypatch.setenv("CITATIONS_RETRIES", "1")

    with citations.web() as web:
        # Answered with Retry-After: 0, then the page. (A new page: the example site's pages
        # are shared objects, and must not keep this failure for the next test.)
        boiling = web.crawlbase.pages[BOILING_URL].markdown
        web.crawlbase.add(BOILING_URL, markdown=boiling, errors=[429])
        result = citations.run("cases/", "--citations-record=once", gate="default")

    assert [record.status for record in web.crawlbase.requests] == [429, 200]
    result.assert_outcomes(passed=2)
    assert notes(result) == []
    stored = interactions(citations.cassette("cases/water.yaml"))
    assert [i["response"]["status"]["code"] for i in stored] == [200, 200]  # crawl, judge
    citations.run("cases/", gate="default").assert_outcomes(passed=2)


def test_the_crawling_apis_520_is_recorded_because_a_replay_needs_it(
    citations: Citations,
) -> None:
    # F6: HTTP 520 is the API's answer about the page (the crawl failed), and the reason
    # the citation escalates to JavaScript; without it a replay would take another path.
    citations.write("cases/water.yaml", WATER)
    with citations.web() as web:
        boiling = web.crawlbase.pages[BOILING_URL].markdown
        web.crawlbase.add(BOILING_URL, markdown=boiling, fail_normal=True)
        recorded = citations.run("cases/", "--citations-record=once", "-v", gate="default")

    recorded.stdout.fnmatch_lines(["*::claim-1 PASSED [[]supported[]]*"])
    stored = interactions(citations.cassette("cases/water.yaml"))
    crawls = [i for i in stored if i["request"]["method"] == "GET"]
    assert [i["response"]["status"]["code"] for i in crawls] == [520, 200]
    replayed = citations.run("cases/", "-v", gate="default")
    replayed.stdout.fnmatch_lines(["*::claim-1 PASSED [[]supported[]]*"])
    assert "request_refused" not in replayed.stdout.str()


# Unreadable cassettes --------------------------------------------------------------------
def _middle_line(raw: bytes) -> int:
    """The offset of a line start near the middle of a file."""
    return raw.rindex(b"\n", 0, len(raw) * 3 // 5) + 1


def _truncated(raw: bytes) -> bytes:
    return raw[: _middle_line(raw)]


def _invalid_utf8(raw: bytes) -> bytes:
    middle = _middle_line(raw)
    return raw[:middle] + b"\xff" + raw[middle:]


def _without_version(raw: bytes) -> bytes:
    return raw.replace(b"version: 1\n", b"")


DAMAGE: dict[str, tuple[Callable[[bytes], bytes], str]] = {
    "truncated": (_truncated, "it has no 'version' (the end of the file is missing)"),
    "invalid-yaml": (lambda raw: b"interactions: [\n  - {request: ]\n", "it is not valid YAML"),
    "wrong-schema": (
        lambda raw: b"interactions:\n- response: {}\nversion: 1\n",
        "the request of interaction 1 is not a mapping",
    ),
    "invalid-utf8": (_invalid_utf8, "it is not valid UTF-8 (byte 0xff at offset"),
    "no-version": (_without_version, "it has no 'version'"),
    "empty": (lambda raw: b"", "it is empty"),
}


def _damage_and_run(recorded: Citations, kind: str, mode: str) -> tuple[pytest.RunResult, bytes]:
    recorded.write("cases/other.yaml", OTHER)
    recorded.record("cases/other.yaml", gate="default")
    cassette = recorded.cassette("cases/water.yaml")
    damage, _ = DAMAGE[kind]
    cassette.write_bytes(damage(cassette.read_bytes()))
    damaged = cassette.read_bytes()
    with recorded.web() as web:
        result = recorded.run("cases/", f"--citations-record={mode}", "-v", gate="default")
    assert web.crawlbase.count(BOILING_URL) == 0  # the damaged file's pages: never fetched
    return result, damaged


@pytest.mark.parametrize("kind", list(DAMAGE))
@pytest.mark.parametrize("mode", ["none", "new_episodes"])
def test_an_unreadable_cassette_is_one_clear_error_and_stays_as_it_is(
    recorded: Citations, mode: str, kind: str
) -> None:
    result, damaged = _damage_and_run(recorded, kind, mode)

    _, problem = DAMAGE[kind]
    assert recorded.cassette("cases/water.yaml").read_bytes() == damaged
    seen = outcomes(result)
    assert seen["cases/water.yaml::water::claim-1"] != "PASSED"
    assert seen["cases/other.yaml::other::claim-1"] == "PASSED"  # the other file still runs
    message = (
        f"cassette cassettes/cases/water.yaml cannot be read: {problem}*. Restore it from "
        "version control, or delete it and record it again with: CRAWLBASE_TOKEN=… "
        "OPENAI_API_KEY=… pytest --citations cases/water.yaml --citations-record=new_episodes"
    )
    assert any(fnmatch.fnmatch(line, message) for line in result.outlines)
    output = result.stdout.str() + result.stderr.str()
    assert "Traceback" not in output
    assert "site-packages" not in output


@pytest.mark.parametrize("mode", ["once", "all"])
def test_one_invalid_byte_is_never_recorded_over(recorded: Citations, mode: str) -> None:
    result, damaged = _damage_and_run(recorded, "invalid-utf8", mode)

    assert recorded.cassette("cases/water.yaml").read_bytes() == damaged
    assert outcomes(result)["cases/water.yaml::water::claim-1"] != "PASSED"
    result.stdout.fnmatch_lines(["cassette cassettes/cases/water.yaml cannot be read: *"])


def test_rewrite_replaces_a_damaged_cassette(recorded: Citations) -> None:
    cassette = recorded.cassette("cases/water.yaml")
    cassette.write_bytes(_invalid_utf8(cassette.read_bytes()))

    result, web = recorded.record("cases/", mode="rewrite", gate="default")

    result.assert_outcomes(passed=2)
    assert web.crawlbase.count(BOILING_URL) == 1
    assert len(parse_cassette(cassette.read_bytes())) == 2
    recorded.run("cases/", gate="default").assert_outcomes(passed=2)


# One cassette per case file --------------------------------------------------------------
def test_a_yaml_and_a_yml_case_file_of_one_name_keep_two_cassettes(citations: Citations) -> None:
    citations.write("cases/a.yaml", single_claim_case("a", SUPPORTED_CLAIM, BOILING_URL))
    citations.write("cases/a.yml", single_claim_case("b", REFUNDS_CLAIM, REFUNDS_URL))

    result, _ = citations.record("cases/", gate="default")

    result.assert_outcomes(passed=4)
    assert crawled_urls(citations.cassette("cases/a.yaml")) == [BOILING_URL]
    assert crawled_urls(citations.cassette("cases/a.yml")) == [REFUNDS_URL]
    kept = citations.cassette("cases/a.yaml").read_bytes()
    rerecorded, _ = citations.record("cases/a.yml", mode="rewrite", gate="default")
    rerecorded.assert_outcomes(passed=2)
    assert citations.cassette("cases/a.yaml").read_bytes() == kept
    for name in ("cases/a.yaml", "cases/a.yml"):
        citations.run(name, gate="default").assert_outcomes(passed=2)


def test_a_case_file_and_a_test_that_would_share_a_cassette_are_refused(
    citations: Citations,
) -> None:
    # cassettes/test_water/test_boils.yaml is both the test's and the case file's cassette.
    citations.write("test_water/test_boils.yaml", WATER)
    citations.write(
        "test_water.py",
        f"""\
        def test_boils(citation_verifier):
            citation_verifier.assert_supported({SUPPORTED_CLAIM!r}, {BOILING_URL!r})
        """,
    )

    result, _ = citations.record(".", gate="default")

    result.stdout.fnmatch_lines(
        [
            "*cassette cassettes/test_water/test_boils.yaml would hold the recordings of both "
            "the case file test_water/test_boils.yaml and the test test_water.py::test_boils; "
            "recording one would wipe the other. Rename one of them*"
        ]
    )
    # The clash is known at collection, so both sources are refused and neither records.
    result.assert_outcomes(failed=2, errors=1)  # the case file's two items, and the test
    assert result.stdout.str().count("would hold the recordings of both") >= 3
    assert not citations.cassette("test_water/test_boils.yaml").exists()


# Replay is per file ----------------------------------------------------------------------
def test_a_file_without_its_recording_fails_in_a_full_run_as_it_does_alone(
    citations: Citations,
) -> None:
    citations.write("cases/a.yaml", single_claim_case("a", SUPPORTED_CLAIM, BOILING_URL))
    citations.record("cases/a.yaml", gate="default")
    # Same page, same claim, no cassette; it runs after a.yaml, which replays them.
    citations.write("cases/b.yaml", single_claim_case("b", SUPPORTED_CLAIM, BOILING_URL))

    alone = citations.run("cases/b.yaml", "-v", gate="default")
    full = citations.run("cases/", "-v", gate="default")

    in_full = outcomes(full)
    assert in_full["cases/a.yaml::a::claim-1"] == "PASSED"
    assert outcomes(alone) == {k: v for k, v in in_full.items() if k.startswith("cases/b.yaml")}
    assert in_full["cases/b.yaml::b::claim-1"] != "PASSED"
    for result in (alone, full):
        result.stdout.fnmatch_lines(
            [f"*cassettes/cases/b.yaml has no recording of the Crawlbase crawl of {BOILING_URL} *"]
        )


def test_a_replay_only_cassette_never_answers_from_another_files_recording(
    citations: Citations,
) -> None:
    # once: a.yaml exists (replay only), b.yaml is recorded; b must fetch its own page.
    citations.write("cases/a.yaml", single_claim_case("a", SUPPORTED_CLAIM, BOILING_URL))
    citations.record("cases/a.yaml", gate="default")
    citations.write("cases/b.yaml", single_claim_case("b", SUPPORTED_CLAIM, BOILING_URL))

    result, web = citations.record("cases/", mode="once", gate="default")

    result.assert_outcomes(passed=4)
    assert web.crawlbase.count(BOILING_URL) == 1
    assert crawled_urls(citations.cassette("cases/b.yaml")) == [BOILING_URL]
    citations.run("cases/b.yaml", gate="default").assert_outcomes(passed=2)


# Non-ASCII response headers --------------------------------------------------------------
IDN_FINAL_URL = "https://bücher.example/straße"
MOVED_ABROAD_URL = "https://example.org/physics/moved-abroad"


def test_a_non_ascii_url_header_records_and_replays(citations: Citations) -> None:
    citations.write("cases/idn.yaml", single_claim_case("idn", SUPPORTED_CLAIM, MOVED_ABROAD_URL))
    with citations.web() as web:
        boiling = web.crawlbase.pages[BOILING_URL].markdown
        web.crawlbase.add(MOVED_ABROAD_URL, markdown=boiling, final_url=IDN_FINAL_URL)
        recorded = citations.run(
            "cases/", "--citations-record=once", "-v", "--citations-report=recorded.json",
            gate="default"
        )

    replayed = citations.run("cases/", "-v", "--citations-report=replayed.json", gate="default")

    for result, report in ((recorded, "recorded.json"), (replayed, "replayed.json")):
        result.stdout.fnmatch_lines(["*::claim-1 PASSED [[]supported[]]*"])
        citation = load_report(citations.path / report)["cases"][0]["claims"][0]["citations"][0]
        assert citation["final_url"] == IDN_FINAL_URL
    text = citations.cassette("cases/idn.yaml").read_text(encoding="utf-8")
    assert f"      - {IDN_FINAL_URL}\n" in text


# Temporary files of killed runs ----------------------------------------------------------
def _abandoned(cassette: Path) -> Path:
    """A temporary file as a writer killed mid-write leaves it: named, unlocked, cut off."""
    leftover = cassette.with_name(f".{cassette.name}.4242.0badf00d.tmp")
    leftover.write_bytes(cassette.read_bytes()[:100])
    return leftover


def test_a_temporary_file_left_by_a_killed_run_is_ignored_and_removed(
    recorded: Citations,
) -> None:
    cassette = recorded.cassette("cases/water.yaml")
    leftover = _abandoned(cassette)

    result = recorded.run("-rf",
                          gate="default")  # no path: everything under the rootdir is collected

    result.assert_outcomes(passed=2)
    assert not leftover.exists()


def test_a_temporary_file_being_written_is_left_alone(tmp_path: Path) -> None:
    fcntl = pytest.importorskip("fcntl")
    cassette = tmp_path / "water.yaml"
    cassette.write_text("interactions: []\nversion: 1\n", encoding="utf-8")
    abandoned = _abandoned(cassette)
    live = cassette.with_name(f".{cassette.name}.{os.getpid()}.12345678.tmp")
    with live.open("w") as stream:
        fcntl.flock(stream.fileno(), fcntl.LOCK_EX)  # as the writer holds it until renaming

        removed = sweep_temporary_files(tmp_path)

    assert removed == [abandoned]
    assert live.exists()
    assert cassette.exists()


def test_a_cassette_reads_what_it_wrote() -> None:
    from vcr.request import Request

    from pytest_citations.recording.files import cassette_document, dump_cassette

    request = Request("GET", "https://x.example/?url=https://bücher.example/", b"", {})
    response = {
        "status": {"code": 200, "message": "OK"},
        "headers": {"url": ["https://bücher.example/straße"]},
        "body": {"string": "# Title\n\nText é\n".encode()},
    }
    text = dump_cassette(cassette_document([(request, response)]))
    assert text is not None
    assert text.endswith("version: 1\n")
    assert text.startswith("interactions:\n")
    [(read_request, read_response)] = parse_cassette(text.encode("utf-8"))
    assert read_request.uri == request.uri
    assert read_response == response


def test_a_tests_unreadable_cassette_is_one_clear_error(citations: Citations) -> None:
    citations.write(
        "test_water.py",
        f"""\
        def test_boils(citation_verifier):
            citation_verifier.assert_supported({SUPPORTED_CLAIM!r}, {BOILING_URL!r})
        """,
    )
    with citations.web():
        citations.run_tests("--citations-record=once").assert_outcomes(passed=1)
    cassette = citations.cassette("test_water/test_boils.yaml")
    cassette.write_bytes(_invalid_utf8(cassette.read_bytes()))
    damaged = cassette.read_bytes()

    with citations.web() as web:
        result = citations.run_tests("--citations-record=new_episodes")

    assert web.requests == 0
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(
        ["*cassette cassettes/test_water/test_boils.yaml cannot be read: it is not valid UTF-8*"]
    )
    assert cassette.read_bytes() == damaged
