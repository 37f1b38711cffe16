"""Cassettes: one per case file, replayed offline with no token, matched on what matters
(judge bodies; Crawlbase queries without the token; never host or port), shared pages
written into every cassette that needs them, and recording that asks for its tokens."""

from __future__ import annotations

import pytest
from plugin_helpers import (
    ALTITUDE_APP_URL,
    BOILING_CASE,
    BOILING_URL,
    CONTRADICTED_CLAIM,
    CRAWLBASE_JS_TOKEN,
    CRAWLBASE_TOKEN,
    OPENAI_API_KEY,
    REFUNDS_CLAIM,
    REFUNDS_URL,
    SUPPORTED_CLAIM,
    TOKENS,
    Citations,
    crawled_urls,
    interactions,
    single_claim_case,
)

#: Claim 2 is the one a test edits after recording.
THREE_CLAIMS = f"""\
id: three
citations:
  1: {BOILING_URL}
  2: {REFUNDS_URL}
claims:
  - text: {SUPPORTED_CLAIM}
    cites: [1]
  - text: {CONTRADICTED_CLAIM}
    cites: [1]
  - text: {REFUNDS_CLAIM}
    cites: [2]
"""


def test_one_cassette_per_case_file_mirroring_its_path(citations: Citations) -> None:
    citations.write("cases/boiling.yaml", BOILING_CASE)
    citations.write("cases/shop/refunds.yml", single_claim_case("r", REFUNDS_CLAIM, REFUNDS_URL))

    result, _ = citations.record("cases/", gate="default")

    result.assert_outcomes(passed=4, failed=1)
    written = sorted(
        str(path.relative_to(citations.path)) for path in citations.path.rglob("cassettes/**/*")
    )
    assert written == [
        "cassettes/cases",
        "cassettes/cases/boiling.yaml",
        "cassettes/cases/shop",
        "cassettes/cases/shop/refunds.yml",
    ]
    assert crawled_urls(citations.cassette("cases/shop/refunds.yml")) == [REFUNDS_URL]
    assert set(crawled_urls(citations.cassette("cases/boiling.yaml"))) == {
        BOILING_URL,
        "https://example.org/old-report",
    }


def test_cassettes_are_reviewable_yaml(citations: Citations) -> None:
    citations.write("cases/boiling.yaml", BOILING_CASE)

    citations.record("cases/", gate="default")

    text = citations.cassette("cases/boiling.yaml").read_text(encoding="utf-8")
    # ``version`` comes last, as in vcrpy's own files, so that a cut-off file is recognised.
    assert text.startswith("interactions:\n")
    assert text.endswith("\nversion: 1\n")
    # Page bodies in block style, and judge requests as indented JSON, one field a line.
    assert "    body:\n      string: |\n        # The boiling point of water\n" in text
    assert '\n       "model": "gpt-4o-mini",\n' in text
    assert "token=<CRAWLBASE_TOKEN>" in text


@pytest.mark.parametrize(
    ("args", "ini", "folder"),
    [
        ((), "citations_cassette_dir = recordings", "recordings"),
        (
            ("--citations-cassette-dir", "tapes/here"),
            "citations_cassette_dir = recordings",
            "tapes/here",
        ),
    ],
)
def test_cassette_folder_is_configurable(
    citations: Citations, args: tuple[str, ...], ini: str, folder: str
) -> None:
    citations.pytester.makeini(f"[pytest]\n{ini}\n")
    citations.write("cases/boiling.yaml", BOILING_CASE)

    recorded, _ = citations.record("cases/", *args, gate="default")
    replayed = citations.run("cases/", *args, gate="default")

    recorded.assert_outcomes(passed=2, failed=1)
    replayed.assert_outcomes(passed=2, failed=1)
    assert (citations.path / folder / "cases" / "boiling.yaml").is_file()
    assert not list((citations.path / "cassettes").rglob("*.yaml"))  # none written
    replayed.stdout.fnmatch_lines([f"*cassettes={citations.path.resolve() / folder}/*"])


def test_replay_is_offline_and_needs_no_token(citations: Citations) -> None:
    citations.write("cases/boiling.yaml", BOILING_CASE)
    recorded, web = citations.record("cases/", "-v", gate="default")
    cassette = citations.cassette("cases/boiling.yaml").read_bytes()

    replayed = citations.run("cases/", "-v", gate="default")

    assert web.requests > 0
    recorded.assert_outcomes(passed=2, failed=1)
    replayed.assert_outcomes(passed=2, failed=1)
    replayed.stdout.fnmatch_lines(
        [
            "citations: record=none *",
            "cases/boiling.yaml::boiling-point::claim-1 PASSED [[]supported[]] "
            "unreachable:http_404*",
            "cases/boiling.yaml::boiling-point::claim-2 FAILED*",
        ]
    )
    assert citations.cassette("cases/boiling.yaml").read_bytes() == cassette


def test_missing_cassette_fails_with_the_command_that_records_it(citations: Citations) -> None:
    citations.write("cases/boiling.yaml", BOILING_CASE)
    # Tokens are set, yet the default mode never sends anything, nor prints a token.
    with citations.web(tokens=TOKENS) as web:
        result = citations.run("cases/", "-rf", gate="default")

    # Unchecked claims are errors (issue 8); precision has no threshold.
    result.assert_outcomes(passed=1, errors=2)
    assert web.requests == 0
    assert not citations.cassette("cases/boiling.yaml").exists()
    result.stdout.fnmatch_lines(
        [
            "*_ ERROR at setup of boiling-point::claim-1 _*",
            "claim could not be checked: *",
            "*cassettes/cases/boiling.yaml has no recording of the Crawlbase crawl of "
            f"{BOILING_URL} (normal token, readability); record it with: CRAWLBASE_TOKEN=… "
            "OPENAI_API_KEY=… pytest --citations cases/boiling.yaml "
            "--citations-record=new_episodes*",
        ]
    )
    output = result.stdout.str() + result.stderr.str()
    for value in TOKENS.values():
        assert value not in output
    assert "token=" not in output
    assert "Traceback" not in output


def test_changed_claim_fails_alone_and_never_replays_a_stale_verdict(
    citations: Citations,
) -> None:
    citations.write("cases/three.yaml", THREE_CLAIMS)
    recorded, _ = citations.record("cases/", gate="default")
    recorded.assert_outcomes(passed=3, failed=1)

    citations.write(
        "cases/three.yaml",
        THREE_CLAIMS.replace(CONTRADICTED_CLAIM, "On mountains water boils at 90 °C."),
    )
    result = citations.run("cases/", "-v", gate="default")

    result.assert_outcomes(passed=3, errors=1)
    result.stdout.fnmatch_lines(
        [
            "cases/three.yaml::three::claim-1 PASSED [[]supported[]]*",
            "cases/three.yaml::three::claim-2 ERROR*",
            "cases/three.yaml::three::claim-3 PASSED [[]supported[]]*",
        ]
    )
    result.stdout.fnmatch_lines(
        [
            "claim could not be checked: *",
            "claim: On mountains water boils at 90 °C.",
            "status: unchecked (no label)",  # a claim nobody checked has no label (issue 25)
            f"  [[]1[]] {BOILING_URL}",
            "      unchecked (request_refused), confidence 0.00",
            "*cassettes/cases/three.yaml has no recording of the judge call POST "
            "/v1/chat/completions; record it with: *pytest --citations cases/three.yaml "
            "--citations-record=new_episodes*",
        ]
    )


def test_changed_judge_model_is_not_replayed_either(citations: Citations) -> None:
    citations.write("cases/boiling.yaml", BOILING_CASE)
    citations.record("cases/", gate="default")

    result = citations.run("cases/", "--citations-model", "gpt-other", gate="default")

    result.assert_outcomes(passed=1, errors=2)
    result.stdout.fnmatch_lines(["*has no recording of the judge call POST /v1/chat/completions*"])


def test_page_cited_by_two_files_is_fetched_once_and_each_cassette_replays_alone(
    citations: Citations,
) -> None:
    citations.write("cases/one.yaml", single_claim_case("one", SUPPORTED_CLAIM, BOILING_URL))
    citations.write(
        "cases/two.yaml",
        f"""\
        id: two
        citations: [{BOILING_URL}, {REFUNDS_URL}]
        claims:
          - {{text: {SUPPORTED_CLAIM}, cites: [1]}}
          - {{text: {REFUNDS_CLAIM}, cites: [2]}}
        """,
    )

    recorded, web = citations.record("cases/", gate="default")

    recorded.assert_outcomes(passed=5)
    assert web.crawlbase.count(BOILING_URL) == 1
    assert web.judge.call_count == 2  # the identical judge request was made once too
    assert crawled_urls(citations.cassette("cases/two.yaml")).count(BOILING_URL) == 1
    for name, passed in (("two", 3), ("one", 2)):
        alone = citations.run(f"cases/{name}.yaml", "-v", gate="default")
        alone.assert_outcomes(passed=passed)
        alone.stdout.fnmatch_lines([f"cases/{name}.yaml::{name}::claim-1 PASSED [[]supported[]]*"])


@pytest.mark.parametrize(
    ("record_js_token", "replay_tokens"),
    [
        (True, {}),
        (False, {"CRAWLBASE_TOKEN": "another-normal", "CRAWLBASE_JS_TOKEN": "another-js"}),
    ],
    ids=["js-token-at-record-time-only", "js-token-at-replay-time-only"],
)
def test_javascript_escalation_replays_whichever_tokens_are_set(
    citations: Citations, record_js_token: bool, replay_tokens: dict[str, str]
) -> None:
    claim = "At high altitude water boils at a lower temperature."
    citations.write("cases/app.yaml", single_claim_case("app", claim, ALTITUDE_APP_URL))
    tokens = dict(TOKENS)
    if not record_js_token:
        del tokens["CRAWLBASE_JS_TOKEN"]
    with citations.web(tokens=tokens) as web:
        recorded = citations.run("cases/", "--citations-record=once", "-v", gate="default")

    kinds = [(r.token_kind, r.javascript) for r in web.crawlbase.requests]
    assert ("js" if record_js_token else "normal", True) in kinds
    recorded.stdout.fnmatch_lines(["*::claim-1 PASSED [[]supported[]]*"])
    uris = [i["request"]["uri"] for i in interactions(citations.cassette("cases/app.yaml"))]
    assert any(
        ("token=<CRAWLBASE_JS_TOKEN>" if record_js_token else "javascript=true") in uri
        for uri in uris
    )

    for variable, value in replay_tokens.items():
        citations.monkeypatch.setenv(variable, value)
    replayed = citations.run("cases/", "-v", gate="default")

    replayed.assert_outcomes(passed=2)
    replayed.stdout.fnmatch_lines(["*::claim-1 PASSED [[]supported[]]*"])
    assert "request_refused" not in replayed.stdout.str()


def test_cassettes_replay_against_another_host_and_port(citations: Citations) -> None:
    citations.write("cases/boiling.yaml", BOILING_CASE)
    with citations.web() as first:
        recorded_at = {first.crawlbase.url, first.judge.url}
        recorded = citations.run("cases/", "--citations-record=once", gate="default")

    with citations.web() as second:
        # Another host name, and other ports than the recording's.
        crawlbase_port = second.crawlbase.url.rstrip("/").rsplit(":", 1)[1]
        judge_port = second.judge.url.rstrip("/").rsplit(":", 1)[1]
        replayed_at = {second.crawlbase.url, second.judge.url}
        citations.monkeypatch.setenv("CRAWLBASE_API_URL", f"http://localhost:{crawlbase_port}/")
        citations.monkeypatch.setenv("OPENAI_BASE_URL", f"http://localhost:{judge_port}/v1")
        replayed = citations.run("cases/", "-v", gate="default")

    assert not recorded_at & replayed_at
    assert first.requests > 0
    assert second.requests == 0
    recorded.assert_outcomes(passed=2, failed=1)
    replayed.assert_outcomes(passed=2, failed=1)
    replayed.stdout.fnmatch_lines(["*::claim-1 PASSED [[]supported[]] unreachable:http_404*"])
    assert "request_refused" not in replayed.stdout.str()


@pytest.mark.parametrize("missing", ["CRAWLBASE_TOKEN", "OPENAI_API_KEY"])
@pytest.mark.parametrize("mode", ["once", "new_episodes", "all", "rewrite"])
def test_recording_without_a_needed_token_is_a_usage_error(
    citations: Citations, missing: str, mode: str
) -> None:
    citations.write("cases/boiling.yaml", BOILING_CASE)
    tokens = {name: value for name, value in TOKENS.items() if name != missing}
    with citations.web(tokens=tokens) as web:
        result = citations.run("cases/", f"--citations-record={mode}", gate="default")

    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"ERROR: --citations-record={mode} *needs {missing}*"])
    assert web.requests == 0
    assert not list((citations.path / "cassettes").rglob("*.yaml"))  # none written


def test_recording_with_the_anthropic_judge_needs_its_key(citations: Citations) -> None:
    citations.write("cases/boiling.yaml", BOILING_CASE)
    tokens = {name: value for name, value in TOKENS.items() if name != "ANTHROPIC_API_KEY"}
    with citations.web(tokens=tokens) as web:
        result = citations.run("cases/", "--citations-record=once", "--citations-judge=anthropic",
                               gate="default")

    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*needs ANTHROPIC_API_KEY*"])
    assert web.requests == 0


def test_recording_with_a_keyless_judge_needs_only_the_crawlbase_token(
    citations: Citations,
) -> None:
    citations.write("cases/boiling.yaml", BOILING_CASE)
    with citations.web(tokens={"CRAWLBASE_TOKEN": CRAWLBASE_TOKEN}) as web:
        result = citations.run("cases/", "--citations-record=once", "--citations-judge=ollama",
                               gate="default")

    result.assert_outcomes(passed=2, failed=1)
    assert web.judge.count("ollama") > 0


def test_tokens_in_the_environment_are_ignored_by_a_replay(citations: Citations) -> None:
    citations.write("cases/boiling.yaml", BOILING_CASE)
    citations.record("cases/", gate="default")
    # Wrong tokens: a replay never sends them, so it cannot be refused.
    citations.monkeypatch.setenv("CRAWLBASE_TOKEN", "wrong-" + CRAWLBASE_TOKEN)
    citations.monkeypatch.setenv("CRAWLBASE_JS_TOKEN", "wrong-" + CRAWLBASE_JS_TOKEN)
    citations.monkeypatch.setenv("OPENAI_API_KEY", "wrong-" + OPENAI_API_KEY)

    result = citations.run("cases/", gate="default")

    result.assert_outcomes(passed=2, failed=1)


def test_a_path_option_outside_the_project_never_moves_the_cassettes(
    citations: Citations,
) -> None:
    """pytest's rootdir follows every existing path on the command line, option values
    included: a baseline outside the project moved it, and the cassettes with it, while
    the header still said ``cassettes=cassettes/``. The cassette folder is anchored to the
    ini file's folder (here none: the folder pytest starts in) and the header names it."""
    citations.write("cases/boiling.yaml", BOILING_CASE)
    elsewhere = citations.path.parent / f"{citations.path.name}-elsewhere"
    elsewhere.mkdir()
    (elsewhere / "empty.json").write_text('{"claims": {}, "version": 1}\n', encoding="utf-8")
    # Two words, as a shell passes them: pytest reads the value as a path of its own.
    baseline = ("--citations-baseline", f"../{elsewhere.name}/empty.json")

    with citations.web():
        recorded = citations.run("cases/", *baseline, "--citations-record=new_episodes",
                                 gate="default")
    replayed = citations.run("cases/", *baseline, gate="default")

    project = citations.path.resolve()
    recorded.stdout.fnmatch_lines([f"citations: * cassettes={project / 'cassettes'}/ *"])
    assert citations.cassette("cases/boiling.yaml").is_file()
    assert not list(elsewhere.rglob("*.yaml"))
    assert not (citations.path.parent / "cassettes").exists()
    replayed.assert_outcomes(passed=2, failed=1)
    assert "request_refused" not in replayed.stdout.str()
