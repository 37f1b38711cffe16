"""A pull-request run records only what is new, under a budget (issue 20).

``--citations-max-judge-calls``, ``--citations-max-judge-tokens`` and
``--citations-max-credits`` cap what a run spends live: past them the remaining requests are
never sent (the emulators' request logs show it), their claims are unchecked with reason
``over_budget`` (never a pass, whatever ``--citations-allow-unchecked`` says), the decision is
``incomplete``, the summary lists them with the command that records them, and what was
recorded within the budget is kept. A replayed request costs nothing and is never refused.
Before a recording run sends anything it prints what it is about to record and its budget.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from canaries import CANARIES, files_with_leaks, leaks
from ops_support import base_env, run_cli
from plugin_helpers import (
    ALTITUDE_APP_URL,
    ALTITUDE_CLAIM,
    BOILING_CASE,
    BOILING_URL,
    CONTRADICTED_CLAIM,
    NOT_FOUND_CLAIM,
    OLD_REPORT_URL,
    PARTIAL_CLAIM,
    REFUNDS_CLAIM,
    REFUNDS_URL,
    RETURNS_URL,
    SUPPORTED_CLAIM,
    TOKENS,
    Citations,
    interactions,
    load_report,
)
from test_readme import DOCS, assert_printed, code_blocks, commands, readme_section

#: Five claims, one judge call each, on three pages (one normal crawl each, 1.5 credits).
FIVE = f"""\
id: five
citations:
  1: {BOILING_URL}
  2: {REFUNDS_URL}
  3: {RETURNS_URL}
claims:
  - text: {SUPPORTED_CLAIM}
    cites: [1]
  - text: {CONTRADICTED_CLAIM}
    cites: [1]
  - text: {REFUNDS_CLAIM}
    cites: [2]
  - text: {PARTIAL_CLAIM}
    cites: [3]
  - text: {NOT_FOUND_CLAIM}
    cites: [3]
"""
CLAIMS = (SUPPORTED_CLAIM, CONTRADICTED_CLAIM, REFUNDS_CLAIM, PARTIAL_CLAIM, NOT_FOUND_CLAIM)
RECORD = ("--citations-record=new_episodes", "-rE")
#: Two sentences of the returns page, which the judge emulator finds supported.
CONSUMER_RETURNS_CLAIM = "Consumers can return hardware within 30 days of delivery."
PACKAGING_CLAIM = "Items must come back with all accessories and the original packaging."


def over_budget(report_path: Citations) -> list[str]:
    """Node ids of the claims the JSON report marks over the budget."""
    report = load_report(report_path.path / "report.json")
    return [c["nodeid"] for case in report["cases"] for c in case["claims"] if c["over_budget"]]


@pytest.fixture
def five(citations: Citations) -> Citations:
    """FIVE, gated on contradicted claims only: the partial and not_found claims pass, so
    that the outcomes show what the budget did (the default gate would fail them too)."""
    citations.write("cases/five.yaml", FIVE)
    citations.pytester.makeini("[pytest]\ncitations_fail_on = contradicted\n")
    return citations


@pytest.mark.parametrize("concurrency", ["1", "8"])
def test_the_judge_gets_exactly_the_budgeted_calls(five: Citations, concurrency: str) -> None:
    with five.web(tokens=CANARIES) as web:
        web.judge.latency = 0.05  # calls overlap at concurrency 8
        result = five.run(
            *RECORD,
            "--citations-max-judge-calls",
            "3",
            "--citations-concurrency",
            concurrency,
            "--citations-report=report.json", gate="ini",
        )

    assert web.judge.call_count == 3
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    # Which three claims are judged depends on which pages answer first; two are errors.
    outcomes = result.parseoutcomes()
    assert outcomes["errors"] == 2
    assert outcomes.get("passed", 0) + outcomes.get("failed", 0) == 4
    result.stdout.fnmatch_lines(
        [
            "citations: to record: 5 claims new since the recording (judge calls ≤ 5), 3 pages "
            "not recorded (4.5 credits, ≤ 24 with retries and a browser); budget: judge calls 3",
        ]
    )
    result.stdout.fnmatch_lines(
        [
            "claim could not be checked: 1 of 1 citations unchecked",
            "  [[]*[]] https://*: over_budget (the run's budget did not cover this request, "
            "which was not sent)",
        ]
    )
    unchecked = over_budget(five)
    assert len(unchecked) == 2
    result.stdout.fnmatch_lines(
        [
            "2 claims not checked: the run's budget (--citations-max-judge-calls 3; spent 3 "
            "judge calls) did not cover their requests, which were not sent. Record them with "
            "more budget, or in the next run: CRAWLBASE_TOKEN=… OPENAI_API_KEY=… pytest "
            "--citations cases/five.yaml --citations-record=new_episodes",
            *(f"  {nodeid}" for nodeid in unchecked),
        ]
    )
    # Claim-2 is contradicted: judged, its failure wins over what the budget left unchecked.
    judged_contradiction = "cases/five.yaml::five::claim-2" not in unchecked
    decision = "fail" if judged_contradiction else "incomplete"
    result.stdout.fnmatch_lines([f"Release decision: {decision} (*"])
    assert outcomes.get("failed", 0) == (1 if judged_contradiction else 0)
    # What was recorded within the budget is kept: three judge calls, three pages.
    cassette = five.cassette("cases/five.yaml")
    assert sum(1 for i in interactions(cassette) if i["request"]["method"] == "POST") == 3
    assert "left unchanged" not in result.stdout.str()
    assert leaks(result.stdout.str() + result.stderr.str()) == []
    assert files_with_leaks(five.path) == {}


def test_the_next_run_records_the_rest_and_replays_the_rest_for_free(five: Citations) -> None:
    with five.web():
        five.run(*RECORD, "--citations-max-judge-calls", "3", gate="ini")
    with five.web() as web:
        result = five.run(*RECORD, "--citations-max-judge-calls", "2", gate="ini")

    assert web.judge.call_count == 2  # the three recorded calls replay, refused by nothing
    assert web.crawlbase.crawl_count == 0
    result.stdout.fnmatch_lines(
        [
            "citations: to record: 2 claims new since the recording (judge calls ≤ 2); budget: "
            "judge calls 2"
        ]
    )
    result.assert_outcomes(passed=5, failed=1)
    offline = five.run("-rE", gate="ini")
    offline.assert_outcomes(passed=5, failed=1)


def test_a_budget_of_credits_sends_no_crawl_that_could_pass_it(five: Citations) -> None:
    with five.web() as web:
        result = five.run(*RECORD, "--citations-max-credits", "3", "--citations-concurrency", "8",
                          "--citations-report=report.json", gate="ini")  # fmt: skip

    assert web.crawlbase.crawl_count == 2  # 1.5 credits each; a third could pass 3
    assert web.crawlbase.credits == 3.0
    report = load_report(five.path / "report.json")
    assert report["summary"]["usage"]["credits"] == 3.0
    assert report["summary"]["budget"] == {"max_credits": 3}
    # Exactly the claims of the page that was not crawled are over the budget.
    crawled = {record.target_url for record in web.crawlbase.requests}
    (skipped,) = {BOILING_URL, REFUNDS_URL, RETURNS_URL} - crawled
    cites = {1: BOILING_URL, 2: BOILING_URL, 3: REFUNDS_URL, 4: RETURNS_URL, 5: RETURNS_URL}
    assert over_budget(five) == [f"cases/five.yaml::five::claim-{n}" for n, url in cites.items()
                                 if url == skipped]  # fmt: skip
    result.stdout.fnmatch_lines(["* not checked: the run's budget (--citations-max-credits 3; "
                                 "spent 3 credits) did not cover *"])  # fmt: skip
    result.stdout.fnmatch_lines(["*: the run's budget did not cover this request, so it was not "
                                 "sent (max_credits=3: 3 spent or held by crawls in flight, this "
                                 "crawl may cost 1.5); record it with: *"])  # fmt: skip


def test_a_token_budget_stops_sending_once_it_is_reached(five: Citations) -> None:
    with five.web() as web:
        result = five.run(*RECORD, "--citations-max-judge-tokens", "1",
                          "--citations-concurrency", "1", gate="ini")  # fmt: skip

    # Tokens are known only when a call returns: the first call passes the budget, by
    # itself only at concurrency 1, and nothing is sent after it.
    assert web.judge.call_count == 1
    result.stdout.fnmatch_lines(["* not checked: the run's budget (--citations-max-judge-tokens "
                                 "1; spent * judge tokens) did not cover *"])  # fmt: skip


def test_an_over_budget_claim_is_never_counted_as_its_label(five: Citations) -> None:
    with five.web() as web:
        result = five.run(*RECORD, "--citations-max-judge-calls", "0",
                          "--citations-allow-unchecked", gate="ini")  # fmt: skip

    assert web.judge.call_count == 0
    result.assert_outcomes(passed=1, errors=5)
    result.stdout.fnmatch_lines(["Release decision: incomplete (*"])


def test_a_budget_under_xdist_is_a_usage_error(five: Citations) -> None:
    result = five.run("-n", "2", "--citations-max-judge-calls", "3", gate="ini")

    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--citations-max-judge-calls counts what one process spends*"])


# -- what a pull request adds to a recorded case file ----------------------------------------

#: Three claims recorded, each supported; the pull request adds two, supported too: one on
#: a recorded page, one on a page the recording never fetched (a page only a browser shows).
RECORDED = f"""\
id: answers
citations:
  1: {BOILING_URL}
  2: {REFUNDS_URL}
  3: {RETURNS_URL}
  4: {ALTITUDE_APP_URL}
claims:
  - text: {SUPPORTED_CLAIM}
    cites: [1]
  - text: {REFUNDS_CLAIM}
    cites: [2]
  - text: {CONSUMER_RETURNS_CLAIM}
    cites: [3]
"""
ADDED = f"""\
  - text: {PACKAGING_CLAIM}
    cites: [3]
  - text: {ALTITUDE_CLAIM}
    cites: [4]
"""


@pytest.fixture
def grown(citations: Citations) -> Citations:
    """A case file recorded with three claims, then grown by two."""
    citations.write("cases/answers.yaml", RECORDED)
    citations.record("cases/", mode="new_episodes", gate="default")
    citations.write("cases/answers.yaml", RECORDED + ADDED)
    return citations


def test_a_fork_run_without_tokens_checks_the_recorded_and_names_the_new(grown: Citations) -> None:
    result = grown.run("cases/", "-rE", gate="default")

    result.assert_outcomes(passed=4, errors=2)  # three claims and the case; two new claims
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        [
            "ERROR cases/answers.yaml::answers::claim-4 - *",
            "ERROR cases/answers.yaml::answers::claim-5 - *",
        ]
    )
    result.stdout.fnmatch_lines(
        [
            "cases/answers.yaml::answers: fully supported 3 of 3 checked, 2 unchecked; release "
            "decision: incomplete (claim-4, claim-5 could not be checked)",
            "Release decision: incomplete (*",
            "",
            "2 claims are new since the recording: record them with CRAWLBASE_TOKEN=… "
            "OPENAI_API_KEY=… pytest --citations cases/answers.yaml "
            "--citations-record=new_episodes",
        ]
    )
    output = result.stdout.str()
    assert "to record:" not in output  # a replay plans nothing: it sends nothing
    # The opt-out never counts a missing recording: the summary does not offer it.
    assert "could not be checked (see the errors above)" not in output
    assert not any(value in output for value in TOKENS.values())


def test_a_recording_run_records_only_what_is_new(grown: Citations) -> None:
    cassette = grown.cassette("cases/answers.yaml")
    before = cassette.read_text(encoding="utf-8")
    old = interactions(cassette)

    with grown.web() as web:
        result = grown.run("cases/", "--citations-record=new_episodes", gate="default")

    result.stdout.fnmatch_lines(
        [
            "citations: to record: 2 claims new since the recording (judge calls ≤ 2), 1 page "
            "not recorded (1.5 credits, ≤ 8 with retries and a browser); budget: none",
        ]
    )
    result.assert_outcomes(passed=6)
    # The recorded claims sent nothing; the new ones sent their judge call, and only the
    # page never recorded was crawled.
    judged = sorted(call.claim for call in web.judge.calls)
    assert judged == sorted([PACKAGING_CLAIM, ALTITUDE_CLAIM])
    assert {record.target_url for record in web.crawlbase.requests} == {ALTITUDE_APP_URL}
    # The cassette keeps its old interactions and choices byte for byte and adds the new.
    after = cassette.read_text(encoding="utf-8")
    head, choices = before.split("retrieval:\n")
    assert after.startswith(head)
    assert after.split("retrieval:\n")[1].startswith(choices.removesuffix("version: 1\n"))
    assert interactions(cassette)[: len(old)] == old
    added = interactions(cassette)[len(old) :]
    assert sum(1 for i in added if i["request"]["method"] == "POST") == 2
    assert {target for i in added if (target := crawl_target(i))} == {ALTITUDE_APP_URL}


def crawl_target(interaction: dict[str, Any]) -> str | None:
    """The page a stored Crawling API request asked for (None for a judge call)."""
    return parse_qs(urlsplit(interaction["request"]["uri"]).query).get("url", [None])[0]


def merged(citations: Citations, *args: str, gate: str) -> str:
    """Two shards of ``pytest --citations cases/ ARGS`` with ``gate``, merged: what the
    merge prints."""
    for k in (1, 2):
        citations.run("cases/", f"--citations-shard={k}/2", f"--citations-report=shard-{k}.json",
                      *args, gate=gate)  # fmt: skip
    done = run_cli("merge", "shard-1.json", "shard-2.json", env=base_env(citations.path),
                   cwd=citations.path)  # fmt: skip
    return done.stdout


def test_merged_shards_of_a_fork_run_say_how_to_record_the_new_claims(grown: Citations) -> None:
    grown.write("cases/boiling.yaml", BOILING_CASE)
    grown.record("cases/boiling.yaml", gate="default")

    printed = merged(grown, gate="default").splitlines()

    assert (
        "2 claims are new since the recording: record them with CRAWLBASE_TOKEN=… "
        "OPENAI_API_KEY=… pytest --citations cases/answers.yaml --citations-record=new_episodes"
    ) in printed


def test_merged_shards_name_the_budget_each_shard_held(five: Citations) -> None:
    five.write("cases/boiling.yaml", BOILING_CASE)
    with five.web() as web:
        printed = merged(five, *RECORD, "--citations-max-judge-calls", "1", gate="ini")

    assert web.judge.call_count == 2  # one a shard
    (line,) = [line for line in printed.splitlines() if " not checked: " in line]
    assert line.split(" did not cover ")[0].endswith(
        "claims not checked: each shard's budget (--citations-max-judge-calls 1; 2 shards "
        "spent 2 judge calls)"
    )


# -- the plan ----------------------------------------------------------------------------------


def plan_line(result: pytest.RunResult) -> str:
    (line,) = [line for line in result.outlines if line.startswith("citations: to record:")]
    return line


def test_the_plan_reads_the_recorded_pages_through_the_fetch_rules(citations: Citations) -> None:
    citations.write("cases/boiling.yaml", BOILING_CASE)
    citations.record("cases/", mode="new_episodes", gate="default")
    # A new claim that cites only the recorded dead link: its verdict comes from the
    # recording (a 404 needs no judge), so nothing needs to be sent.
    grown = BOILING_CASE + "  - text: The old report is gone.\n    cites: [2]\n"
    citations.write("cases/boiling.yaml", grown)

    with citations.web() as web:
        result = citations.run("--citations-record=new_episodes", gate="default")

    assert plan_line(result) == (
        "citations: to record: nothing new (the recordings hold every claim and page); budget: none"
    )
    assert web.requests == 0
    assert OLD_REPORT_URL in citations.cassette("cases/boiling.yaml").read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("mode", "expected"),
    [
        # Recorded anew: claim-1's two pages and their joint check, claim-2's page (the
        # dead link is known to need no judge only once it is fetched again), two pages.
        ("rewrite", "2 claims new since the recording (judge calls ≤ 4), 2 pages not recorded "
                    "(3 credits, ≤ 16 with retries and a browser)"),
        ("all", "2 claims new since the recording (judge calls ≤ 4), 2 pages not recorded "
                "(3 credits, ≤ 16 with retries and a browser)"),
        ("once", "nothing new (the recordings hold every claim and page)"),
    ],
)  # fmt: skip
def test_the_plan_follows_the_record_mode(citations: Citations, mode: str, expected: str) -> None:
    citations.write("cases/boiling.yaml", BOILING_CASE)
    citations.record("cases/", mode="new_episodes", gate="default")

    with citations.web():
        result = citations.run(f"--citations-record={mode}", "--citations-max-credits", "20",
                               gate="default")

    assert plan_line(result) == f"citations: to record: {expected}; budget: credits 20"
    result.stdout.fnmatch_lines(["citation_precision=*", "*", "*", "*", f"to record: {expected}*"])


# -- the recording page -------------------------------------------------------------------------


def test_the_recording_page_shows_what_a_fork_run_and_a_budgeted_run_print(
    grown: Citations,
) -> None:
    section = readme_section("Only what is new, under a budget", DOCS / "recording.md")
    lines = commands(code_blocks(section))
    fork = "pytest --citations cases/"
    budgeted = (
        "CRAWLBASE_TOKEN=… CRAWLBASE_JS_TOKEN=… OPENAI_API_KEY=… pytest --citations cases/ "
        "--citations-record=new_episodes --citations-max-credits 1"
    )
    assert lines == [fork, budgeted]
    fork_output, budgeted_output = [b for b in code_blocks(section) if not b.language]

    replayed = grown.run("cases/", gate="default")
    with grown.web():
        recorded = grown.run("cases/", "--citations-record=new_episodes",
                             "--citations-max-credits", "1", gate="default")  # fmt: skip

    assert_printed(fork_output.lines, replayed.outlines)
    assert_printed(budgeted_output.lines, recorded.outlines)


def test_tests_that_use_the_fixture_share_the_budget(citations: Citations) -> None:
    citations.pytester.makepyfile(
        test_answers=f"""
        def test_boiling(citation_verifier):
            citation_verifier.verify({SUPPORTED_CLAIM!r}, [{BOILING_URL!r}])

        def test_refunds(citation_verifier):
            citation_verifier.verify({REFUNDS_CLAIM!r}, [{REFUNDS_URL!r}])
        """
    )
    with citations.web() as web:
        result = citations.run(
            "--citations-record=new_episodes", "--citations-max-judge-calls", "1", "-p",
            "no:randomly", gate="default",
        )  # fmt: skip

    assert web.judge.call_count == 1
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["*: over_budget (the run's budget did not cover this request*"])
    # The plan reads case files; it names the tests it does not cover.
    assert plan_line(result) == (
        "citations: to record: 2 tests using citation_verifier, which the plan does not cover "
        "(the budget does); budget: judge calls 1"
    )


def test_the_plan_says_it_does_not_cover_the_tests_that_use_the_fixture(
    citations: Citations,
) -> None:
    citations.write("cases/boiling.yaml", BOILING_CASE)
    citations.record("cases/", mode="new_episodes", gate="default")
    citations.pytester.makepyfile(
        test_answers=f"""
        def test_refunds(citation_verifier):
            citation_verifier.verify({REFUNDS_CLAIM!r}, [{REFUNDS_URL!r}])
        """
    )
    with citations.web() as web:
        result = citations.run("--citations-record=new_episodes", gate="default")

    assert web.judge.call_count == 1  # the test's claim, new: "nothing new" would be wrong
    assert plan_line(result) == (
        "citations: to record: nothing new in the case files (their recordings hold every "
        "claim and page), 1 test using citation_verifier, which the plan does not cover (the "
        "budget does); budget: none"
    )
