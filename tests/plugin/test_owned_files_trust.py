"""Every file the plugin owns is written whole or not at all (issue 17): under a full disk
(``ulimit -f 8``: no file may grow past 8 KiB), ``--citations-update-baseline`` leaves the
old baseline byte-identical, says which file it could not write and fails the run, whether
SIGXFSZ is ignored (Python's default: the write fails with EFBIG) or kills the process
mid-write (its temporary file is then left, and the next write removes it). A report that
cannot be written is a clear error naming it, and the run does not exit 0."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from plugin_helpers import BOILING_URL, LEXICAL, NO_CACHE, QUIET, Citations

BASELINE = "baseline.json"
UPDATE = ("--citations-baseline", BASELINE, "--citations-update-baseline")
CLAIMS = 45
#: Python ignores SIGXFSZ unless told otherwise; this restores the default action (death).
DEFAULT_SIGXFSZ = (
    "import signal, sys, pytest; signal.signal(signal.SIGXFSZ, signal.SIG_DFL); "
    "sys.exit(pytest.main(sys.argv[1:]))"
)


def many_claims_case(count: int) -> str:
    """One case whose baseline, once written, is well over 8 KiB."""
    claims = "".join(
        f"  - text: Water boils at 100 °C at sea level, as reading {n} of a long series of "
        "careful kitchen measurements shows.\n    cites: [1]\n"
        for n in range(1, count + 1)
    )
    return f"id: many\ncitations:\n  1: {BOILING_URL}\nclaims:\n{claims}"


@pytest.fixture
def baseline(citations: Citations) -> Path:
    """A recorded case of 45 claims and its baseline, in which one claim is remembered as
    contradicted: an update run writes a different file."""
    citations.write("cases/many.yaml", many_claims_case(CLAIMS))
    result, _ = citations.record("cases/", *UPDATE, gate="contradicted")
    result.assert_outcomes(passed=CLAIMS + 1)
    path = citations.path / BASELINE
    data = json.loads(path.read_text(encoding="utf-8"))
    data["claims"]["cases/many.yaml::many::claim-1"]["label"] = "contradicted"
    path.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    assert path.stat().st_size > 8192 * 1.2
    return path


def run_limited(
    citations: Citations, *args: str, sigxfsz: str = "ignored"
) -> subprocess.CompletedProcess[str]:
    """``pytest --citations ARGS`` in a process that may not write past 8 KiB of any file
    (output goes to pipes, which the limit does not touch). It writes no bytecode: Python
    would install a ``.pyc`` cut at the limit, and every later import would fail."""
    python = [sys.executable, "-m", "pytest"] if sigxfsz == "ignored" else [
        sys.executable, "-c", DEFAULT_SIGXFSZ]  # fmt: skip
    command = [*python, "--citations", *QUIET, *LEXICAL, *NO_CACHE, *args]
    return subprocess.run(
        ["bash", "-c", 'ulimit -f 8; exec "$@"', "bash", *command],
        cwd=citations.path,
        env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
        capture_output=True,
        text=True,
        timeout=300,
    )


def leftovers(folder: Path) -> list[str]:
    return sorted(entry.name for entry in folder.iterdir() if entry.name.endswith(".tmp"))


def test_a_full_disk_leaves_the_old_baseline_and_fails_the_run_naming_it(
    citations: Citations, baseline: Path
) -> None:
    before = baseline.read_bytes()

    done = run_limited(citations, "cases/", *UPDATE)

    assert baseline.read_bytes() == before
    assert leftovers(citations.path) == []
    assert done.returncode == pytest.ExitCode.TESTS_FAILED, done.stdout + done.stderr
    assert (
        f"FAIL baseline not updated: cannot write {baseline}: File too large "
        "(the previous file was left as it was)"
    ) in done.stdout
    assert "baseline updated" not in done.stdout
    assert "Traceback" not in done.stdout + done.stderr


def test_a_writer_killed_by_sigxfsz_leaves_the_old_baseline_and_the_next_write_cleans_up(
    citations: Citations, baseline: Path
) -> None:
    before = baseline.read_bytes()

    done = run_limited(citations, "cases/", *UPDATE, sigxfsz="default")

    assert done.returncode == -signal.SIGXFSZ, done.stdout + done.stderr
    assert baseline.read_bytes() == before
    [left] = leftovers(citations.path)
    assert left.startswith(f".{BASELINE}.")
    assert (citations.path / left).stat().st_size == 8192  # cut where the limit struck

    again = citations.run("cases/", *UPDATE, gate="contradicted")

    again.stdout.fnmatch_lines([f"baseline updated: {CLAIMS} claims written (1 improved)*"])
    assert leftovers(citations.path) == []
    assert json.loads(baseline.read_text(encoding="utf-8"))["version"] == 1


@pytest.mark.parametrize("option", ["--citations-report", "--citations-html", "--citations-csv"])
def test_a_report_that_cannot_be_written_is_an_error_naming_it_and_fails_the_run(
    citations: Citations, option: str
) -> None:
    citations.write("cases/many.yaml", many_claims_case(2))
    citations.record("cases/", gate="contradicted")[0].assert_outcomes(passed=3)
    citations.write("reports", "a file where the report's folder should be\n")
    target = citations.path / "reports" / "out"

    result = citations.run("cases/", f"{option}={target}", gate="contradicted")

    result.assert_outcomes(passed=3)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines([f"FAIL * report not written: cannot write {target}: *"])
    assert (citations.path / "reports").read_text(encoding="utf-8").startswith("a file")


def test_a_report_that_fills_the_disk_leaves_the_old_report(
    citations: Citations, baseline: Path
) -> None:
    report = citations.path / "citations.json"
    report.write_text('{"an": "older report"}\n', encoding="utf-8")

    done = run_limited(citations, "cases/", f"--citations-report={report}")

    assert report.read_text(encoding="utf-8") == '{"an": "older report"}\n'
    assert leftovers(citations.path) == []
    assert done.returncode == pytest.ExitCode.TESTS_FAILED, done.stdout + done.stderr
    assert f"FAIL json report not written: cannot write {report}: File too large" in done.stdout
