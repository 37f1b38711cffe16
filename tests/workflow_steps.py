"""Run a step of a shipped workflow (by default the gate, ``.github/workflows/citations-gate.yml``)
here as GitHub runs it: bash with ``-e -o pipefail``, exactly the variables the step's ``env:``
names (each given by the test), a runner's temporary folder and ``GITHUB_ACTIONS=true``; and
what the artifact actions keep and give back (``actions/upload-artifact`` and
``actions/download-artifact``, v4), as their documentation and code say."""

from __future__ import annotations

import fnmatch
import subprocess
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml
from ops_support import base_env

WORKFLOWS = Path(__file__).resolve().parents[1] / ".github" / "workflows"
WORKFLOW = WORKFLOWS / "citations-gate.yml"
RECORDINGS_WORKFLOW = WORKFLOWS / "citations-recordings.yml"


def step(job: str, step_id: str, workflow_file: Path = WORKFLOW) -> dict[str, Any]:
    """One step of the workflow, by its id."""
    workflow = yaml.safe_load(workflow_file.read_text(encoding="utf-8"))
    found: dict[str, Any] = next(
        found for found in workflow["jobs"][job]["steps"] if found.get("id") == step_id
    )
    return found


def run_step(
    job: str,
    step_id: str,
    cwd: Path,
    runner: Path,
    env: dict[str, str],
    services: dict[str, str] | None = None,
    workflow: Path = WORKFLOW,
    file_size_kib: int | None = None,
) -> subprocess.CompletedProcess[str]:
    """Run one step's script in ``cwd``; every variable its ``env:`` names must be in
    ``env`` (``RUNNER_TEMP`` is ``runner``). ``services`` are the base-URL settings that
    point the run at the local emulators (a real runner has none: the real services).
    ``file_size_kib`` emulates a full disk: no file may grow past it (``ulimit -f``)."""
    found = step(job, step_id, workflow)
    named = set(found.get("env") or {})
    missing = named - set(env) - {"RUNNER_TEMP"}
    assert not missing, f"the test gives no value for {sorted(missing)}"
    runner.mkdir(parents=True, exist_ok=True)
    environment = {
        **base_env(cwd, lexical=False),
        **{name: value for name, value in env.items() if name in named},
        **(services or {}),
        "RUNNER_TEMP": str(runner),
        "GITHUB_ACTIONS": "true",
        "GITHUB_STEP_SUMMARY": str(runner / "summary.md"),
        "GITHUB_OUTPUT": str(runner / "output"),
    }
    limit = ["bash", "-c", f'ulimit -f {file_size_kib}; exec "$@"', "bash"] if file_size_kib else []
    return subprocess.run(
        [*limit, "bash", "--noprofile", "--norc", "-e", "-o", "pipefail", "-c", found["run"]],
        cwd=cwd, env=environment, capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip


def replay_env(runner: Path, paths: str) -> dict[str, str]:
    """The gate step's variables for a replay of ``paths`` (no token, one shard, no export)."""
    return {
        "EXPORT": "", "ANSWERS": "", "IMPORT_TO": "cases/", "PATHS": paths,
        "SHARD": "1/1", "SHARD_INDEX": "1", "RECORD": "none",
        "FAIL_ON_REGRESSION": "true", "MAX_PRECISION_DROP": "0.05",
        "MAX_JUDGE_CALLS": "50", "MAX_CREDITS": "100",
        "REPORTS": str(runner / "reports"), "WHERE": ".",
        "CRAWLBASE_TOKEN": "", "CRAWLBASE_JS_TOKEN": "", "OPENAI_API_KEY": "",
        "ANTHROPIC_API_KEY": "",
    }  # fmt: skip


def upload_artifact(path: Path) -> dict[str, bytes] | None:
    """What ``actions/upload-artifact`` (``include-hidden-files: false``) keeps of the folder
    ``path``: every file below it, by its path relative to it, links followed; no hidden
    file or folder, no empty folder. None when that leaves no file: the action warns
    (``if-no-files-found: warn``) and makes no artifact."""
    if not path.is_dir():
        return None
    kept = {
        found.relative_to(path).as_posix(): found.read_bytes()
        for found in sorted(path.rglob("*"))
        if found.is_file()
        and not any(part.startswith(".") for part in found.relative_to(path).parts)
    }
    return kept or None


def download_artifacts(
    artifacts: Mapping[str, Mapping[str, bytes]],
    pattern: str,
    path: Path,
    *,
    merge_multiple: bool = False,
) -> None:
    """``actions/download-artifact`` with ``pattern``: every artifact whose name matches,
    each in a folder named after it under ``path`` (``merge-multiple: false``, even when
    one matches), or all of them into ``path`` itself; nothing at all, not even ``path``,
    when none matches."""
    for name, files in sorted(artifacts.items()):
        if not fnmatch.fnmatchcase(name, pattern):
            continue
        folder = path if merge_multiple else path / name
        for relative, data in files.items():
            target = folder / relative
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
