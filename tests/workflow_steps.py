"""Run a step of the shipped gate workflow (``.github/workflows/citations-gate.yml``) here as
GitHub runs it: bash with ``-e -o pipefail``, exactly the variables the step's ``env:`` names
(each given by the test), a runner's temporary folder and ``GITHUB_ACTIONS=true``."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import yaml
from ops_support import base_env

WORKFLOW = Path(__file__).resolve().parents[1] / ".github" / "workflows" / "citations-gate.yml"


def step(job: str, step_id: str) -> dict[str, Any]:
    """One step of the workflow, by its id."""
    workflow = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))
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
) -> subprocess.CompletedProcess[str]:
    """Run one step's script in ``cwd``; every variable its ``env:`` names must be in
    ``env`` (``RUNNER_TEMP`` is ``runner``). ``services`` are the base-URL settings that
    point the run at the local emulators (a real runner has none: the real services)."""
    found = step(job, step_id)
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
    return subprocess.run(
        ["bash", "--noprofile", "--norc", "-e", "-o", "pipefail", "-c", found["run"]],
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
