"""Without ``--citations``: the case files a run walked past, said once in the terminal
summary with the flag and the ``addopts`` line that runs them, so that ``pytest`` over a
folder of case files never reads as a pass of its checks. A note, never a change of the
exit status. Each file is told by a scan of its first lines only; on an xdist worker the
files found go to the controller, which alone prints."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ..cases.spelling import SCAN_CHARS
from ..paths import shown
from .options import Options
from .scheduling import holds_cases

#: The key of the files found in an xdist worker's ``workeroutput``.
NOT_RUN_OUTPUT = "citations_not_run"
#: How many folders the note names before it counts the rest.
_FOLDERS_SHOWN = 3


def _head(path: Path) -> str | None:
    """The file's first :data:`SCAN_CHARS` bytes as text (None when it cannot be read)."""
    try:
        with path.open("rb") as file:
            return file.read(SCAN_CHARS).decode("utf-8", errors="replace")
    except OSError:
        return None


def default_line(inipath: Path | None) -> str:
    """Where and how ``--citations`` becomes the default, for the ini file the run read."""
    name = inipath.name if inipath is not None else ""
    if name == "pyproject.toml":
        native = "[tool.pytest]" in _ini_text(inipath)
        if native:
            return 'in pyproject.toml: addopts = ["--citations"] (under [tool.pytest])'
        return 'in pyproject.toml: addopts = "--citations" (under [tool.pytest.ini_options])'
    if name in ("pytest.toml", ".pytest.toml"):
        return f'in {name}: addopts = ["--citations"] (under [pytest])'
    if name == "setup.cfg":
        return "in setup.cfg: addopts = --citations (under [tool:pytest])"
    if name:
        return f"in {name}: addopts = --citations (under [pytest])"
    return "in a pytest.ini: addopts = --citations (under [pytest])"


def _ini_text(path: Path | None) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace") if path else ""
    except OSError:
        return ""


def note_lines(found: set[str], options: Options, inipath: Path | None) -> list[str]:
    """The note: how many case files were not run and where (or that ``citations_files``
    is set), the flag, and the line that makes it the default. Empty when there is nothing
    to say."""
    if found:
        folders = sorted({f"{Path(path).parent.as_posix()}/" for path in found})
        where = ", ".join(folders[:_FOLDERS_SHOWN])
        if len(folders) > _FOLDERS_SHOWN:
            where += f" and {len(folders) - _FOLDERS_SHOWN} more folders"
        if len(found) == 1:
            first = f"citations: 1 case file in {where} was not run: pass --citations to check it"
        else:
            first = (
                f"citations: {len(found)} case files in {where} were not run: pass --citations "
                "to check them"
            )
    elif options.case_globs_given:
        ini = inipath.name if inipath is not None else "the ini file"
        first = (
            f"citations: citations_files is set in {ini}, but no case file was run: pass "
            "--citations to run them"
        )
    else:
        return []
    return [first, f"  or make it the default {default_line(inipath)}"]


class CaseFilesNotRun:
    """Registered when ``--citations`` is not given: collects the case files the run walked
    past and, where the summary is printed, says so once."""

    def __init__(self, config: pytest.Config, options: Options) -> None:
        self.config = config
        self.options = options
        self.found: set[str] = set()

    def look_at(self, path: Path) -> None:
        """Note ``path`` when its first lines make it a case file (never a cassette)."""
        head = _head(path)
        if head is None or not holds_cases(head):
            return
        if self.options.cassette_dir.resolve() not in path.resolve().parents:
            self.found.add(shown(path, self.config.rootpath))

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        """On an xdist worker: hand the files found to the controller."""
        output = getattr(self.config, "workeroutput", None)
        if output is not None:
            output[NOT_RUN_OUTPUT] = sorted(self.found)

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: Any, error: Any) -> None:
        """On the xdist controller: the files a worker found."""
        self.found.update(getattr(node, "workeroutput", {}).get(NOT_RUN_OUTPUT, ()))

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        """The note, once, where the summary is printed (never on an xdist worker)."""
        if hasattr(self.config, "workerinput"):
            return
        for line in note_lines(self.found, self.options, self.config.inipath):
            terminalreporter.write_line(line, yellow=True)
