"""A replay that compares with no base, keeps no baseline, measures no calibration and
checks no figures loads none of the modules that do those things (issue 25): their code is
imported where a run asks for it, and types used only in annotations are imported for the
type checker alone. A module that came back onto the replay path through a top-level import
would run its class bodies (and the figures' tables) in every run again."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

#: The modules of ``pytest_citations.gating`` a plain replay never needs.
OPTIONAL = (
    "base_report",
    "baseline",
    "calibration",
    "comparison",
    "figures",
    "numbers",
    "regressions",
    "relaxation",
)

PROBE = f"""
import sys, pytest
code = pytest.main(["--citations", "cases/prompt-injection.yaml", "-q", "-p", "no:cacheprovider"])
loaded = [name for name in {OPTIONAL!r} if "pytest_citations.gating." + name in sys.modules]
print("LOADED", loaded)
raise SystemExit(int(code))
"""


def test_a_plain_replay_loads_no_comparison_baseline_calibration_or_figures() -> None:
    done = subprocess.run(
        [sys.executable, "-c", PROBE], cwd=ROOT, capture_output=True, text=True, timeout=300
    )

    assert done.returncode == 0, done.stdout + done.stderr
    assert "LOADED []" in done.stdout, done.stdout


def test_the_summary_says_every_kind_of_change_it_reads_by_value() -> None:
    # regression_lines reads a change's kind by its value so that the reports, which import
    # it, load no comparison; every kind the comparison makes must have its words there.
    from pytest_citations.gating import regression_lines
    from pytest_citations.gating.comparison import ChangeKind

    assert set(regression_lines._SAID) == {kind.value for kind in ChangeKind}
    assert set(regression_lines._SAME_TEXT) <= set(regression_lines._SAID)
