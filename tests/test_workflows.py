"""The GitHub Actions workflows (issue 11): ``citations.yml`` gates pull requests on an offline
replay and uploads its reports even when the gate fails; ``rerecord.yml`` re-records weekly and
by hand with the repository's secrets, which reach pytest as environment variables and are
never printed. Every ``pytest`` and ``pytest-citations`` command they run uses only options that
exist: the options are read from the real ``--help`` of both commands.
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

from pytest_citations.plugin.options import OPTIONS

ROOT = Path(__file__).resolve().parents[1]
WORKFLOWS = ROOT / ".github" / "workflows"
GATE = WORKFLOWS / "citations.yml"
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
    return [step for job in workflow["jobs"].values() for step in job["steps"]]


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


def test_the_three_workflows_exist() -> None:
    assert sorted(path.name for path in WORKFLOWS.iterdir()) == [
        "citations.yml",
        "drift.yml",
        "rerecord.yml",
    ]


def test_the_plugin_options_from_help_are_the_option_table(pytest_options: set[str]) -> None:
    """The check below reads ``pytest --help``: it must list the plugin's whole table."""
    expected = {"--citations", *(option.flag_name for option in OPTIONS if option.flag)}
    assert expected <= pytest_options


@pytest.mark.parametrize("path", [GATE, RERECORD, DRIFT], ids=lambda path: path.name)
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
    assert checked, f"{path.name} runs no pytest command"


@pytest.mark.parametrize("path", [GATE, RERECORD, DRIFT], ids=lambda path: path.name)
def test_no_secret_is_echoed(path: Path) -> None:
    """Secrets go into a step's ``env:`` and nowhere else; no script names them or prints
    its environment (GitHub masks what it knows, but not a value that was transformed)."""
    workflow = load(path)
    for step in steps(workflow):
        script = step.get("run", "")
        assert "secrets." not in script, f"{path.name}: a secret is written into a script"
        assert "secrets." not in yaml.safe_dump(step.get("with", {}))
        for name, value in (step.get("env") or {}).items():
            if "secrets." in str(value):
                assert re.fullmatch(r"\$\{\{ secrets\.[A-Z_]+ \}\}", str(value)), value
                assert name not in script, f"{path.name}: the script names ${name}"
        for line in shell_lines(script):
            assert not PRINTS_ENVIRONMENT.search(line), f"{path.name}: {line!r} prints it"
    for variable in TOKEN_VARIABLES:
        for step in steps(workflow):
            assert variable not in step.get("run", ""), f"{path.name}: a script names {variable}"


def test_the_gate_replays_offline_and_uploads_every_report_even_when_it_fails() -> None:
    workflow = load(GATE)
    assert "pull_request" in workflow["on"]
    all_steps = steps(workflow)
    assert "secrets." not in GATE.read_text(encoding="utf-8")  # a replay needs no token
    uses = [step.get("uses", "") for step in all_steps]
    assert any(name.startswith("actions/checkout@") for name in uses)
    setup = next(
        step for step in all_steps if step.get("uses", "").startswith("actions/setup-python")
    )
    assert str(setup["with"]["python-version"]) == "3.11"
    scripts = [step.get("run", "") for step in all_steps]
    # The core install alone, pinned: a replay needs no model (no torch, no extra).
    assert not any("torch" in script for script in scripts)
    [install] = [
        words for script in scripts for words in commands(script) if words[:2] == ["pip", "install"]
    ]
    assert install == ["pip", "install", "-c", ".github/replay-requirements.txt", "."]
    pins = [
        line
        for line in (ROOT / ".github/replay-requirements.txt").read_text("utf-8").splitlines()
        if line and not line.startswith("#")
    ]
    assert pins
    assert all(re.fullmatch(r"[A-Za-z0-9_.-]+==[^=\s]+", line) for line in pins)

    [gate] = [words for script in scripts for words in commands(script) if pytest_arguments(words)]
    arguments = pytest_arguments(gate) or []
    assert arguments[:2] == ["--citations", "cases/"]
    assert not any(word.startswith("--citations-record") for word in arguments)  # replay only
    reports = {word.split("=", 1)[0]: word.split("=", 1)[1] for word in arguments if "=" in word}
    written = {reports["--junitxml"], reports["--citations-report"], reports["--citations-html"]}

    upload = next(
        step for step in all_steps if step.get("uses", "").startswith("actions/upload-artifact")
    )
    assert upload["if"] == "always()"
    assert set(upload["with"]["path"].split()) == written


def test_rerecord_runs_weekly_and_by_hand_and_records_with_the_secrets() -> None:
    workflow = load(RERECORD)
    assert "workflow_dispatch" in workflow["on"]
    [schedule] = workflow["on"]["schedule"]
    *_, day, month, weekday = schedule["cron"].split()
    assert (day, month) == ("*", "*")
    assert weekday.isdigit()  # once a week

    all_steps = steps(workflow)
    [record] = [step for step in all_steps if "--citations-record=" in step.get("run", "")]
    mode = re.search(r"--citations-record=(\w+)", record["run"])
    assert mode is not None
    assert mode[1] in ("all", "rewrite")
    assert record["env"] == {
        name: f"${{{{ secrets.{name} }}}}"
        for name in ("CRAWLBASE_TOKEN", "CRAWLBASE_JS_TOKEN", "OPENAI_API_KEY")
    }
    later = all_steps[all_steps.index(record) + 1 :]
    assert any(
        step.get("uses", "").startswith("peter-evans/create-pull-request@") for step in later
    )
    upload = next(
        step for step in later if step.get("uses", "").startswith("actions/upload-artifact")
    )
    assert upload["if"] == "always()"
    assert "cassettes/" in upload["with"]["path"].split()


def test_the_readme_shows_the_gate_workflow_as_it_is() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "```yaml\n" + GATE.read_text(encoding="utf-8") + "```" in readme
    assert "(.github/workflows/rerecord.yml)" in readme


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
