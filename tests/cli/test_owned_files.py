"""What the commands write is written whole or not at all (issue 17): on a full disk
(``ulimit -f``: no file may grow past the limit), ``batch --out``, ``drift --json`` and
``import`` leave the file that was there byte-identical, leave no temporary file, and say
which file they could not write (exit 2), without a traceback. The real console script runs
in a subprocess."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from ops_support import BOILING_URL, COMMAND, SUPPORTED_CLAIM, Run, base_env, emulators
from plugin_helpers import Citations

OLD = "an older file, kept whole\n"


def run_full_disk(*args: str, env: dict[str, str], cwd: Path, kib: int = 0) -> Run:
    """``pytest-citations ARGS`` in a process that may not write past ``kib`` KiB of any
    file (its output goes to pipes, which the limit does not touch). It writes no bytecode:
    Python would install a ``.pyc`` cut at the limit, and every later import would fail."""
    done = subprocess.run(
        ["bash", "-c", f'ulimit -f {kib}; exec "$@"', "bash", *COMMAND, *args],
        env={**env, "PYTHONDONTWRITEBYTECODE": "1"},
        cwd=cwd,
        capture_output=True,
        timeout=180,
        check=False,
    )
    return Run(done.returncode, done.stdout.decode("utf-8"), done.stderr.decode("utf-8"))


def temporary_files(folder: Path) -> list[str]:
    return sorted(path.name for path in folder.rglob("*.tmp"))


def assert_refused(run: Run, path: Path) -> None:
    assert run.returncode == 2, run.stdout + run.stderr
    assert (
        f"pytest-citations: cannot write {path}: File too large "
        "(the previous file was left as it was)"
    ) in run.stderr
    assert "Traceback" not in run.stderr
    assert path.read_text(encoding="utf-8") == OLD


def test_batch_on_a_full_disk_leaves_the_old_report(tmp_path: Path) -> None:
    source = tmp_path / "outputs.jsonl"
    source.write_text(
        json.dumps({"id": "water", "claim": SUPPORTED_CLAIM, "urls": [BOILING_URL]}) + "\n",
        encoding="utf-8",
    )
    report = tmp_path / "report.csv"
    report.write_text(OLD, encoding="utf-8")

    with emulators(tmp_path) as web:
        run = run_full_disk("batch", str(source), "--out", str(report), env=web.env, cwd=tmp_path)

    assert_refused(run, report)
    assert temporary_files(tmp_path) == []


def test_drift_json_on_a_full_disk_leaves_the_old_file(citations: Citations) -> None:
    citations.write(
        "cases/water.yaml",
        f"id: water\ncitations:\n  1: {BOILING_URL}\nclaims:\n  - text: {SUPPORTED_CLAIM}\n"
        "    cites: [1]\n",
    )
    citations.record("cases/", gate="default")[0].assert_outcomes(passed=2)
    out = citations.path / "drift.json"
    out.write_text(OLD, encoding="utf-8")

    with emulators(citations.path) as web:
        # 1 KiB: Python's temporary folder must still take its probe; the report is larger.
        arguments = ("drift", "cases/", "--json", str(out))
        run = run_full_disk(*arguments, env=web.env, cwd=citations.path, kib=1)

    assert "drift decision: pass" in run.stdout  # the check ran; only its file failed
    assert_refused(run, out)
    assert temporary_files(citations.path) == []


def test_import_on_a_full_disk_leaves_the_old_case_file(tmp_path: Path) -> None:
    source = tmp_path / "answers.jsonl"
    record = {"id": "water", "answer": f"{SUPPORTED_CLAIM} [1]", "citations": [BOILING_URL]}
    source.write_text(json.dumps(record) + "\n", encoding="utf-8")
    out = tmp_path / "cases"
    out.mkdir()
    case_file = out / "water.yaml"
    case_file.write_text(OLD, encoding="utf-8")

    run = run_full_disk(
        "import",
        str(source),
        "--out",
        str(out),
        "--overwrite",
        env=base_env(tmp_path),
        cwd=tmp_path,
    )

    assert_refused(run, case_file)
    assert temporary_files(tmp_path) == []
