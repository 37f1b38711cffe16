"""How much of the package one claim's replay runs: ``pytest --citations`` on one shipped
case file (``cases/prompt-injection.yaml``, one claim, by default) with every output on
(the JSON, HTML, CSV and Markdown reports, JUnit XML, and GitHub Actions' annotations and job
summary), in this process, under a ``sys.setprofile`` tracer (and ``threading.setprofile``
for the verifier's thread). It counts the distinct functions of ``pytest_citations`` that
ran and the modules they belong to, and prints the figures (see benchmarks/README.md).

A function is a code object of the package that ran, module bodies excepted: a ``def``, a
``lambda``, a comprehension or generator expression, and a class body (which runs once, at
import), as the issue counted them; a module is one whose functions ran. The figures of the
narrower count, code that has its own locals (class bodies left out too), are printed beside
them. Run it from the repository root::

    python -m benchmarks.trace_one_claim                       # the figures
    python -m benchmarks.trace_one_claim --list                # and every function, by module
    python -m benchmarks.trace_one_claim --case-file cases/boiling-point.yaml --json out.json
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import inspect
import io
import json
import os
import shutil
import sys
import tempfile
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from types import CodeType, FrameType
from typing import Any

REPO = Path(__file__).resolve().parent.parent
PACKAGE = REPO / "pytest_citations"
#: Variables that would point the run at a live service or change its settings.
_STEERING = ("CRAWLBASE", "OPENAI", "ANTHROPIC", "OLLAMA", "JUDGE", "CITATIONS", "GITHUB")


def parse_arguments(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.trace_one_claim",
        description="count the package's functions a replay of one claim runs, every output on",
    )
    parser.add_argument("--case-file", default="cases/prompt-injection.yaml",
                        help="a case file of the repository (default: %(default)s)")  # fmt: skip
    parser.add_argument("--list", action="store_true", help="print every function, by module")
    parser.add_argument("--json", type=Path, metavar="PATH", help="write the figures as JSON")
    return parser.parse_args(argv)


def _project(folder: Path, case_file: str) -> None:
    """The case file and its cassette, as the repository ships them."""
    for source in (REPO / case_file, REPO / "cassettes" / case_file):
        target = folder / source.relative_to(REPO)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, target)


@contextlib.contextmanager
def _environment(folder: Path) -> Iterator[None]:
    """No token, no live URL; GitHub Actions on, its job summary in ``folder``."""
    saved = dict(os.environ)
    for name in list(os.environ):
        if name.startswith(_STEERING):
            del os.environ[name]
    os.environ.update(
        GITHUB_ACTIONS="true",
        GITHUB_STEP_SUMMARY=str(folder / "summary.md"),
        GITHUB_WORKSPACE=str(folder),
        COLUMNS="120",
    )
    cwd = Path.cwd()
    os.chdir(folder)
    try:
        yield
    finally:
        os.chdir(cwd)
        os.environ.clear()
        os.environ.update(saved)


class Tracer:
    """The package's code objects that were called, from any thread."""

    def __init__(self) -> None:
        self.called: set[CodeType] = set()
        self._root = str(PACKAGE) + os.sep

    def __call__(self, frame: FrameType, event: str, arg: Any) -> None:
        if event == "call":
            code = frame.f_code
            if code.co_name != "<module>" and code.co_filename.startswith(self._root):
                self.called.add(code)

    @contextlib.contextmanager
    def on(self) -> Iterator[None]:
        threading.setprofile(self)
        sys.setprofile(self)
        try:
            yield
        finally:
            sys.setprofile(None)
            threading.setprofile(None)  # type: ignore[arg-type]

    def by_module(self, *, locals_only: bool = False) -> dict[str, list[str]]:
        """Each module (``pytest_citations/gating/result.py``) and its functions, sorted
        (``locals_only``: those with their own locals, no class body)."""
        found: dict[str, list[str]] = {}
        for code in self.called:
            if locals_only and not code.co_flags & inspect.CO_NEWLOCALS:
                continue
            module = Path(code.co_filename).relative_to(REPO).as_posix()
            found.setdefault(module, []).append(f"{code.co_qualname}:{code.co_firstlineno}")
        return {module: sorted(names) for module, names in sorted(found.items())}


def trace(case_file: str) -> tuple[Tracer, int, list[str]]:
    """Replay ``case_file`` with every output on, traced: the tracer, pytest's exit status,
    and the outputs written."""
    import pytest  # after the path is set: the plugin is this checkout's

    tracer = Tracer()
    with tempfile.TemporaryDirectory(prefix="trace-one-claim-") as name:
        folder = Path(name)
        _project(folder, case_file)
        args = [
            "--citations", case_file, "-q", "-p", "no:cacheprovider", "-p", "no:xdist",
            "-p", "no:randomly", "--citations-report", "out/report.json",
            "--citations-html", "out/report.html", "--citations-csv", "out/report.csv",
            "--citations-markdown", "out/report.md", "--junitxml", "out/junit.xml",
        ]  # fmt: skip
        with _environment(folder), contextlib.redirect_stdout(io.StringIO()), tracer.on():
            status = int(pytest.main(args))
        written = sorted(p.relative_to(folder).as_posix() for p in (folder / "out").iterdir())
        if (folder / "summary.md").is_file():
            written.append("summary.md")
    return tracer, status, written


def main(argv: Sequence[str] | None = None) -> int:
    arguments = parse_arguments(argv)
    sys.path.insert(0, str(REPO))
    # Found, not imported: the package's imports are part of the run that is traced.
    spec = importlib.util.find_spec("pytest_citations")
    origin = Path(spec.origin).resolve().parent if spec and spec.origin else None
    if origin != PACKAGE or "pytest_citations" in sys.modules:
        print(f"pytest_citations would be imported from {origin}, not {PACKAGE}, or is already")
        return 2
    tracer, status, written = trace(arguments.case_file)
    modules = tracer.by_module()
    functions = sum(len(names) for names in modules.values())
    narrow = tracer.by_module(locals_only=True)
    defs = sum(len(names) for names in narrow.values())
    print(f"replay of {arguments.case_file} (pytest exit status {status}), outputs: "
          + ", ".join(written))  # fmt: skip
    print(f"distinct package functions run: {functions} in {len(modules)} modules")
    print(f"  of which with their own locals (no class body): {defs} in {len(narrow)} modules")
    if arguments.list:
        for module, names in modules.items():
            print(f"{module} ({len(names)})")
            print("".join(f"  {name}\n" for name in names), end="")
    if arguments.json is not None:
        figures = {
            "case_file": arguments.case_file,
            "exit_status": status,
            "functions": functions,
            "modules": len(modules),
            "functions_with_locals": defs,
            "modules_with_locals": len(narrow),
            "by_module": modules,
        }
        arguments.json.write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
