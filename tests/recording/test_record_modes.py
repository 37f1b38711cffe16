"""``--citations-record`` / ini ``citations_record_mode``: none (the default) replays only,
once records a missing cassette, new_episodes adds what is missing, all re-records every
request, rewrite throws a cassette away and records it anew."""

from __future__ import annotations

from pathlib import Path

import pytest
from plugin_helpers import (
    BOILING_URL,
    CONTRADICTED_CLAIM,
    PARTIAL_CLAIM,
    REFUNDS_CLAIM,
    REFUNDS_URL,
    RETURNS_URL,
    SUPPORTED_CLAIM,
    Citations,
    crawled_urls,
    interactions,
    single_claim_case,
)

ONE_CLAIM = f"""\
id: water
citations:
  1: {BOILING_URL}
  2: {REFUNDS_URL}
claims:
  - text: {SUPPORTED_CLAIM}
    cites: [1]
"""
#: The same case with a second claim on a page the recording never fetched.
TWO_CLAIMS = ONE_CLAIM + f"  - text: {REFUNDS_CLAIM}\n    cites: [2]\n"
#: The boiling page after an edit that contradicts the recorded claim.
EDITED_PAGE = "# The boiling point of water\n\n" + (
    "Water boils at 90 °C at sea level, where the air pressure is one standard atmosphere. " * 3
)


@pytest.fixture
def recorded(citations: Citations) -> Citations:
    """``cases/water.yaml`` with one claim, recorded (``once``); the emulators are gone."""
    citations.write("cases/water.yaml", ONE_CLAIM)
    result, web = citations.record("cases/", gate="default")
    result.assert_outcomes(passed=2)
    assert web.crawlbase.crawl_count == 1
    return citations


def test_default_mode_replays_only_and_never_writes(recorded: Citations) -> None:
    cassette = recorded.cassette("cases/water.yaml")
    before = cassette.read_bytes()
    recorded.write("cases/water.yaml", TWO_CLAIMS)
    recorded.write("cases/new.yaml", single_claim_case("new", PARTIAL_CLAIM, RETURNS_URL))

    with recorded.web() as web:
        result = recorded.run("cases/", "-rE", gate="default")

    assert web.requests == 0
    # A missing recording leaves the claim unchecked: an error, not a failure (issue 8).
    result.assert_outcomes(passed=3, errors=2)
    result.stdout.fnmatch_lines(
        ["ERROR cases/new.yaml::new::claim-1 - *", "ERROR cases/water.yaml::water::claim-2 - *"]
    )
    assert cassette.read_bytes() == before
    assert not recorded.cassette("cases/new.yaml").exists()


def test_a_replay_builds_no_network(
    recorded: Citations, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # A replay sends nothing, so a setting that only the network reads (a CA bundle that is
    # not there, as a CI image may name one) must not stop it; it failed every claim with a
    # FileNotFoundError before a replay-only run stopped building the network transport.
    monkeypatch.setenv("SSL_CERT_FILE", str(tmp_path / "missing-ca.pem"))

    result = recorded.run("cases/", gate="default")

    result.assert_outcomes(passed=2)
    assert "FileNotFoundError" not in result.stdout.str()


def test_a_recording_with_a_missing_ca_bundle_is_one_clear_usage_error(
    citations: Citations, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # A recording sends, so the CA bundle SSL_CERT_FILE names must be there: a missing one
    # is a usage error naming the variable and the file before anything is sent, never an
    # INTERNALERROR with a FileNotFoundError traceback (as it was when the network
    # transport was first built, while the recording plan was read).
    missing = tmp_path / "missing-ca.pem"
    citations.write("cases/water.yaml", ONE_CLAIM)
    monkeypatch.setenv("SSL_CERT_FILE", str(missing))

    result, web = citations.record("cases/", gate="default")

    output = result.stdout.str() + result.stderr.str()
    assert result.ret == pytest.ExitCode.USAGE_ERROR, output
    assert "INTERNALERROR" not in output
    assert "Traceback" not in output
    assert f"SSL_CERT_FILE names {missing}" in output
    assert web.requests == 0
    assert not citations.cassette("cases/water.yaml").exists()


def test_a_refusal_in_one_cassette_never_fails_another_cassette(recorded: Citations) -> None:
    # new.yaml has no cassette and runs first; water.yaml's cassette holds the same page.
    recorded.write("cases/new.yaml", ONE_CLAIM.replace("id: water", "id: new"))

    result = recorded.run("cases/", "-rE", gate="default")

    result.assert_outcomes(passed=3, errors=1)
    result.stdout.fnmatch_lines(["ERROR cases/new.yaml::new::claim-1 - *"])


def test_once_records_a_missing_cassette_but_never_extends_one(recorded: Citations) -> None:
    cassette = recorded.cassette("cases/water.yaml")
    before = cassette.read_bytes()
    recorded.write("cases/water.yaml", TWO_CLAIMS)
    recorded.write("cases/new.yaml", ONE_CLAIM.replace("id: water", "id: new"))

    result, web = recorded.record("cases/", "-v", mode="once", gate="default")

    result.assert_outcomes(passed=4, errors=1)
    result.stdout.fnmatch_lines(
        [
            "cases/new.yaml::new::claim-1 PASSED [[]supported[]]*",
            "cases/water.yaml::water::claim-1 PASSED [[]supported[]]*",
            "cases/water.yaml::water::claim-2 ERROR*",
        ]
    )
    result.stdout.fnmatch_lines(
        [
            "*cassettes/cases/water.yaml has no recording of the Crawlbase crawl of "
            f"{REFUNDS_URL} (normal token, readability)*--citations-record=new_episodes*"
        ]
    )
    assert cassette.read_bytes() == before
    assert crawled_urls(recorded.cassette("cases/new.yaml")) == [BOILING_URL]
    # Only the new file's page was fetched: the existing cassette answered the rest.
    assert web.crawlbase.count(REFUNDS_URL) == 0
    assert web.crawlbase.count(BOILING_URL) == 1


def test_new_episodes_records_only_what_is_missing(recorded: Citations) -> None:
    recorded.write("cases/water.yaml", TWO_CLAIMS)
    cassette = recorded.cassette("cases/water.yaml")
    before = interactions(cassette)

    result, web = recorded.record("cases/", mode="new_episodes", gate="default")

    result.assert_outcomes(passed=3)
    assert web.crawlbase.count(BOILING_URL) == 0
    assert web.crawlbase.count(REFUNDS_URL) == 1
    assert [call.claim for call in web.judge.calls] == [REFUNDS_CLAIM]
    after = interactions(cassette)
    assert after[: len(before)] == before
    assert crawled_urls(cassette) == [BOILING_URL, REFUNDS_URL]
    recorded.run("cases/", gate="default").assert_outcomes(passed=3)  # offline again


def test_all_sends_every_request_again_and_replaces_the_recording(recorded: Citations) -> None:
    cassette = recorded.cassette("cases/water.yaml")
    with recorded.web() as web:
        web.crawlbase.add(BOILING_URL, markdown=EDITED_PAGE)
        result = recorded.run("cases/", "--citations-record=all", "-v", gate="default")

    assert web.crawlbase.count(BOILING_URL) == 1
    assert web.judge.call_count == 1
    result.stdout.fnmatch_lines(["cases/water.yaml::water::claim-1 FAILED*"])
    # The new crawl replaced the old one: no stale page is left to be replayed.
    pages = [
        i["response"]["body"]["string"]
        for i in interactions(cassette)
        if i["request"]["method"] == "GET"
    ]
    assert len(pages) == 1
    assert "Water boils at 90 °C at sea level" in pages[0]
    replayed = recorded.run("cases/", "-v", gate="default")
    replayed.stdout.fnmatch_lines(
        ["cases/water.yaml::water::claim-1 FAILED*", "label: contradicted"], consecutive=False
    )


def test_all_twice_sends_requests_both_times(recorded: Citations) -> None:
    first, first_web = recorded.record("cases/", mode="all", gate="default")
    second, second_web = recorded.record("cases/", mode="all", gate="default")

    first.assert_outcomes(passed=2)
    second.assert_outcomes(passed=2)
    assert first_web.crawlbase.crawl_count == second_web.crawlbase.crawl_count == 1
    assert first_web.judge.call_count == second_web.judge.call_count == 1
    assert len(interactions(recorded.cassette("cases/water.yaml"))) == 2


def test_rewrite_replaces_the_file_and_drops_stale_interactions(citations: Citations) -> None:
    citations.write("cases/water.yaml", TWO_CLAIMS)
    citations.record("cases/", gate="default")
    cassette = citations.cassette("cases/water.yaml")
    # Both pages are crawled concurrently: the order they land in the cassette is not fixed.
    assert sorted(crawled_urls(cassette)) == sorted([BOILING_URL, REFUNDS_URL])
    citations.write("cases/water.yaml", ONE_CLAIM)

    result, web = citations.record("cases/", mode="rewrite", gate="default")

    result.assert_outcomes(passed=2)
    assert web.crawlbase.count(BOILING_URL) == 1
    assert crawled_urls(cassette) == [BOILING_URL]
    text = cassette.read_text(encoding="utf-8")
    assert REFUNDS_URL not in text
    assert REFUNDS_CLAIM not in text


def test_record_mode_from_ini(recorded: Citations) -> None:
    recorded.pytester.makeini("[pytest]\ncitations_record_mode = new_episodes\n")
    recorded.write("cases/water.yaml", TWO_CLAIMS)

    with recorded.web() as web:
        result = recorded.run("cases/", gate="default")
        replay = recorded.run("cases/", "--citations-record=none", gate="default")

    result.stdout.fnmatch_lines(["citations: record=new_episodes *"])
    result.assert_outcomes(passed=3)
    assert web.crawlbase.count(REFUNDS_URL) == 1
    replay.stdout.fnmatch_lines(["citations: record=none *"])
    replay.assert_outcomes(passed=3)


def test_unknown_record_mode_is_a_usage_error(citations: Citations) -> None:
    citations.write("cases/water.yaml", ONE_CLAIM)
    citations.pytester.makeini("[pytest]\ncitations_record_mode = sometimes\n")

    from_ini = citations.run("cases/", gate="default")
    from_option = citations.run("cases/", "--citations-record=sometimes", gate="default")

    assert from_ini.ret == from_option.ret == pytest.ExitCode.USAGE_ERROR
    from_ini.stderr.fnmatch_lines(["*unknown citations record mode 'sometimes'*"])
    from_option.stderr.fnmatch_lines(["*invalid choice: 'sometimes'*"])


def test_recording_a_contradicted_claim_still_writes_its_cassette(citations: Citations) -> None:
    citations.write("cases/water.yaml", ONE_CLAIM.replace(SUPPORTED_CLAIM, CONTRADICTED_CLAIM))

    result, _ = citations.record("cases/", gate="default")

    result.assert_outcomes(passed=1, failed=1)
    assert citations.run("cases/", gate="default").ret == pytest.ExitCode.TESTS_FAILED
    citations.run("cases/", gate="default").assert_outcomes(passed=1, failed=1)
