"""The GitHub Actions workflows: ``citations.yml`` calls the reusable gate
(``citations-gate.yml``) on every pull request, which replays the base branch, gates the head
in shards (recording only what is new when it has the tokens, replaying when it has none)
and merges them into one decision and job summary; ``citations-recordings.yml`` commits what
a trusted branch's gate recorded without running its code; ``rerecord.yml`` updates weekly
only what drift found changed; ``drift.yml`` checks nightly. Secrets reach steps as
environment variables and are never printed; every action is pinned to a commit and every
job holds the least permissions it needs. Every ``pytest`` and ``pytest-citations`` command
they run uses only options that exist: the options are read from the real ``--help`` of both
commands.
"""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from ops_support import COMMAND
from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name
from workflow_steps import run_step

from pytest_citations.plugin.option_table import OPTIONS

ROOT = Path(__file__).resolve().parents[1]
WORKFLOWS = ROOT / ".github" / "workflows"
GATE = WORKFLOWS / "citations.yml"
REUSABLE = WORKFLOWS / "citations-gate.yml"
RECORDINGS = WORKFLOWS / "citations-recordings.yml"
RERECORD = WORKFLOWS / "rerecord.yml"
DRIFT = WORKFLOWS / "drift.yml"
#: The variables the plugin reads its tokens and keys from.
TOKEN_VARIABLES = ("CRAWLBASE_TOKEN", "CRAWLBASE_JS_TOKEN", "OPENAI_API_KEY", "ANTHROPIC_API_KEY")
#: What turns a shell into a printer of its environment.
PRINTS_ENVIRONMENT = re.compile(
    r"(^|[;&|]\s*)(env|printenv|export\s+-p|set(\s+-\w*x\w*)?)\s*($|[;&|])"
)


def load(path: Path) -> dict[str, Any]:
    """A workflow as GitHub reads it (PyYAML reads the key ``on`` as ``True``)."""
    loaded: dict[Any, Any] = yaml.safe_load(path.read_text(encoding="utf-8"))
    if True in loaded:
        loaded["on"] = loaded.pop(True)
    return loaded


def steps(workflow: dict[str, Any]) -> list[dict[str, Any]]:
    """Every step of every job, in order."""
    return [step for job in workflow["jobs"].values() for step in job.get("steps", ())]


def shell_lines(script: str) -> list[str]:
    """The command lines of a ``run:`` script: continuations joined, comments dropped."""
    joined = re.sub(r"\\\n\s*", " ", script)
    return [
        line.strip()
        for line in joined.splitlines()
        if line.strip() and not line.strip().startswith("#")
    ]


def commands(script: str) -> list[list[str]]:
    """Each simple command of a script as words, variable assignments in front removed."""
    found = []
    for line in shell_lines(script):
        for part in re.split(r"\s*(?:&&|\|\||;|\|)\s*", line):
            words = shlex.split(part, comments=True)
            while words and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*=.*", words[0]):
                words.pop(0)
            if words:
                found.append(words)
    return found


def pytest_arguments(words: list[str]) -> list[str] | None:
    """The arguments of a ``pytest`` or ``python -m pytest`` command, else None."""
    if words[0] == "pytest":
        return words[1:]
    if words[0].startswith("python") and words[1:3] == ["-m", "pytest"]:
        return words[3:]
    return None


def flags(arguments: list[str]) -> list[str]:
    """The long options among ``arguments``, without their ``=value``."""
    return [word.split("=", 1)[0] for word in arguments if word.startswith("--")]


def spelling(option: str) -> str:
    """An option without its inner hyphens: pytest's help shows ``--junit-xml`` and hides its
    other spelling ``--junitxml``, which differs only by them."""
    return "--" + option[2:].replace("-", "")


def help_text(*command: str) -> str:
    """What ``COMMAND --help`` prints."""
    done = subprocess.run(
        [*command, "--help"], capture_output=True, text=True, timeout=120, check=True
    )
    return done.stdout


def help_options(*command: str) -> set[str]:
    """Every long option a command's ``--help`` names."""
    return set(re.findall(r"(?<![\w-])(--[a-z][a-z0-9-]*)", help_text(*command)))


def subcommands(*command: str) -> tuple[str, ...]:
    """The commands ``pytest-citations --help`` lists, or the actions of ``command`` (none
    for a command without actions)."""
    text = help_text(*COMMAND, *command)
    title = "\nactions:\n" if command else "\ncommands:\n"
    if title not in text:
        return ()
    listing = text.split(title, 1)[1]
    return tuple(re.findall(r"^    ([a-z][a-z-]*) ", listing, re.MULTILINE))


@pytest.fixture(scope="module")
def pytest_options(tmp_path_factory: pytest.TempPathFactory) -> set[str]:
    """The options of ``pytest --help`` with this environment's plugins (junitxml, ours)."""
    folder = tmp_path_factory.mktemp("help")
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "--help"],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return set(re.findall(r"(?<![\w-])(--[a-z][a-z0-9-]*)", done.stdout))


@pytest.fixture(scope="module")
def cli_options() -> dict[str, set[str]]:
    """The options of ``pytest-citations`` and of each of its commands."""
    known = {"": help_options(*COMMAND)}
    for name in subcommands():
        known[name] = known[""] | help_options(*COMMAND, name)
    return known


ALL = (GATE, REUSABLE, RECORDINGS, RERECORD, DRIFT)


def test_the_five_workflows_exist() -> None:
    assert sorted(path.name for path in WORKFLOWS.iterdir()) == sorted(p.name for p in ALL)


def test_the_plugin_options_from_help_are_the_option_table(pytest_options: set[str]) -> None:
    """The check below reads ``pytest --help``: it must list the plugin's whole table."""
    expected = {"--citations", *(option.flag_name for option in OPTIONS if option.flag)}
    assert expected <= pytest_options


@pytest.mark.parametrize("path", ALL[1:], ids=lambda path: path.name)
def test_every_command_uses_only_options_that_exist(
    path: Path, pytest_options: set[str], cli_options: dict[str, set[str]]
) -> None:
    checked = 0
    for step in steps(load(path)):
        for words in commands(step.get("run", "")):
            arguments = pytest_arguments(words)
            if arguments is not None:
                known = {spelling(option) for option in pytest_options}
                unknown = {flag for flag in flags(arguments) if spelling(flag) not in known}
                assert not unknown, f"{path.name}: pytest has no option {sorted(unknown)}"
                checked += 1
            elif words[0] == "pytest-citations":
                command = next((word for word in words[1:] if word in cli_options), "")
                unknown = set(flags(words[1:])) - cli_options[command]
                assert not unknown, f"{path.name}: pytest-citations has no {sorted(unknown)}"
                checked += 1
    assert checked or path == RECORDINGS, f"{path.name} runs no pytest command"


#: A secret in a step's ``env:``: its value, or only whether it is set.
SECRET_VALUE = re.compile(r"\$\{\{ secrets\.[A-Z_]+ \}\}")
SECRET_IS_SET = re.compile(r"\$\{\{ secrets\.[A-Z_]+ != '' (\|\| secrets\.[A-Z_]+ != '' )*\}\}")


@pytest.mark.parametrize("path", ALL, ids=lambda path: path.name)
def test_no_secret_is_echoed(path: Path) -> None:
    """Secrets go into a step's ``env:`` and nowhere else; no script names them or prints
    its environment (GitHub masks what it knows, but not a value that was transformed)."""
    workflow = load(path)
    for step in steps(workflow):
        script = step.get("run", "")
        assert "secrets." not in script, f"{path.name}: a secret is written into a script"
        assert "secrets." not in yaml.safe_dump(step.get("with", {}))
        for name, value in (step.get("env") or {}).items():
            if "secrets." in str(value) and not SECRET_IS_SET.fullmatch(str(value)):
                assert SECRET_VALUE.fullmatch(str(value)), value
                assert name not in script, f"{path.name}: the script names ${name}"
        for line in shell_lines(script):
            assert not PRINTS_ENVIRONMENT.search(line), f"{path.name}: {line!r} prints it"
    for variable in TOKEN_VARIABLES:
        for step in steps(workflow):
            assert variable not in step.get("run", ""), f"{path.name}: a script names {variable}"


def job_steps(workflow: dict[str, Any], job: str) -> list[dict[str, Any]]:
    """The steps of one job."""
    return list(workflow["jobs"][job]["steps"])


def scripts_of(found: list[dict[str, Any]]) -> list[list[str]]:
    """Every simple command the ``run:`` scripts of ``found`` run."""
    return [words for step in found for words in commands(step.get("run", ""))]


def pytest_commands(found: list[dict[str, Any]]) -> list[list[str]]:
    """The arguments of every pytest command among the steps ``found``."""
    return [args for words in scripts_of(found) if (args := pytest_arguments(words)) is not None]


def action(step: dict[str, Any]) -> str:
    """The action a step uses, without its version (empty for a script)."""
    return str(step.get("uses", "")).split("@", 1)[0]


@pytest.mark.parametrize("path", ALL, ids=lambda path: path.name)
def test_every_action_is_pinned_to_a_commit_and_named_by_its_version(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    used = re.findall(r"uses: (\S+)(.*)", text)
    assert used
    for name, rest in used:
        if name.startswith("./"):
            continue  # this repository's own reusable workflow
        assert re.fullmatch(r"[\w.-]+/[\w.-]+@[0-9a-f]{40}", name), f"{path.name}: {name}"
        assert re.fullmatch(r"\s+# v\d+(\.\d+)*", rest), f"{path.name}: {name} names no version"


@pytest.mark.parametrize("path", ALL, ids=lambda path: path.name)
def test_every_workflow_reads_only_unless_a_job_must_write(path: Path) -> None:
    workflow = load(path)
    assert workflow["permissions"] == {"contents": "read"}
    writers = {
        name: job["permissions"]
        for name, job in workflow["jobs"].items()
        if "write" in (job.get("permissions") or {}).values()
    }
    expected = {
        RECORDINGS: {"commit": {"contents": "write", "actions": "read"}},
        RERECORD: {"rerecord": {"contents": "write", "pull-requests": "write"}},
    }
    assert writers == expected.get(path, {})


def test_the_pull_request_gate_calls_the_reusable_gate_with_its_inputs() -> None:
    workflow = load(GATE)
    assert set(workflow["on"]) == {"pull_request"}  # never pull_request_target
    inputs = load(REUSABLE)["on"]["workflow_call"]["inputs"]
    assert workflow["jobs"]
    for name, job in workflow["jobs"].items():
        assert job["uses"] == "./.github/workflows/citations-gate.yml", name
        assert job["secrets"] == "inherit"  # a fork's pull request gets none
        assert set(job["with"]) <= set(inputs), name
        # The core install replays; the record extra only when there are tokens. Both pinned.
        assert job["with"]["install"] == "-c .github/replay-requirements.txt ."
        assert job["with"]["record-install"] == "-c .github/replay-requirements.txt .[record]"
    assistant = workflow["jobs"]["assistant"]["with"]
    assert assistant["working-directory"] == "examples/assistant"
    assert assistant["export"] == "python -m assistant.export answers.jsonl"
    assert assistant["shards"] == 2
    pins = [
        line
        for line in (ROOT / ".github/replay-requirements.txt").read_text("utf-8").splitlines()
        if line and not line.startswith("#")
    ]
    assert pins
    assert all(re.fullmatch(r"[A-Za-z0-9_.-]+==[^=\s]+", line) for line in pins)


def test_the_base_job_replays_the_base_branch_without_any_secret() -> None:
    workflow = load(REUSABLE)
    base = job_steps(workflow, "base")
    checkout = next(step for step in base if action(step) == "actions/checkout")
    assert checkout["with"]["ref"] == "${{ github.event.pull_request.base.sha }}"
    assert "secrets." not in yaml.safe_dump(workflow["jobs"]["base"])
    [replay] = pytest_commands(base)
    assert replay[:2] == ["--citations", "$PATHS"]
    assert not any(word.startswith("--citations-record") for word in replay)  # replay only
    assert "--citations-report=$RUNNER_TEMP/base.json" in replay


def test_the_gate_records_only_what_is_new_and_only_with_the_tokens() -> None:
    workflow = load(REUSABLE)
    plan = job_steps(workflow, "plan")
    [tokens] = [step for step in plan if step.get("id") == "tokens"]
    assert all(SECRET_IS_SET.fullmatch(value) for value in tokens["env"].values())
    assert "record=new_episodes" in tokens["run"]
    assert "record=none" in tokens["run"]
    gate = job_steps(workflow, "gate")
    installs = {
        step.get("if"): step["run"] for step in gate if "pip install" in step.get("run", "")
    }
    assert "torch" not in installs["needs.plan.outputs.record == 'none'"]  # a replay: core
    recording = installs["needs.plan.outputs.record != 'none'"]
    assert recording.index("torch==") < recording.index("$RECORD_INSTALL")  # CPU build first
    [run] = pytest_commands(gate)
    values = dict(word.split("=", 1) for word in run if word.startswith("--") and "=" in word)
    assert values["--citations-record"] == "$RECORD"
    assert values["--citations-shard"] == "$SHARD"
    assert values["--citations-max-judge-calls"] == "$MAX_JUDGE_CALLS"
    assert values["--citations-max-credits"] == "$MAX_CREDITS"
    assert values["--citations-compare"] == ".citations-base/base.json"  # one path per run
    assert values["--citations-max-precision-drop"] == "$MAX_PRECISION_DROP"
    assert "citations_fail_on_regression=$FAIL_ON_REGRESSION" in run
    [step] = [step for step in gate if step.get("id") == "gate"]
    assert step["env"]["SHARD"] == "${{ matrix.shard }}/${{ inputs.shards }}"
    assert workflow["jobs"]["gate"]["strategy"]["fail-fast"] is False


def test_the_merge_decides_once_from_every_shard_and_writes_the_job_summary() -> None:
    workflow = load(REUSABLE)
    merge = workflow["jobs"]["merge"]
    assert merge["needs"] == ["plan", "gate"]  # the plan says what to install
    assert merge["if"].startswith("always()")  # a failed shard is still merged and shown
    [words] = [
        words for words in scripts_of(merge["steps"]) if words[:2] == ["pytest-citations", "merge"]
    ]
    assert "shards/shard-*.json" in words
    assert words[words.index("--compare") + 1] == "base/base.json"
    written = {
        words[words.index(flag) + 1] for flag in ("--report", "--html", "--junitxml", "--markdown")
    }
    summary = next(step for step in merge["steps"] if "GITHUB_STEP_SUMMARY" in step.get("run", ""))
    assert summary["if"] == "always()"
    assert words[words.index("--markdown") + 1] in summary["run"]
    upload = next(step for step in merge["steps"] if action(step) == "actions/upload-artifact")
    assert upload["if"] == "always()"
    assert set(upload["with"]["path"].split()) == written


def test_the_recordings_are_committed_only_from_this_repository_without_its_code() -> None:
    workflow = load(RECORDINGS)
    assert workflow["on"]["workflow_run"]["workflows"] == [load(GATE)["name"]]
    job = workflow["jobs"]["commit"]
    assert "head_repository.full_name == github.repository" in job["if"]
    checkouts = [step for step in job["steps"] if action(step) == "actions/checkout"]
    trusted = next(step for step in checkouts if step["with"]["path"] == "trusted")
    assert trusted["with"]["ref"] == "${{ github.event.repository.default_branch }}"
    signing = [step for step in job["steps"] if "env.SIGNS == 'true'" in step.get("if", "")]
    ran = scripts_of([step for step in job["steps"] if step not in signing])
    programs = {words[0] for words in ran}
    assert not programs & {"pip", "pytest", "pytest-citations", "bash", "sh", "make", "npm"}
    [take] = [words for words in ran if words[0] == "python3"]
    assert take[1] == "../trusted/.github/scripts/take_recordings.py"


def test_the_recordings_are_signed_before_they_are_committed_when_the_key_exists() -> None:
    """With the CITATIONS_SIGNING_KEY secret, the default branch's pytest-citations (never
    the pull request's code) signs what the job commits, before the commit; the key reaches
    that one step, and the install before it runs without any secret (issue 24)."""
    job = load(RECORDINGS)["jobs"]["commit"]
    assert job["env"]["SIGNS"] == "${{ secrets.CITATIONS_SIGNING_KEY != '' }}"
    found = job["steps"]
    ids = [step.get("id") for step in found]
    take, sign = ids.index("take"), ids.index("sign")
    commit = next(at for at, step in enumerate(found) if "git commit" in step.get("run", ""))
    assert take < sign < commit
    signing = found[take + 1 : sign + 1]
    assert all(step["if"] == "steps.take.outputs.taken == 'true' && env.SIGNS == 'true'"
               for step in signing)  # fmt: skip
    assert found[commit]["if"] == "steps.take.outputs.taken == 'true'"
    [install] = [words for words in scripts_of(signing) if "pip" in words]
    assert install[-1] == "./trusted"
    assert "trusted/.github/replay-requirements.txt" in install
    [signs] = [words for words in scripts_of(signing) if "pytest-citations" in words]
    assert signs[signs.index("pytest-citations") :][:3] == ["pytest-citations", "cassettes", "sign"]
    assert found[sign]["working-directory"] == "branch"
    holders = [step for step in found if "CITATIONS_SIGNING_KEY" in str(step.get("env", {}))]
    assert holders == [found[sign]]
    assert found[sign]["env"] == {"CITATIONS_SIGNING_KEY": "${{ secrets.CITATIONS_SIGNING_KEY }}"}
    # It signs the cassettes this run adds or changes, and only those.
    assert "--diff-filter=AM" in found[sign]["run"]
    assert "'*cassettes/*.yaml'" in found[sign]["run"]


def test_the_weekly_update_records_only_what_drift_found_changed() -> None:
    workflow = load(RERECORD)
    assert "workflow_dispatch" in workflow["on"]
    [schedule] = workflow["on"]["schedule"]
    *_, day, month, weekday = schedule["cron"].split()
    assert (day, month) == ("*", "*")
    assert weekday.isdigit()  # once a week

    all_steps = steps(workflow)
    [update] = [step for step in all_steps if step.get("id") == "update"]
    [words] = [words for words in commands(update["run"]) if words[0] == "pytest-citations"]
    assert words[1:3] == ["drift", "cases/"]
    assert "--update" in words
    assert not any(
        "--citations-record" in word for args in pytest_commands(all_steps) for word in args
    )
    # The tokens, and the key that signs what drift rewrites (issue 24).
    assert update["env"] == {
        name: f"${{{{ secrets.{name} }}}}"
        for name in (
            "CRAWLBASE_TOKEN", "CRAWLBASE_JS_TOKEN", "OPENAI_API_KEY", "CITATIONS_SIGNING_KEY"
        )
    }  # fmt: skip
    later = all_steps[all_steps.index(update) + 1 :]
    assert any(action(step) == "peter-evans/create-pull-request" for step in later)
    upload = next(step for step in later if action(step) == "actions/upload-artifact")
    assert upload["if"] == "always()"
    assert "cassettes/" in upload["with"]["path"].split()


def test_the_ci_gate_page_shows_the_gate_workflow_as_it_is() -> None:
    page = (ROOT / "docs" / "ci-gate.md").read_text(encoding="utf-8")
    assert "```yaml\n" + GATE.read_text(encoding="utf-8") + "```" in page
    for path in (REUSABLE, RECORDINGS, RERECORD):
        assert f"`.github/workflows/{path.name}`" in page


def test_drift_runs_nightly_fails_on_changed_evidence_and_keeps_its_vectors() -> None:
    workflow = load(DRIFT)
    assert "workflow_dispatch" in workflow["on"]
    [schedule] = workflow["on"]["schedule"]
    assert schedule["cron"].split()[2:] == ["*", "*", "*"]  # every day

    all_steps = steps(workflow)
    [check] = [step for step in all_steps if "pytest-citations drift" in step.get("run", "")]
    [words] = commands(check["run"])
    statuses = words[words.index("--fail-on") + 1].split(",")
    assert {"gone", "evidence_changed", "flipped"} <= set(statuses)
    assert set(check["env"]) == {"CRAWLBASE_TOKEN", "CRAWLBASE_JS_TOKEN", "OPENAI_API_KEY"}
    cache = next(step for step in all_steps if step.get("uses", "").startswith("actions/cache"))
    assert cache["with"]["path"] == ".pytest_cache/d/citations-embeddings"
    assert all_steps.index(cache) < all_steps.index(check)
    upload = next(
        step for step in all_steps if step.get("uses", "").startswith("actions/upload-artifact")
    )
    assert upload["if"] == "always()"
    assert upload["with"]["path"] == words[words.index("--json") + 1]


def pip_installs(workflow: dict[str, Any]) -> list[list[str]]:
    """The arguments of every ``pip install`` the workflow runs, and what its inputs and its
    calls of the reusable gate give to install (``install:``, ``record-install:``)."""
    found = [
        words[2:]
        for words in scripts_of(steps(workflow))
        if words[:2] == ["pip", "install"] or words[1:4] == ["-m", "pip", "install"]
    ]
    inputs = (workflow["on"].get("workflow_call") or {}).get("inputs") or {}
    given = [job.get("with") or {} for job in workflow["jobs"].values()]
    for values in [{name: spec.get("default") for name, spec in inputs.items()}, *given]:
        found += [str(values[name]).split() for name in ("install", "record-install")
                  if values.get(name)]  # fmt: skip
    return found


def from_an_index(word: str) -> bool:
    """Whether a word of ``pip install`` names pytest-citations as a package of an index
    (it is not on PyPI yet: that install fails), not by a URL, a folder or a wheel."""
    try:
        found = Requirement(word)
    except InvalidRequirement:
        return False  # a folder (``.``, ``.[record]``), a variable, an option's value
    return canonicalize_name(found.name) == "pytest-citations" and found.url is None


@pytest.mark.parametrize("path", ALL, ids=lambda path: path.name)
def test_no_workflow_installs_pytest_citations_from_an_index(path: Path) -> None:
    """Issue 28: ``pip install pytest-citations`` fails until the package is published."""
    installs = pip_installs(load(path))
    named = [words for words in installs if any(from_an_index(word) for word in words)]
    assert named == [], f"{path.name} installs pytest-citations by name: {named}"


def test_an_install_by_name_is_told_from_one_by_url_or_folder() -> None:
    assert from_an_index("pytest-citations")
    assert from_an_index("Pytest_Citations[record]>=0.1")
    for word in ("pytest-citations[record]@git+https://github.com/o/r@abc", ".", ".[record]",
                 "-c", "$INSTALL", "dist/pytest_citations-0.1.0-py3-none-any.whl"):  # fmt: skip
        assert not from_an_index(word), word


def test_the_gate_installs_from_its_own_commit_unless_told_otherwise(tmp_path: Path) -> None:
    """Left empty, ``install`` and ``record-install`` are pytest-citations from the gate
    workflow's own repository at the commit it was called at: one word each, as
    ``pip install $INSTALL`` splits them, naming that commit; given, they pass unchanged; a
    runner that does not say where the workflow came from stops with an error."""
    commit = "0123abcd" * 5
    where = {"REPOSITORY": "acme/pytest-citations", "COMMIT": commit}

    def outputs(**env: str) -> dict[str, str]:
        runner = tmp_path / "runner"
        done = run_step("plan", "install", tmp_path, runner, env)
        assert done.returncode == 0, done.stdout + done.stderr
        lines = (runner / "output").read_text(encoding="utf-8").splitlines()
        (runner / "output").unlink()
        return dict(line.split("=", 1) for line in lines)

    default = outputs(INSTALL="", RECORD_INSTALL="", **where)
    for name, extras in (("install", set()), ("record-install", {"record"})):
        [word] = default[name].split()
        found = Requirement(word)
        assert (found.name, found.extras) == ("pytest-citations", extras)
        assert found.url == f"git+https://github.com/acme/pytest-citations@{commit}"
    given = {"INSTALL": "-c pins.txt .", "RECORD_INSTALL": "-c pins.txt .[record]"}
    assert outputs(**given, REPOSITORY="", COMMIT="") == {
        "install": "-c pins.txt .", "record-install": "-c pins.txt .[record]"
    }  # fmt: skip

    refused = run_step(
        "plan", "install", tmp_path, tmp_path / "runner",
        {"INSTALL": "", "RECORD_INSTALL": "", "REPOSITORY": "", "COMMIT": ""},
    )  # fmt: skip
    assert refused.returncode == 1
    assert refused.stdout.startswith("::error::")
    assert "install and record-install inputs" in refused.stdout
def test_the_merge_jobs_summary_is_written_whole_or_not_at_all(tmp_path: Path) -> None:
    """A full disk (``ulimit -f 8``) while the summary step copies a 20 KiB summary leaves
    the step's summary empty, never a part of it, and says so (issue 24)."""
    (tmp_path / "citations.md").write_text("## Citations: fail\n" + "| row |\n" * 2600, "utf-8")

    done = run_step("merge", "summary", tmp_path, tmp_path, {}, file_size_kib=8)

    assert (tmp_path / "summary.md").read_text(encoding="utf-8") == ""
    assert "::warning::the job summary could not be written" in done.stdout
