"""A pull request of the example assistant, through the shipped gate workflow's own scripts.

The pull request changes the assistant's prompt (``examples/assistant/pr/prompt.txt``), so
that some answers change and one drops the condition its page attaches to the figure (004
C1: partial). The scripts of ``.github/workflows/citations-gate.yml`` run here as GitHub runs
them (bash, each step's environment, one folder per runner), against the local emulators:

- the base job replays the base branch into ``base.json`` with no token;
- two gate shards run at the head with the tokens: only the claims the cassettes do not hold
  are judged, within the budget, no page is fetched again (every one is recorded);
- the merge makes one decision of both shards: the regression is in the Markdown summary,
  and a shard's output carries its annotation;
- each shard uploads what it recorded, and the recordings job
  (``.github/workflows/citations-recordings.yml``) takes both artifacts as
  download-artifact lays them out and commits them to the pull request's branch; the
  branch's next run replays them, and it is the merged run;
- a fork's run (no token) replays: every new claim is unchecked and the run incomplete.

Every runner's checkout is a clone of one repository (the example at
``examples/assistant``, the base on ``main``, the pull request on ``pr``), as
actions/checkout makes it.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from ops_support import CRAWLBASE_JS_TOKEN, CRAWLBASE_TOKEN, OPENAI_API_KEY
from workflow_steps import RECORDINGS_WORKFLOW, download_artifacts, run_step, upload_artifact

from pytest_citations.sandbox import CrawlbaseEmulator, JudgeEmulator, assistant_site
from pytest_citations.sandbox.assistant_site import SHORTENED_CLAIM

#: The inputs this repository's citations.yml gives the assistant's gate.
INPUTS = {
    "EXPORT": "python -m assistant.export answers.jsonl",
    "ANSWERS": "answers.jsonl",
    "IMPORT_TO": "cases/",
    "PATHS": "cases/ tests/",
    "FAIL_ON_REGRESSION": "true",
    "MAX_PRECISION_DROP": "0.05",
    "MAX_JUDGE_CALLS": "20",
    "MAX_CREDITS": "40",
}
SECRETS = {
    "CRAWLBASE_TOKEN": CRAWLBASE_TOKEN,
    "CRAWLBASE_JS_TOKEN": CRAWLBASE_JS_TOKEN,
    "OPENAI_API_KEY": OPENAI_API_KEY,
}


ROOT = Path(__file__).resolve().parents[2]
#: Where the example lives in its repository (the gate's ``working-directory``).
WHERE = "examples/assistant"
#: The example in this checkout (its help pages are the emulated web).
EXAMPLE = ROOT / WHERE


def git(cwd: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.org", *args],
        cwd=cwd, capture_output=True, text=True, timeout=60, check=True,
    )  # fmt: skip
    return done.stdout.rstrip("\n")


def repository(root: Path) -> Path:
    """The example's repository: the base branch ``main``, and the pull request ``pr``
    (the assistant's prompt changed), in a bare repository that stands for GitHub's."""
    work = root / "source"
    shutil.copytree(
        EXAMPLE, work / WHERE, ignore=shutil.ignore_patterns("__pycache__", ".pytest_cache")
    )
    git(work, "init", "-q", "-b", "main")
    git(work, "add", "-A")
    git(work, "commit", "-q", "-m", "base")
    git(work, "checkout", "-q", "-b", "pr")
    shutil.copyfile(work / WHERE / "pr" / "prompt.txt", work / WHERE / "assistant" / "prompt.txt")
    git(work, "commit", "-q", "-am", "the pull request: a new prompt")
    origin = root / "origin.git"
    git(root, "clone", "-q", "--bare", str(work), str(origin))
    return origin


def checkout(origin: Path, target: Path, ref: str) -> Path:
    """A runner's checkout of ``ref``; the folder the gate runs in."""
    git(target.parent, "clone", "-q", str(origin), str(target))
    git(target, "checkout", "-q", ref)
    return target / WHERE


def base_artifact(base_json: Path, checkout: Path) -> None:
    """The base job's artifact, where the gate job downloads it."""
    (checkout / ".citations-base").mkdir()
    shutil.copyfile(base_json, checkout / ".citations-base" / "base.json")


def gate_env(
    runner: Path, shard: int, shards: int, *, record: str, web: dict[str, str]
) -> dict[str, str]:
    return {
        **INPUTS,
        **{name: "" for name in SECRETS},  # a run without tokens, unless ``web`` gives them
        **web,
        "SHARD": f"{shard}/{shards}",
        "SHARD_INDEX": str(shard),
        "RECORD": record,
        "REPORTS": str(runner / "reports"),
        "WHERE": "examples/assistant",
        "ANTHROPIC_API_KEY": "",
    }


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The pull request played once: base, two recording shards, merge, the recordings
    committed, the branch's next run (serial), a fork's run."""
    root = tmp_path_factory.mktemp("pull-request")
    origin = repository(root)
    head = git(origin, "rev-parse", "pr")
    result: dict[str, Any] = {"root": root, "origin": origin, "head": head}
    base_runner = root / "runner-base"
    base = checkout(origin, root / "base", "main")
    done = run_step("base", "replay", base, base_runner, INPUTS)
    assert done.returncode == 0, done.stdout + done.stderr
    base_json = base_runner / "base.json"
    artifacts: dict[str, dict[str, bytes]] = {}
    with (
        CrawlbaseEmulator(token=CRAWLBASE_TOKEN, js_token=CRAWLBASE_JS_TOKEN) as crawlbase,
        JudgeEmulator(openai_key=OPENAI_API_KEY) as judge,
    ):
        assistant_site.install(crawlbase, judge, EXAMPLE)
        services = {
            "CRAWLBASE_API_URL": crawlbase.url,
            "OPENAI_BASE_URL": judge.openai_base_url,
            "JUDGE_PROVIDER": "openai",
        }
        shards = []
        for shard in (1, 2):
            runner = root / f"runner-{shard}"
            runner.mkdir()
            work = checkout(origin, root / f"head-{shard}", "pr")
            base_artifact(base_json, work)
            env = gate_env(runner, shard, 2, record="new_episodes", web=SECRETS)
            shards.append(run_step("gate", "gate", work, runner, env, services))
            uploaded = upload_artifact(runner / "recordings")
            if uploaded is not None:
                artifacts[f"assistant-recordings-{shard}"] = uploaded
        result["judged"] = [call.claim for call in judge.calls]
        result["crawled"] = crawlbase.crawl_count
    result["shards"] = shards
    result["artifacts"] = artifacts
    # The merge job: every shard's report, and the base.
    merge = root / "runner-merge"
    (merge / "shards").mkdir(parents=True)
    (merge / "base").mkdir()
    shutil.copyfile(base_json, merge / "base" / "base.json")
    for shard in (1, 2):
        for report in (root / f"runner-{shard}" / "reports").glob("*.json"):
            shutil.copyfile(report, merge / "shards" / report.name)
    # The variables the workflow sets from the event and its inputs (issue 27).
    links = {"CITATIONS_SOURCE_SHA": "0" * 40, "CITATIONS_ARTIFACT": "assistant-reports"}
    result["merge"] = run_step("merge", "merge", merge, merge, links)
    done = result["merge"]
    assert (merge / "citations.json").is_file(), done.stdout + done.stderr
    run_step("merge", "summary", merge, merge, {})
    result["merged"] = json.loads((merge / "citations.json").read_text("utf-8"))
    result["summary"] = (merge / "summary.md").read_text("utf-8")
    result["commit"] = commit_recordings(root, origin, head, artifacts)
    # The branch's next run, replaying what the recordings job committed.
    serial = checkout(origin, root / "serial", "pr")
    serial_runner = root / "runner-serial"
    serial_runner.mkdir()
    base_artifact(base_json, serial)
    env = gate_env(serial_runner, 1, 1, record="none", web={})
    result["serial_run"] = run_step("gate", "gate", serial, serial_runner, env)
    result["serial"] = json.loads((serial_runner / "reports" / "shard-1.json").read_text("utf-8"))
    # A fork's pull request: no secrets, the head's cassettes as the base branch has them.
    fork_runner = root / "runner-fork"
    fork_runner.mkdir()
    fork = checkout(origin, root / "fork", head)
    base_artifact(base_json, fork)
    env = gate_env(fork_runner, 1, 1, record="none", web={})
    env.update({name: "" for name in SECRETS})
    result["fork"] = run_step("gate", "gate", fork, fork_runner, env)
    result["fork_report"] = json.loads(
        (fork_runner / "reports" / "shard-1.json").read_text("utf-8")
    )
    return result


def commit_recordings(
    root: Path, origin: Path, head: str, artifacts: dict[str, dict[str, bytes]]
) -> subprocess.CompletedProcess[str]:
    """The recordings job: the default branch's copy of the scripts (``trusted``), the pull
    request's branch (``branch``), the gate run's recordings artifacts downloaded by pattern."""
    runner = root / "runner-recordings"
    script = ROOT / ".github" / "scripts" / "take_recordings.py"
    (runner / "trusted" / ".github" / "scripts").mkdir(parents=True)
    shutil.copyfile(script, runner / "trusted" / ".github" / "scripts" / script.name)
    checkout(origin, runner / "branch", "pr")
    download_artifacts(artifacts, "*-recordings-*", runner / "temp" / "recordings")
    env = {
        "HEAD_SHA": head,
        "HEAD_BRANCH": "pr",
        "RECORDINGS": str(runner / "temp" / "recordings"),
        **SECRETS,
        "ANTHROPIC_API_KEY": "",
    }
    taken = run_step(
        "commit", "take", runner / "branch", runner / "temp", env, workflow=RECORDINGS_WORKFLOW
    )
    if taken.returncode or "taken=true" not in (runner / "temp" / "output").read_text("utf-8"):
        return taken  # the job's later steps run only once the take says it took something
    done = run_step(
        "commit", "commit", runner / "branch", runner / "temp", env, workflow=RECORDINGS_WORKFLOW
    )
    # The job's log: what the take said, then the commit's own lines.
    return subprocess.CompletedProcess(
        done.args, done.returncode, taken.stdout + done.stdout, taken.stderr + done.stderr
    )


def claims(report: dict[str, Any]) -> dict[str, str]:
    """Claim text -> label, over every case of a JSON report."""
    return {claim["claim"]: claim["label"] for case in report["cases"] for claim in case["claims"]}


def test_only_the_new_claims_are_judged_within_the_budget(played: dict[str, Any]) -> None:
    for shard in played["shards"]:
        assert shard.returncode in (0, 1), shard.stdout + shard.stderr
    judged = played["judged"]
    assert SHORTENED_CLAIM in judged, "\n".join(shard.stdout for shard in played["shards"])
    base = claims(json.loads((played["root"] / "runner-base" / "base.json").read_text("utf-8")))
    assert not set(judged) & set(base)  # a claim already recorded is never judged again
    assert len(judged) <= 2 * int(INPUTS["MAX_JUDGE_CALLS"])
    assert played["crawled"] == 0  # every cited page was recorded already


def test_the_merge_fails_on_the_regression_and_shows_it_in_the_summary(
    played: dict[str, Any],
) -> None:
    merge = played["merge"]
    assert merge.returncode == 1, merge.stdout + merge.stderr
    assert played["merged"]["run"]["decision"] == "fail"
    summary = played["summary"]
    assert SHORTENED_CLAIM in summary
    assert "partial" in summary
    assert "regress" in summary.lower()
    # The HTML report is named by the artifact it is uploaded in, not a runner's path.
    assert "citations.html in the artifact assistant-reports of this run" in summary


def test_the_shard_that_ran_the_claim_annotates_its_case_file(played: dict[str, Any]) -> None:
    annotations = [
        line
        for shard in played["shards"]
        for line in shard.stdout.splitlines()
        if line.startswith("::error ") and SHORTENED_CLAIM[:20] in line
    ]
    assert annotations, "no annotation names the regressed claim"
    assert all(
        "file=examples/assistant/cases/" in line or "file=cases/" in line for line in annotations
    )


def recorded(artifact: dict[str, bytes]) -> set[str]:
    """The cassettes an artifact holds, by their path in the repository."""
    return {f"{WHERE}/{name}" for name in artifact if name.startswith("cassettes/")}


def test_each_shard_uploads_only_the_cassettes_it_recorded(played: dict[str, Any]) -> None:
    artifacts = played["artifacts"]
    assert sorted(artifacts) == ["assistant-recordings-1", "assistant-recordings-2"]
    one, two = (recorded(artifacts[name]) for name in sorted(artifacts))
    assert one, "shard 1 recorded nothing: the scenario needs two shards that record"
    assert two, "shard 2 recorded nothing: the scenario needs two shards that record"
    assert not one & two  # each case file, and its cassette, belongs to one shard
    for shard, name in enumerate(sorted(artifacts), start=1):
        work = played["root"] / f"head-{shard}"
        changed = git(work, "status", "--porcelain", "--untracked-files=all", "--", WHERE)
        paths = {line[3:] for line in changed.splitlines() if "/cassettes/" in line}
        assert recorded(artifacts[name]) == paths, name
        assert artifacts[name]["where"] == f"{WHERE}\n".encode()


def test_the_recordings_job_commits_what_both_shards_recorded(played: dict[str, Any]) -> None:
    done = played["commit"]
    assert done.returncode == 0, done.stdout + done.stderr
    origin, head = played["origin"], played["head"]
    assert git(origin, "rev-parse", "pr^") == head  # one commit on the branch, pushed
    committed = set(git(origin, "diff", "--name-only", head, "pr").splitlines())
    expected = set().union(*(recorded(files) for files in played["artifacts"].values()))
    assert committed == expected
    for files in played["artifacts"].values():
        for name, data in files.items():
            if name.startswith("cassettes/"):
                shown = subprocess.run(
                    ["git", "show", f"pr:{WHERE}/{name}"], cwd=origin, capture_output=True,
                    check=True,
                )  # fmt: skip
                assert shown.stdout == data, name
    assert f"{len(expected)} cassette(s) changed" in done.stdout
    summary = (played["root"] / "runner-recordings" / "temp" / "summary.md").read_text("utf-8")
    assert f"{len(expected)} cassette(s) changed" in summary


def test_two_shards_merged_are_the_serial_run(played: dict[str, Any]) -> None:
    assert played["serial_run"].returncode == 0  # a shard leaves the decision to the merge
    merged, serial = played["merged"], played["serial"]
    assert claims(merged) == claims(serial)
    assert merged["run"]["decision"] == serial["run"]["decision"] == "fail"
    for figure in ("citations", "supported", "citation_precision", "reachable_precision"):
        assert merged["summary"][figure] == serial["summary"][figure], figure


def test_a_forks_run_replays_and_leaves_every_new_claim_unchecked(played: dict[str, Any]) -> None:
    fork = played["fork"]
    assert fork.returncode == 0, fork.stdout + fork.stderr  # the merge decides
    assert played["fork_report"]["run"]["decision"] == "incomplete"
    assert "new since the recording" in fork.stdout
    for secret in SECRETS.values():
        assert secret not in fork.stdout + fork.stderr
