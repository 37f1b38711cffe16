"""The core install as a user gets it: a fresh ``python -m venv``, then ``pip install
<repository>`` (no extras) through pip as the machine configures it (its index, extra
indexes, find-links and constraints), timed; then the size of the new site-packages less pip
and setuptools, by distribution (the files each one's RECORD lists)."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from .world import ROOT, clean_environment

#: What ``python -m venv`` puts there before anything is installed.
BOOTSTRAP = ("pip", "setuptools")
SIZES = """\
import json, sys
from importlib import metadata
from pathlib import Path

site = Path(sys.argv[1])
sizes = {}
for dist in metadata.distributions(path=[str(site)]):
    total = 0
    for file in dist.files or ():
        path = Path(dist.locate_file(file))
        if path.is_file():
            total += path.stat().st_size
    sizes[dist.metadata["Name"]] = total
print(json.dumps(sizes))
"""


def _site_packages(venv: Path) -> Path:
    found = sorted(venv.glob("lib/python*/site-packages")) or sorted(venv.glob("Lib/site-packages"))
    if not found:
        raise SystemExit(f"no site-packages under {venv}")
    return found[0]


def _tree_size(folder: Path) -> int:
    return sum(path.stat().st_size for path in folder.rglob("*") if path.is_file())


def core_install(folder: Path) -> dict[str, Any]:
    """Installs the core into a new venv under ``folder``; its time and sizes (bytes)."""
    venv = folder / "core-venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = venv / ("Scripts/python.exe" if sys.platform == "win32" else "bin/python")
    # No pip cache: a CI runner starts without one.
    command = [str(python), "-m", "pip", "install", "--no-cache-dir", "--quiet", str(ROOT)]
    env = clean_environment()
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # pip compiles what it installs, as for a user
    start = time.perf_counter()
    done = subprocess.run(command, env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"pip install failed:\n{done.stdout}\n{done.stderr}")
    site = _site_packages(venv)
    measured = subprocess.run(
        [str(python), "-c", SIZES, str(site)], check=True, capture_output=True, text=True
    )
    sizes: dict[str, int] = json.loads(measured.stdout)
    total = _tree_size(site)
    bootstrap = sum(size for name, size in sizes.items() if name.lower() in BOOTSTRAP)
    return {
        "python": str(python),
        "seconds": seconds,
        "site_packages_bytes": total,
        "bootstrap_bytes": bootstrap,
        "core_bytes": total - bootstrap,
        "distributions": dict(sorted(sizes.items(), key=lambda item: -item[1])),
    }
