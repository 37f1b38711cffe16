"""``pytest --citations cases/ --citations-drift`` (issue 12): after the tests, the pages the
cassettes hold are fetched live and compared; the summary, the JSON, CSV and HTML reports
carry the drift, and the policy (``--citations-drift-fail-on``) decides the exit status."""

from __future__ import annotations

import csv
import io
import json

import pytest
from drift_world import RETURNS_CLAIM, RETURNS_PAGE, RETURNS_URL, case_text
from plugin_helpers import TOKENS, Citations
from test_readme import DOCS, assert_printed

BOILING_URL = "https://example.org/physics/boiling"  # the example site's page
BOILING_CLAIM = "Water boils at 100 °C at sea level."
FOURTEEN_DAYS = RETURNS_PAGE.replace("30 days", "14 days")


@pytest.fixture
def recorded(citations: Citations) -> Citations:
    """Two case files, recorded by the plugin against the emulators."""
    citations.write("cases/policy.yaml", case_text("policy", [(RETURNS_CLAIM, [RETURNS_URL])]))
    citations.write("cases/water.yaml", case_text("water", [(BOILING_CLAIM, [BOILING_URL])]))
    with citations.web() as web:
        web.crawlbase.add(RETURNS_URL, markdown=RETURNS_PAGE)
        citations.run("--citations-record=once", "cases/", gate="default").assert_outcomes(passed=4)
    return citations


def cassettes(citations: Citations) -> dict[str, bytes]:
    return {
        name: citations.cassette(f"cases/{name}.yaml").read_bytes() for name in ("policy", "water")
    }


def test_a_flipped_citation_fails_the_run_and_every_report_shows_it(recorded: Citations) -> None:
    before = cassettes(recorded)
    with recorded.web() as web:
        web.crawlbase.add(RETURNS_URL, markdown=FOURTEEN_DAYS)
        result = recorded.run(
            "cases/", "--citations-drift", "--citations-report=out/run.json",
            "--citations-csv=out/run.csv", "--citations-html=out/run.html", gate="default",
        )  # fmt: skip
        judged = web.judge.call_count

    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.assert_outcomes(passed=4)  # the gate replays the recordings, unchanged
    result.stdout.fnmatch_lines(
        [
            "*drift: 2 citations in 2 cassettes; 2 URLs to fetch live*",
            "*EVIDENCE_CHANGED cases/policy.yaml::policy::claim-1 "
            f"{RETURNS_URL}: supported → contradicted FLIPPED*",
            "drift decision: fail (flipped 1)",
        ]
    )
    assert judged == 1  # only the citation whose evidence changed
    assert cassettes(recorded) == before  # nothing written without --citations-drift-update

    data = json.loads((recorded.path / "out/run.json").read_text(encoding="utf-8"))
    assert data["drift"]["counts"]["evidence_changed"] == 1
    assert data["drift"]["counts"]["unchanged"] == 1
    assert data["drift"]["failures"] == [
        {"nodeid": "cases/policy.yaml::policy::claim-1", "url": RETURNS_URL, "reasons": ["flipped"]}
    ]
    rows = list(csv.DictReader(io.StringIO((recorded.path / "out/run.csv").read_text("utf-8"))))
    by_url = {row["url"]: row for row in rows}
    assert by_url[RETURNS_URL]["drift_status"] == "evidence_changed"
    assert (by_url[RETURNS_URL]["drift_old_label"], by_url[RETURNS_URL]["drift_new_label"]) == (
        "supported",
        "contradicted",
    )
    # Diff lines start with "-" or "+": never a spreadsheet formula.
    assert by_url[RETURNS_URL]["drift_diff"].startswith("'-")
    assert by_url[BOILING_URL]["drift_status"] == "unchanged"
    page = (recorded.path / "out/run.html").read_text(encoding="utf-8")
    assert 'id="drift"' in page
    assert "drift decision: fail (flipped 1)" in page
    assert "14 days" in page  # the diff, folded under the citation


def test_the_drift_page_shows_what_a_drift_run_prints(recorded: Citations) -> None:
    text = (DOCS / "drift.md").read_text(encoding="utf-8")
    after = "For a returns page whose 30 days became 14, the run ends with:"
    assert after in text
    shown = text.split(after, 1)[1].split("```", 2)[1].splitlines()[1:]
    with recorded.web() as web:
        web.crawlbase.add(RETURNS_URL, markdown=FOURTEEN_DAYS)
        result = recorded.run("cases/", "--citations-drift", gate="default")

    # The page's block is the end of the output, up to pytest's own last line.
    assert_printed(["…", *shown], result.outlines[:-1])


def test_the_policy_decides_the_exit_status(recorded: Citations) -> None:
    with recorded.web() as web:
        web.crawlbase.add(RETURNS_URL, markdown=FOURTEEN_DAYS)
        lenient = recorded.run("cases/", "--citations-drift", "--citations-drift-fail-on=gone",
                               gate="default")
        strict = recorded.run(
            "cases/", "--citations-drift", "--citations-drift-fail-on=evidence_changed",
            gate="default"
        )

    assert lenient.ret == pytest.ExitCode.OK
    lenient.stdout.fnmatch_lines(["drift decision: pass"])
    assert strict.ret == pytest.ExitCode.TESTS_FAILED
    strict.stdout.fnmatch_lines(["drift decision: fail (evidence_changed 1)"])


def test_unchanged_pages_pass_and_cost_no_judge_call(recorded: Citations) -> None:
    with recorded.web() as web:
        web.crawlbase.add(RETURNS_URL, markdown=RETURNS_PAGE)
        result = recorded.run("cases/", "--citations-drift", gate="default")
        judged = web.judge.call_count
        crawled = web.crawlbase.crawl_count

    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines(["*unchanged 2*", "drift decision: pass"])
    assert (judged, crawled) == (0, 2)


def test_update_writes_only_what_it_checked_again_and_the_replay_follows(
    recorded: Citations,
) -> None:
    before = cassettes(recorded)
    with recorded.web() as web:
        web.crawlbase.add(RETURNS_URL, markdown=FOURTEEN_DAYS)
        result = recorded.run("cases/", "--citations-drift", "--citations-drift-update",
                              gate="default")

    result.stdout.fnmatch_lines(["*updated cassettes/cases/policy.yaml*"])
    after = cassettes(recorded)
    assert after["water"] == before["water"]
    assert after["policy"] != before["policy"]
    for name in TOKENS.values():
        assert name.encode() not in after["policy"]
    replay = recorded.run("cases/", gate="default")  # offline: the new recording says contradicted
    replay.assert_outcomes(passed=3, failed=1)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--citations-drift-update",), "*--citations-drift-update needs --citations-drift*"),
        (("--citations-drift", "--citations-drift-fail-on=vanished"),
         "*unknown drift status 'vanished'*choose from*"),
        (("--citations-drift", "-n", "2"), "*--citations-drift*runs in one process*-n 0*"),
    ],
    ids=["update-alone", "unknown-status", "xdist"],
)  # fmt: skip
def test_usage_errors(recorded: Citations, args: tuple[str, ...], message: str) -> None:
    if "-n" in args:
        pytest.importorskip("xdist")
    result = recorded.run("cases/", *args, gate="default")

    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([message])


def test_drift_without_tokens_names_every_missing_variable(recorded: Citations) -> None:
    for name in TOKENS:
        recorded.monkeypatch.delenv(name, raising=False)

    result = recorded.run("cases/", "--citations-drift", gate="default")

    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--citations-drift sends requests and needs CRAWLBASE_TOKEN*"])


def test_drift_of_a_run_of_one_case_file_checks_and_updates_only_it(recorded: Citations) -> None:
    # One case file is verified directly (no scheduler ahead of its items) and the drift
    # statuses load only when used: the check still runs, flips, updates and replays.
    before = cassettes(recorded)
    with recorded.web() as web:
        web.crawlbase.add(RETURNS_URL, markdown=FOURTEEN_DAYS)
        checked = recorded.run("cases/policy.yaml", "--citations-drift", gate="default")
        judged = web.judge.call_count
        updated = recorded.run(
            "cases/policy.yaml", "--citations-drift", "--citations-drift-update", gate="default"
        )

    assert checked.ret == pytest.ExitCode.TESTS_FAILED
    checked.assert_outcomes(passed=2)
    checked.stdout.fnmatch_lines(
        ["*drift: 1 citation in 1 cassette;*", "*FLIPPED*", "drift decision: fail (flipped 1)"]
    )
    assert judged == 1
    after = cassettes(recorded)
    assert after["water"] == before["water"]
    assert after["policy"] != before["policy"], updated.stdout.str()
    recorded.run("cases/policy.yaml", gate="default").assert_outcomes(passed=1, failed=1)
