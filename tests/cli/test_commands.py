"""The ``pytest-citations`` command (issues 5, 11): ``verify``, ``stored-page`` (once
``replay``, still an alias) and ``--help``.

Every test runs the real console script in a subprocess, with an explicit environment that
points it at the Crawlbase and judge emulators on 127.0.0.1. Secrets are distinctive canary
values; none may ever show up on standard output or standard error.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from ops_support import (
    BOILING_URL,
    CONTRADICTED_CLAIM,
    CRAWLBASE_JS_TOKEN,
    OLD_REPORT_URL,
    OPENAI_API_KEY,
    SECRETS,
    SUPPORTED_CLAIM,
    Web,
    base_env,
    emulators,
    free_port,
    run_cli,
)

from pytest_citations.sandbox import CrawlbaseEmulator, JudgeEmulator
from pytest_citations.sandbox import site as example_site
from pytest_citations.verdicts import VERDICT_FIELDS

# -- verify -----------------------------------------------------------------------------------


def test_verify_prints_the_json_of_the_verify_response(web: Web) -> None:
    run = run_cli("verify", CONTRADICTED_CLAIM, BOILING_URL, OLD_REPORT_URL, env=web.env)

    assert run.returncode == 0, run.stderr  # no --fail-on: a verdict is not an error
    run.assert_no_secret()
    payload = json.loads(run.stdout)
    assert list(payload) == ["claim", "overall", "citations"]
    assert payload["claim"] == CONTRADICTED_CLAIM
    assert payload["overall"] == "contradicted"
    assert [citation["url"] for citation in payload["citations"]] == [BOILING_URL, OLD_REPORT_URL]
    for citation in payload["citations"]:
        assert list(citation) == list(VERDICT_FIELDS)  # exactly 000's eight fields, in order

    boiling, old_report = payload["citations"]
    assert boiling["label"] == "contradicted"
    assert boiling["evidence_quote"].startswith("On high mountains the air pressure is lower")
    assert boiling["evidence_quote"] in example_site.PAGES[BOILING_URL].markdown.replace("\n", " ")
    assert boiling["confidence"] == pytest.approx(0.9)
    assert boiling["final_url"] == BOILING_URL
    assert boiling["original_status"] == 200
    assert boiling["rid"] == web.crawlbase.rid_for(BOILING_URL)
    assert boiling["reason"] is None
    assert old_report["label"] == "unreachable"
    assert old_report["reason"] == "http_404"
    assert old_report["original_status"] == 404
    assert old_report["evidence_quote"] is None
    # The dead link never reached the judge; the live page was judged once.
    assert web.judge.call_count == 1


@pytest.mark.parametrize(
    ("claim", "expected_label", "expected_exit"),
    [(CONTRADICTED_CLAIM, "contradicted", 1), (SUPPORTED_CLAIM, "supported", 0)],
    ids=["contradicted-fails", "supported-passes"],
)
def test_verify_fail_on_contradicted(
    web: Web, claim: str, expected_label: str, expected_exit: int
) -> None:
    run = run_cli("verify", claim, BOILING_URL, "--fail-on", "contradicted", env=web.env)

    assert run.returncode == expected_exit, run.stderr
    assert json.loads(run.stdout)["overall"] == expected_label  # the JSON is printed either way
    run.assert_no_secret()


def test_verify_fail_on_an_unknown_label_is_a_usage_error(web: Web) -> None:
    # A typo must not switch the gate off: "contradictd" would never match a verdict.
    run = run_cli(
        "verify", CONTRADICTED_CLAIM, BOILING_URL, "--fail-on", "contradictd", env=web.env
    )

    assert run.returncode == 2
    assert "'contradictd'" in run.stderr
    assert "contradicted" in run.stderr  # the labels to choose from
    assert run.stdout == ""
    assert web.crawlbase.crawl_count == 0
    run.assert_no_secret()


def test_verify_fail_on_takes_several_labels(web: Web) -> None:
    run = run_cli(
        "verify",
        SUPPORTED_CLAIM,
        OLD_REPORT_URL,
        "--fail-on",
        "contradicted, unreachable",
        env=web.env,
    )

    assert run.returncode == 1
    assert json.loads(run.stdout)["overall"] == "unreachable"


def test_verify_without_crawlbase_token_is_a_usage_error_naming_the_variable(web: Web) -> None:
    run = run_cli("verify", SUPPORTED_CLAIM, BOILING_URL, env=web.without("CRAWLBASE_TOKEN"))

    assert run.returncode == 2
    assert "CRAWLBASE_TOKEN" in run.stderr
    assert run.stdout == ""
    run.assert_no_secret()  # the JS token and the judge key are set: neither may leak
    assert web.crawlbase.crawl_count == 0
    assert web.judge.call_count == 0


def test_verify_without_judge_key_fails_before_spending_a_credit(web: Web) -> None:
    run = run_cli("verify", SUPPORTED_CLAIM, BOILING_URL, env=web.without("OPENAI_API_KEY"))

    assert run.returncode == 2
    assert "OPENAI_API_KEY" in run.stderr
    assert run.stdout == ""
    run.assert_no_secret()
    assert web.crawlbase.crawl_count == 0  # a configuration error is found for free
    assert web.crawlbase.credits == 0


def test_verify_with_a_refused_crawlbase_token_exits_3_naming_the_variable(
    tmp_path: Path,
) -> None:
    # An emulator that accepts other tokens: ours is answered 401.
    with (
        CrawlbaseEmulator(token="another-normal-token", js_token=CRAWLBASE_JS_TOKEN) as crawlbase,
        JudgeEmulator(openai_key=OPENAI_API_KEY) as judge,
    ):
        example_site.install(crawlbase, judge)
        env = {
            **base_env(tmp_path),
            **SECRETS,
            "CRAWLBASE_API_URL": crawlbase.url,
            "OPENAI_BASE_URL": judge.openai_base_url,
        }
        run = run_cli("verify", SUPPORTED_CLAIM, BOILING_URL, env=env)
        statuses = [record.status for record in crawlbase.requests]

    assert statuses  # the request was really made...
    assert set(statuses) == {401}  # ...and refused
    assert run.returncode == 3
    assert "CRAWLBASE_TOKEN" in run.stderr
    assert "401" in run.stderr
    assert run.stdout == ""
    run.assert_no_secret()
    assert judge.call_count == 0


def test_verify_audit_index_holds_no_secret(web: Web, tmp_path: Path) -> None:
    audit = tmp_path / "audit.sqlite"
    run = run_cli(
        "verify", SUPPORTED_CLAIM, BOILING_URL, OLD_REPORT_URL, "--audit", str(audit), env=web.env
    )

    assert run.returncode == 0, run.stderr
    data = audit.read_bytes()
    assert web.crawlbase.rid_for(BOILING_URL).encode() in data
    for value in SECRETS.values():
        assert value.encode() not in data


# -- --help -----------------------------------------------------------------------------------

EXIT_CODES = re.compile(r"Exit codes: 0 [^;]+; 1 [^;]+; 2 [^;]+; 3 ")


COMMANDS = ["verify", "batch", "cassettes", "stored-page", "import", "schema", "serve"]


@pytest.mark.parametrize("command", [None, *COMMANDS, "replay"])
def test_help_of_every_command_documents_the_exit_codes(
    tmp_path: Path, command: str | None
) -> None:
    args = [command, "--help"] if command else ["--help"]
    run = run_cli(*args, env=base_env(tmp_path))

    assert run.returncode == 0
    text = " ".join(run.stdout.split())  # argparse wraps to the terminal width
    assert text.startswith("usage: pytest-citations" + (f" {command}" if command else ""))
    assert EXIT_CODES.search(text), text
    assert "CRAWLBASE_TOKEN" in text
    if command is None:
        for name in COMMANDS:
            assert f" {name} " in text


def test_a_usage_error_exits_2(tmp_path: Path) -> None:
    run = run_cli("verify", env=base_env(tmp_path))  # no claim, no URL

    assert run.returncode == 2
    assert "usage: pytest-citations verify" in run.stderr


# -- stored-page ----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def stored(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Web, str]]:
    """Emulators on which ``verify`` crawled (and stored) the boiling page: ``(web, rid)``."""
    with emulators(tmp_path_factory.mktemp("replay")) as started:
        run = run_cli("verify", SUPPORTED_CLAIM, BOILING_URL, env=started.env)
        assert run.returncode == 0, run.stderr
        rid: str = json.loads(run.stdout)["citations"][0]["rid"]
        assert rid
        yield started, rid


@pytest.fixture
def replay_web(stored: tuple[Web, str]) -> tuple[Web, str]:
    """:func:`stored` with its counters reset (stored pages stay)."""
    started, rid = stored
    started.crawlbase.reset_counters()
    return started, rid


def test_stored_page_prints_the_stored_markdown(replay_web: tuple[Web, str]) -> None:
    web, rid = replay_web

    run = run_cli("stored-page", rid, env=web.env)

    assert run.returncode == 0, run.stderr
    markdown = web.crawlbase.stored(rid)
    assert markdown == example_site.PAGES[BOILING_URL].markdown
    assert run.stdout == markdown if markdown.endswith("\n") else markdown + "\n"
    assert web.crawlbase.storage_count == 1
    assert web.crawlbase.crawl_count == 0  # read back from storage, not crawled again
    run.assert_no_secret()


def test_stored_page_works_with_the_javascript_token_alone(replay_web: tuple[Web, str]) -> None:
    web, rid = replay_web

    run = run_cli("stored-page", rid, env=web.without("CRAWLBASE_TOKEN"))

    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith("# The boiling point of water\n")
    run.assert_no_secret()


def test_stored_page_of_an_unknown_rid_exits_1(replay_web: tuple[Web, str]) -> None:
    web, _ = replay_web

    run = run_cli("stored-page", "0000000000000000", env=web.env)

    assert run.returncode == 1
    assert run.stdout == ""
    assert "0000000000000000" in run.stderr
    assert web.crawlbase.storage_count == 1
    run.assert_no_secret()


def test_stored_page_without_any_crawlbase_token_exits_2(replay_web: tuple[Web, str]) -> None:
    web, rid = replay_web

    run = run_cli("stored-page", rid, env=web.without("CRAWLBASE_TOKEN", "CRAWLBASE_JS_TOKEN"))

    assert run.returncode == 2
    assert "CRAWLBASE_TOKEN" in run.stderr
    assert run.stdout == ""
    assert web.crawlbase.storage_count == 0
    run.assert_no_secret()


def test_stored_page_with_a_refused_token_exits_3(replay_web: tuple[Web, str]) -> None:
    web, rid = replay_web
    refused = "ops-cli-refused-token-3b1d"

    run = run_cli(
        "stored-page", rid, env={**web.without("CRAWLBASE_JS_TOKEN"), "CRAWLBASE_TOKEN": refused}
    )

    assert run.returncode == 3
    assert "CRAWLBASE_TOKEN" in run.stderr
    assert refused not in run.stderr + run.stdout
    run.assert_no_secret()


def test_stored_page_against_an_unreachable_storage_api_is_an_error_not_a_traceback(
    tmp_path: Path,
) -> None:
    # Nothing listens on the port: every retry fails to connect (this waits out the backoff).
    env = {**base_env(tmp_path), **SECRETS, "CRAWLBASE_API_URL": f"http://127.0.0.1:{free_port()}/"}

    run = run_cli("stored-page", "0123456789abcdef", env=env)

    assert run.returncode == 2
    assert run.stdout == ""
    assert "Crawlbase storage" in run.stderr
    run.assert_no_secret()  # and no traceback


def test_replay_is_a_deprecated_alias_that_still_works(replay_web: tuple[Web, str]) -> None:
    web, rid = replay_web

    run = run_cli("replay", rid, env=web.env)

    assert run.returncode == 0, run.stderr
    assert run.stdout == run_cli("stored-page", rid, env=web.env).stdout
    assert run.stdout.startswith("# The boiling point of water\n")
    assert "'replay' is deprecated" in run.stderr
    assert "use 'stored-page'" in run.stderr
    run.assert_no_secret()


def test_the_new_name_says_nothing_of_deprecation(replay_web: tuple[Web, str]) -> None:
    web, rid = replay_web

    run = run_cli("stored-page", rid, env=web.env)

    assert run.returncode == 0, run.stderr
    assert run.stderr == ""
