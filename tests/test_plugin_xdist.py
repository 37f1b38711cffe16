"""Under pytest-xdist (``-n 2 --dist loadfile``) a replay gives the same outcomes, one merged
summary and one merged JSON report as without it."""

from __future__ import annotations

from typing import Any

import pytest
from plugin_helpers import (
    ALTITUDE_APP_URL,
    ALTITUDE_CLAIM,
    BOILING_CASE,
    NINE_CASE,
    RETURNS_CASE,
    Citations,
    citations_fixture,  # noqa: F401
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
            "cases/", "--citations-record=once", "-n", "2", "--dist", "loadfile"
        )
    recorded.assert_outcomes(passed=13, failed=2)
    assert web.crawlbase.crawl_count > 0
    assert sorted(p.name for p in (citations.path / "cassettes" / "cases").iterdir()) == [
        "app.yaml",
        "boiling.yaml",
        "nine.yaml",
        "returns.yaml",
    ]

    serial = citations.run("cases/", "-n", "0", "--citations-report=serial.json", "-rf")
    parallel = citations.run(
        "cases/", "-n", "2", "--dist", "loadfile", "--citations-report=parallel.json", "-rf"
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


def test_recording_without_a_token_under_xdist_is_one_usage_error(citations: Citations) -> None:
    citations.write("cases/boiling.yaml", BOILING_CASE)
    with citations.web(tokens={"OPENAI_API_KEY": "sk-only-the-judge"}) as web:
        result = citations.run("cases/", "--citations-record=once", "-n", "2")

    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: --citations-record=once *needs CRAWLBASE_TOKEN*"])
    assert "crashed" not in result.stdout.str()
    assert web.requests == 0
