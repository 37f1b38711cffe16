"""The tour of the documentation site (``docs/tour.md``, issue 28) works word for word, for a
newcomer with no account and the core install alone.

The page is followed from its first block to its last, in a fresh copy of what a clone holds
(the examples, their cassettes, the ini file): each ``bash`` block runs in a shell that keeps
what the blocks before it exported, ``pytest-citations sandbox`` starts in the background
(the second terminal), an output block holding ``^C`` stops it there, and every output block
must be what the command before it printed (``…`` stands for lines left out, a run's
duration may differ). The commands run on a Python without the model packages, as after
``pip install -e .``; the sandbox's stand-ins are the only peers any command may reach.
"""

from __future__ import annotations

import os
import queue
import shutil
import signal
import subprocess
import threading
from dataclasses import dataclass
from pathlib import Path

from light_env import light_python
from ops_support import base_env
from test_readme import ROOT, assert_printed, code_blocks

TOUR = ROOT / "docs" / "tour.md"
#: The command the tour runs in its second terminal, in the background.
SANDBOX = "pytest-citations sandbox"
#: The line of an output block that stands for Ctrl-C pressed in the second terminal.
INTERRUPT = "^C"
#: How the sandbox's last line before it serves starts.
SERVING = "Serving until Ctrl-C"
#: What a clone holds that the tour reads: the examples, their cassettes, the ini file.
CLONE = ("cases", "cassettes", "pyproject.toml")
#: Variables bash sets for itself, not the tour's.
SHELL_OWN = frozenset({"_", "SHLVL", "PWD", "OLDPWD"})


@dataclass(frozen=True)
class Step:
    """One thing the tour asks for: ``run`` a block in the first terminal, ``start`` the
    sandbox in the second, or ``stop`` it; with the output the page shows for it."""

    kind: str
    script: str
    shown: list[str] | None


def tour_steps(text: str) -> list[Step]:
    """The page's steps in order."""
    blocks = code_blocks(text)
    steps = []
    for number, block in enumerate(blocks):
        after = blocks[number + 1] if number + 1 < len(blocks) else None
        output = after is not None and after.language == "" and INTERRUPT not in after.lines
        shown = after.lines if output and after is not None else None
        if block.language == "bash":
            kind = "start" if block.text.strip() == SANDBOX else "run"
            steps.append(Step(kind, block.text, shown))
        elif block.language == "" and INTERRUPT in block.lines:
            steps.append(Step("stop", "", [line for line in block.lines if line != INTERRUPT]))
    return steps


class SecondTerminal:
    """``pytest-citations sandbox`` in the background, its output read line by line."""

    def __init__(self, env: dict[str, str], cwd: Path) -> None:
        self.process = subprocess.Popen(
            ["bash", "-c", f"exec {SANDBOX}"],
            env=env,
            cwd=cwd,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            encoding="utf-8",
        )
        self.lines: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.put(line.rstrip("\n"))
        self.lines.put(None)

    def until(self, start: str, timeout: float = 60) -> list[str]:
        """Its lines up to the first that starts with ``start`` (included)."""
        read: list[str] = []
        while not read or not read[-1].startswith(start):
            line = self.lines.get(timeout=timeout)
            assert line is not None, "the sandbox stopped:\n" + "\n".join(read)
            read.append(line)
        return read

    def interrupt(self, timeout: float = 30) -> tuple[int, list[str]]:
        """Ctrl-C: its exit status and the lines it printed since the last read."""
        self.process.send_signal(signal.SIGINT)
        status = self.process.wait(timeout=timeout)
        read: list[str] = []
        while (line := self.lines.get(timeout=timeout)) is not None:
            read.append(line)
        return status, read

    def kill(self) -> None:
        """Stop it whatever state it is in (a failed test's clean-up)."""
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=30)


def first_terminal(script: str, env: dict[str, str], cwd: Path) -> tuple[str, dict[str, str]]:
    """Run one block in bash as the first terminal would: what it printed (standard output
    and error, as a terminal shows them), and the environment it leaves."""
    state = cwd.parent / "exported"
    kept = f'{script}\n__status=$?\nenv -0 > "{state}"\nexit $__status\n'
    done = subprocess.run(
        ["bash", "-c", kept],
        env=env,
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        timeout=600,
        check=False,
    )
    pairs = [item.split("=", 1) for item in state.read_text("utf-8").split("\0") if "=" in item]
    left = {name: value for name, value in pairs if name not in SHELL_OWN}
    return done.stdout.decode("utf-8"), left


def commands_on(python: Path, folder: Path) -> Path:
    """A folder of ``pytest`` and ``pytest-citations`` that run on ``python``, as the
    console scripts of an install do."""
    folder.mkdir()
    for name, module in (("pytest", "pytest"), ("pytest-citations", "pytest_citations.cli")):
        script = folder / name
        script.write_text(f'#!/bin/sh\nexec "{python}" -m {module} "$@"\n', encoding="utf-8")
        script.chmod(0o755)
    return folder


def test_the_tour_covers_what_a_newcomer_tries() -> None:
    """Replay the examples, start the sandbox, write a case file, record it, replay it with
    the sandbox stopped, reword it, and run the pull request's gate against the base."""
    steps = tour_steps(TOUR.read_text(encoding="utf-8"))
    runs = [step.script for step in steps if step.kind == "run"]

    assert [step.kind for step in steps if step.kind != "run"] == ["start", "stop"] * 2
    assert runs[0].strip() == "pytest --citations cases/"
    assert any("cat > my-cases/" in script for script in runs)
    assert any("--citations-record=new_episodes" in script for script in runs)
    assert any("--citations-report base.json" in script for script in runs)
    gate = next(script for script in runs if "--citations-compare base.json" in script)
    for option in ("--citations-max-judge-calls", "--citations-fail-on-regression",
                   "--citations-markdown"):  # fmt: skip
        assert option in gate
    assert all(step.shown for step in steps if step.kind != "run")


def test_the_tour_runs_word_for_word(tmp_path: Path) -> None:
    work = tmp_path / "pytest-citations"
    work.mkdir()
    for name in CLONE:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, work / name)
        else:
            shutil.copyfile(source, work / name)
    commands = commands_on(light_python(tmp_path), tmp_path / "bin")
    env = base_env(tmp_path, lexical=False)
    env.update(PATH=f"{commands}{os.pathsep}{env['PATH']}", COLUMNS="80")
    sandbox: SecondTerminal | None = None
    try:
        for step in tour_steps(TOUR.read_text(encoding="utf-8")):
            if step.kind == "run":
                printed, env = first_terminal(step.script, env, work)
                lines = printed.splitlines()
            elif step.kind == "start":
                assert sandbox is None, "the tour starts a second sandbox beside the first"
                sandbox = SecondTerminal(env, work)
                lines = sandbox.until(SERVING)
            else:
                assert sandbox is not None, "the tour stops a sandbox it did not start"
                status, lines = sandbox.interrupt()
                sandbox = None
                assert status == 0, "\n".join(lines)

            assert "Traceback" not in "\n".join(lines), "\n".join(lines)
            if step.shown is not None:
                assert_printed(step.shown, lines)
    finally:
        if sandbox is not None:
            sandbox.kill()
    cassette = (work / "cassettes" / "my-cases" / "water.yaml").read_text(encoding="utf-8")
    assert "<CRAWLBASE_TOKEN>" in cassette
    assert "sandbox-" not in cassette  # the sandbox's tokens are scrubbed like real ones
