"""No input line crashes a command (issue 17): one JSON line nested 3,000 levels deep in an
``import`` or ``batch`` input is skipped with its file and line, the lines around it are
imported or checked, and the command exits 1 as it does for any bad line. The real console
script runs in a subprocess, the batch against the emulators."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

from ops_support import (
    BOILING_URL,
    REFUNDS_CLAIM,
    REFUNDS_URL,
    SUPPORTED_CLAIM,
    base_env,
    emulators,
    run_cli,
)

DEEP = "[" * 3000 + "]" * 3000


def test_import_skips_a_line_nested_too_deeply_and_imports_the_rest(tmp_path: Path) -> None:
    source = tmp_path / "answers.jsonl"
    good = [
        {"answer": f"{SUPPORTED_CLAIM} [1]", "citations": [BOILING_URL]},
        {"answer": f"{REFUNDS_CLAIM} [1]", "citations": [REFUNDS_URL]},
    ]
    lines = [json.dumps(good[0]), '{"answer": ' + DEEP + "}", json.dumps(good[1])]
    source.write_text("\n".join(lines) + "\n", encoding="utf-8")
    out = tmp_path / "cases"

    run = run_cli("import", str(source), "--out", str(out), env=base_env(tmp_path))

    assert run.returncode == 1, run.stderr
    assert f"Skipped {source}:2: invalid JSON: nested too deeply to read" in run.stdout
    assert len(list(out.glob("*.yaml"))) == 2
    assert "Traceback" not in run.stderr


def test_batch_skips_lines_nested_too_deeply_and_checks_the_rest(tmp_path: Path) -> None:
    source = tmp_path / "outputs.jsonl"
    lines = [
        json.dumps({"id": "water", "claim": SUPPORTED_CLAIM, "urls": [BOILING_URL]}),
        DEEP,
        json.dumps({"id": "refunds", "claim": REFUNDS_CLAIM, "urls": [REFUNDS_URL]}),
        '{"id": ' + "[" * 900 + "]" * 900 + f', "claim": "{SUPPORTED_CLAIM}", "urls": []}}',
    ]
    source.write_text("\n".join(lines) + "\n", encoding="utf-8")
    report = tmp_path / "report.csv"

    with emulators(tmp_path) as web:
        run = run_cli("batch", str(source), "--out", str(report), env=web.env, cwd=tmp_path)

    assert run.returncode == 1, run.stderr  # lines were skipped
    assert f"{source}:2: skipped: invalid JSON (nested too deeply to read)" in run.stderr
    assert f"{source}:4: skipped: 'id' must be a string or a number" in run.stderr
    assert "claims=2 skipped_lines=2" in run.stderr
    assert run.stdout.startswith("citation_precision=1.0000 (2/2)")
    rows = list(csv.DictReader(io.StringIO(report.read_text(encoding="utf-8"))))
    assert [(row["case"], row["label"]) for row in rows] == [
        ("water", "supported"),
        ("refunds", "supported"),
    ]
    run.assert_no_secret()
