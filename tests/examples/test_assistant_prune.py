"""The example assistant's pull request leaves stale recordings, and ``cassettes prune`` takes
out exactly those (issue 27). The pull request's prompt (``examples/assistant/pr/``)
rewords answers; its export is imported into the case files and recorded against the
emulators, as the gate records what is new: the old claims' judge calls and retrieval
choices stay in their cassettes. The run's summary says so; ``prune`` lists exactly the
recordings of the claims the case files no longer hold, ``--write`` takes them out, and the
replay gives the same JSON report, the integrity check passes and the assistant's own tests
(whose cassettes prune keeps) replay as before."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from ops_support import COMMAND, Run, base_env

from pytest_citations.sandbox import CrawlbaseEmulator, JudgeEmulator, assistant_site
from pytest_citations.upkeep.stale import shown_claim

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "assistant"

TOKENS = {
    "CRAWLBASE_TOKEN": "prune-example-cb-3f0a9d",
    "CRAWLBASE_JS_TOKEN": "prune-example-js-71b2e4",
    "OPENAI_API_KEY": "sk-prune-example-c85d10",
}


def run(python: Path | str, *args: str, cwd: Path, **env: str) -> Run:
    done = subprocess.run(
        [str(python), *args], cwd=cwd, env={**base_env(cwd, lexical=False), **env},
        capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    result = Run(done.returncode, done.stdout, done.stderr)
    for value in TOKENS.values():
        assert value not in done.stdout + done.stderr
    return result


def cli(project: Path, *args: str) -> Run:
    return run(COMMAND[0], *COMMAND[1:], *args, cwd=project)


def claims(folder: Path) -> dict[str, set[str]]:
    """Each case file's claim texts."""
    return {
        path.name: {claim["text"] for claim in yaml.safe_load(path.read_text("utf-8"))["claims"]}
        for path in sorted(folder.glob("*.yaml"))
    }


def replay(project: Path, python: Path) -> tuple[Run, dict[str, Any]]:
    """The imported answers replayed offline, with no token and no model: the run, and its
    JSON report less what differs on every run and the cassette folder's digest."""
    done = run(
        python, "-m", "pytest", "--citations", "cases/", "-p", "no:cacheprovider",
        "--citations-report", "out.json", cwd=project,
    )  # fmt: skip
    assert done.returncode in (0, 1), done.stdout + done.stderr
    report: dict[str, Any] = json.loads((project / "out.json").read_text("utf-8"))
    del report["run"]["started"], report["run"]["run_id"]
    report["run"].get("identity", {}).pop("cassettes", None)
    return done, report


def outcome(tests: Run) -> tuple[int, str]:
    """A run of the assistant's own tests: its exit status and its counts."""
    return tests.returncode, tests.stdout.splitlines()[-1].split(" in ")[0]


@pytest.fixture(scope="module")
def pulled(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The pull request's answers imported and recorded (what is new only)."""
    project = tmp_path_factory.mktemp("assistant") / "assistant"
    shutil.copytree(EXAMPLE, project, ignore=shutil.ignore_patterns("__pycache__", ".pytest_cache"))
    shutil.copyfile(project / "pr" / "prompt.txt", project / "assistant" / "prompt.txt")
    exported = run(sys.executable, "-m", "assistant.export", "answers.jsonl", cwd=project)
    assert exported.returncode == 0, exported.stderr
    imported = cli(project, "import", "answers.jsonl", "--out", "cases/")
    assert imported.returncode == 0, imported.stdout + imported.stderr
    with (
        CrawlbaseEmulator(
            token=TOKENS["CRAWLBASE_TOKEN"], js_token=TOKENS["CRAWLBASE_JS_TOKEN"]
        ) as crawlbase,
        JudgeEmulator(openai_key=TOKENS["OPENAI_API_KEY"]) as judge,
    ):
        assistant_site.install(crawlbase, judge, EXAMPLE)
        recorded = run(
            sys.executable, "-m", "pytest", "--citations", "cases/", "-p", "no:cacheprovider",
            "--citations-record=new_episodes", cwd=project, **TOKENS,
            CRAWLBASE_API_URL=crawlbase.url, OPENAI_BASE_URL=judge.openai_base_url,
            JUDGE_PROVIDER="openai",
        )  # fmt: skip
    assert recorded.returncode == 1, recorded.stdout  # the shortened claim is partial
    return {"project": project, "recorded": recorded}


def test_prune_removes_exactly_the_stale_recordings_and_the_replay_is_the_same(
    pulled: dict[str, Any], light: Path, tmp_path: Path
) -> None:
    project = shutil.copytree(pulled["project"], tmp_path / "assistant")
    dropped = {
        name: sorted(old - claims(project / "cases")[name])
        for name, old in claims(EXAMPLE / "cases").items()
    }
    dropped = {name: texts for name, texts in dropped.items() if texts}
    assert dropped, "the pull request rewords no claim: the scenario needs one"
    # The recording run said so, naming the command.
    stale = [line for line in pulled["recorded"].stdout.splitlines() if "stale recording" in line]
    count = 2 * sum(map(len, dropped.values()))
    assert len(stale) == 1, pulled["recorded"].stdout
    assert stale[0].startswith(f"{count} stale recordings in {len(dropped)} cassette")
    assert stale[0].endswith(": pytest-citations cassettes prune cassettes/ lists them")
    _, before = replay(project, light)
    tests_before = outcome(run(light, "-m", "pytest", "-p", "no:cacheprovider", cwd=project))
    tests_cassettes = {
        path: path.read_bytes() for path in (project / "cassettes/tests").rglob("*.yaml")
    }

    listed = cli(project, "cassettes", "prune", "cassettes/")

    assert listed.returncode == 1, listed.stdout + listed.stderr
    found = [line.split(" (")[0] for line in listed.stdout.splitlines() if line.startswith("  ")]
    url = "https://support.kettleco.example/help/"
    assert found == [
        entry
        for name, texts in dropped.items()
        for entry in (
            *(f"  judge call for {shown_claim(text)}" for text in texts),
            *(f"  choice {shown_claim(text)} against {url}{name[:-5]}" for text in texts),
        )
    ]
    for path in tests_cassettes:  # the assistant's tests' cassettes: kept, and said
        shown = path.relative_to(project).as_posix()
        assert f"{shown}: kept, could not tell: it may be a test's cassette" in listed.stdout

    written = cli(project, "cassettes", "prune", "cassettes/", "--write")

    assert written.returncode == 0, written.stdout + written.stderr
    after_run, after = replay(project, light)
    assert after == before
    assert "stale recording" not in after_run.stdout
    check = cli(project, "cassettes", "check", "cassettes/")
    assert check.returncode == 0, check.stdout
    assert {path: path.read_bytes() for path in tests_cassettes} == tests_cassettes
    tests = run(light, "-m", "pytest", "-p", "no:cacheprovider", cwd=project)
    assert outcome(tests) == tests_before
    assert sorted(os.listdir(project / "cassettes/cases")) == sorted(
        os.listdir(EXAMPLE / "cassettes/cases")
    )
