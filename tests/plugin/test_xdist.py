"""Under pytest-xdist a replay gives the same outcomes, one merged summary and one merged JSON
report as without it; with the default ``-n 2`` each case file runs on one worker, so a
parallel recording sends exactly the requests of a serial one (issue 8)."""

from __future__ import annotations

import shutil
from typing import Any

import pytest
from plugin_helpers import (
    ALTITUDE_APP_URL,
    ALTITUDE_CLAIM,
    BOILING_CASE,
    MOVED_URL,
    NINE_CASE,
    NOT_FOUND_CLAIM,
    RETURNS_CASE,
    SOFT_404_URL,
    SOFTWARE_URL,
    Citations,
    load_report,
    single_claim_case,
)

CASE_FILES = {
    "cases/boiling.yaml": BOILING_CASE,
    "cases/returns.yaml": RETURNS_CASE,
    "cases/nine.yaml": NINE_CASE,
    "cases/app.yaml": single_claim_case("app", ALTITUDE_CLAIM, ALTITUDE_APP_URL),
}
CASE_KEYS = [
    "cases/app.yaml::app",
    "cases/boiling.yaml::boiling-point",
    "cases/nine.yaml::nine",
    "cases/returns.yaml::returns-policy",
]


def by_case(report: dict[str, Any]) -> dict[str, Any]:
    """The report's cases by ``file::id``, in a stable order."""
    return {f"{case['file']}::{case['id']}": case for case in report["cases"]}


def summary_lines(result: pytest.RunResult) -> list[str]:
    """The lines of the ``citations`` summary section, up to the usage line."""
    lines = result.outlines
    start = next(n for n, line in enumerate(lines) if "= citations =" in line)
    end = next(n for n, line in enumerate(lines) if line.startswith("crawlbase_credits="))
    return lines[start + 1 : end]


def test_xdist_records_with_loadfile_and_replays_like_a_serial_run(citations: Citations) -> None:
    for path, text in CASE_FILES.items():
        citations.write(path, text)
    with citations.web() as web:
        recorded = citations.run(
            "cases/", "--citations-record=once", "-n", "2", "--dist", "loadfile",
            gate="contradicted",
        )
    recorded.assert_outcomes(passed=13, failed=2)
    assert web.crawlbase.crawl_count > 0
    assert sorted(p.name for p in (citations.path / "cassettes" / "cases").iterdir()) == [
        "app.yaml",
        "boiling.yaml",
        "nine.yaml",
        "returns.yaml",
    ]

    serial = citations.run("cases/", "-n", "0", "--citations-report=serial.json", "-rf",
                           gate="contradicted")
    parallel = citations.run(
        "cases/", "-n", "2", "--dist", "loadfile", "--citations-report=parallel.json", "-rf",
        gate="contradicted"
    )

    serial.assert_outcomes(passed=13, failed=2)
    parallel.assert_outcomes(passed=13, failed=2)
    assert "request_refused" not in serial.stdout.str() + parallel.stdout.str()
    parallel.stdout.fnmatch_lines(["created: 2/2 workers*"])
    failed = sorted(line for line in parallel.outlines if line.startswith("FAILED "))
    assert failed == sorted(line for line in serial.outlines if line.startswith("FAILED "))
    assert len(failed) == 2

    # One summary, with every case, the same as without xdist (rows in any order).
    assert parallel.stdout.str().count("= citations =") == 1
    assert sorted(summary_lines(parallel)) == sorted(summary_lines(serial))
    for key in CASE_KEYS:
        parallel.stdout.fnmatch_lines([f"{key} *"])

    serial_report = load_report(citations.path / "serial.json")
    parallel_report = load_report(citations.path / "parallel.json")
    assert sorted(by_case(parallel_report)) == CASE_KEYS
    assert by_case(parallel_report) == by_case(serial_report)
    for field in ("cases", "claims", "citations", "citation_precision", "reachable_precision"):
        assert parallel_report["summary"][field] == serial_report["summary"][field], field
    # Usage comes from the workers: nothing spent, and what they replayed is counted (each
    # worker replays the pages and judge calls its files share with another worker's).
    usage = parallel_report["summary"]["usage"]
    serial_usage = serial_report["summary"]["usage"]
    assert usage["judge_calls"] == usage["normal_crawls"] == 0
    assert usage["replayed_judge_calls"] >= serial_usage["replayed_judge_calls"] > 0
    assert usage["replayed_crawls"] >= serial_usage["replayed_crawls"] > 0


#: Case files that share no page, so that a serial run fetches and judges each page once
#: and so must ``-n 2``: several cases and claims per file, more items than workers.
DISJOINT_FILES = {
    "cases/boiling.yaml": BOILING_CASE,
    "cases/returns.yaml": RETURNS_CASE,
    "cases/app.yaml": single_claim_case("app", ALTITUDE_CLAIM, ALTITUDE_APP_URL),
    "cases/software.yaml": f"""\
cases:
  - id: licences
    citations: [{SOFTWARE_URL}]
    claims:
      - {{text: "{NOT_FOUND_CLAIM}", cites: [1]}}
      - {{text: "Subscriptions can be cancelled at any time.", cites: [1]}}
  - id: moved
    citations: [{MOVED_URL}, {SOFT_404_URL}]
    claims:
      - {{text: "Pressure cookers raise the boiling point.", cites: [1, 2]}}
""",
}


def spent(citations: Citations, *args: str, gate: str) -> tuple[int, int, pytest.RunResult]:
    """Record every case file afresh with ``gate``; (crawl requests, judge calls, result)."""
    cassettes = citations.path / "cassettes"
    if cassettes.exists():
        shutil.rmtree(cassettes)
    with citations.web() as web:
        result = citations.run(
            "cases/", "test_plain.py", "--citations-record=once", *args, gate=gate
        )
    return web.crawlbase.crawl_count, web.judge.call_count, result


def test_n_2_costs_exactly_what_a_serial_run_costs(citations: Citations) -> None:
    for path, text in DISJOINT_FILES.items():
        citations.write(path, text)
    citations.pytester.makepyfile(
        test_plain="import pytest\n\n@pytest.mark.parametrize('n', range(6))\n"
        "def test_plain(n):\n    pass\n"
    )

    crawls, judge_calls, serial = spent(citations, "-p", "no:xdist", gate="contradicted")
    parallel_crawls, parallel_judge_calls, parallel = spent(
        citations, "-n", "2", "-v", gate="contradicted"
    )

    serial.assert_outcomes(passed=18, failed=2)
    parallel.assert_outcomes(passed=18, failed=2)
    assert crawls > 0
    assert judge_calls > 0
    assert (parallel_crawls, parallel_judge_calls) == (crawls, judge_calls)
    # Both workers were used, and each case file ran on one of them only.
    workers_of = workers_by_file(parallel)
    assert sorted(workers_of) == sorted(DISJOINT_FILES)
    assert all(len(workers) == 1 for workers in workers_of.values()), workers_of
    assert len(set().union(*workers_of.values())) == 2
    parallel.stdout.fnmatch_lines(["citations: * xdist=loadcasefile*"])


def workers_by_file(result: pytest.RunResult) -> dict[str, set[str]]:
    """The xdist workers (``gw0``, ...) that ran items of each case file, from ``-v``."""
    workers_of: dict[str, set[str]] = {}
    for line in result.outlines:
        if line.startswith("[gw") and "] " in line:
            worker, rest = line[1:].split("] ", 1)
            nodeid = rest.split()[-1]
            if ".y" in nodeid and "::" in nodeid:
                workers_of.setdefault(nodeid.split("::", 1)[0], set()).add(worker)
    return workers_of


def test_case_files_chosen_by_a_glob_with_a_folder_stay_whole(citations: Citations) -> None:
    citations.pytester.makeini("[pytest]\ncitations_files = checks/*.yml\n")
    citations.write("checks/nine.yml", NINE_CASE)

    result = citations.run("checks/", "-n", "2", "-v", "--citations-allow-unchecked",
                           gate="default")

    assert result.ret in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED)
    assert {name: len(workers) for name, workers in workers_by_file(result).items()} == {
        "checks/nine.yml": 1
    }


@pytest.mark.parametrize(
    ("args", "shown"),
    [
        (("-n", "2"), "xdist=loadcasefile"),
        (("-n", "2", "--dist", "loadfile"), "xdist=loadfile"),
        (("-n", "2", "--dist", "worksteal"), "xdist=worksteal (splits case files*"),
    ],
)
def test_the_header_says_which_scheduling_is_in_use(
    citations: Citations, args: tuple[str, ...], shown: str
) -> None:
    citations.write("cases/boiling.yaml", BOILING_CASE)

    result = citations.run("cases/", "--collect-only", *args, gate="default")

    result.stdout.fnmatch_lines([f"citations: * {shown}"])


def test_without_xdist_the_header_names_no_scheduling(citations: Citations) -> None:
    citations.write("cases/boiling.yaml", BOILING_CASE)

    result = citations.run("cases/", "--collect-only", "-n", "0", gate="default")

    assert "xdist=" not in result.stdout.str()


def test_recording_without_a_token_under_xdist_is_one_usage_error(citations: Citations) -> None:
    citations.write("cases/boiling.yaml", BOILING_CASE)
    with citations.web(tokens={"OPENAI_API_KEY": "sk-only-the-judge"}) as web:
        result = citations.run("cases/", "--citations-record=once", "-n", "2", gate="default")

    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: --citations-record=once *needs CRAWLBASE_TOKEN*"])
    assert "crashed" not in result.stdout.str()
    assert web.requests == 0
