"""Shared helpers of the command-line, service and report tests; this module holds no test.

- :func:`run_cli` runs the real ``pytest-citations`` console script in a subprocess with an
  explicit environment (nothing inherited but what :func:`base_env` gives);
- :func:`emulators` starts the Crawlbase and judge emulators of ``pytest_citations.sandbox``
  on 127.0.0.1, serving the example site, and gives the environment that points the code at
  them;
- every credential is a distinctive canary value (:data:`SECRETS`): a leak is easy to grep.

Test modules import what they use; the ``web`` fixture is in ``tests/conftest.py``.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

# Claims, pages and the nine-citation case of the example site, shared with the plugin
# tests and re-exported for the operations tests.
from plugin_helpers import (
    BOILING_URL,
    CONTRADICTED_CLAIM,
    GONE_URL,
    NINE_CASE,
    NOT_FOUND_CLAIM,
    OLD_REPORT_URL,
    PARTIAL_CLAIM,
    PDF_URL,
    REFUNDS_CLAIM,
    REFUNDS_URL,
    RETURNS_URL,
    SOFT_404_URL,
    STEERING_VARIABLES,
    SUPPORTED_CLAIM,
)

from pytest_citations.sandbox import CrawlbaseEmulator, JudgeEmulator
from pytest_citations.sandbox import site as example_site

__all__ = [
    "BOILING_URL",
    "CONTRADICTED_CLAIM",
    "GONE_URL",
    "NINE_CASE",
    "NOT_FOUND_CLAIM",
    "OLD_REPORT_URL",
    "PARTIAL_CLAIM",
    "PDF_URL",
    "REFUNDS_CLAIM",
    "REFUNDS_URL",
    "RETURNS_URL",
    "SOFT_404_URL",
    "STEERING_VARIABLES",
    "SUPPORTED_CLAIM",
]

CRAWLBASE_TOKEN = "ops-cb-normal-canary-71c3e9"
CRAWLBASE_JS_TOKEN = "ops-cb-js-canary-52a9f0"
OPENAI_API_KEY = "sk-ops-openai-canary-d84e17"
ANTHROPIC_API_KEY = "sk-ant-ops-canary-0f6b2c"
SECRETS = {
    "CRAWLBASE_TOKEN": CRAWLBASE_TOKEN,
    "CRAWLBASE_JS_TOKEN": CRAWLBASE_JS_TOKEN,
    "OPENAI_API_KEY": OPENAI_API_KEY,
    "ANTHROPIC_API_KEY": ANTHROPIC_API_KEY,
}

#: The repository (its shipped examples live in ``cases/`` and ``cassettes/cases/``).
REPO = Path(__file__).resolve().parent.parent
#: The three shipped example case files (the calibration set is left out).
EXAMPLES = ("boiling-point.yaml", "fetch-rules.yaml", "returns-policy.yaml")


_SCRIPT = Path(sys.executable).with_name("pytest-citations")
#: The installed console script (the module as a fallback when it is not on disk).
COMMAND = [str(_SCRIPT)] if _SCRIPT.exists() else [sys.executable, "-m", "pytest_citations.cli"]


@dataclass
class Run:
    """One finished command."""

    returncode: int
    stdout: str
    stderr: str

    def assert_no_secret(self) -> None:
        """No canary value anywhere in the output, and no traceback."""
        for variable, value in SECRETS.items():
            assert value not in self.stdout, f"the value of {variable} is on stdout"
            assert value not in self.stderr, f"the value of {variable} is on stderr"
        assert "Traceback" not in self.stderr, self.stderr


def base_env(home: Path, *, lexical: bool = True) -> dict[str, str]:
    """A minimal environment: no inherited token or URL, the lexical embedder (no torch),
    unless ``lexical`` is False: a replay of the shipped examples (recorded with MiniLM)
    names no embedder, which it needs none of. ``PYTHONPATH`` is passed on when set, so that
    the package under test (a checkout put first on the path) is the one the subprocess
    imports, not another installed copy."""
    inherited = {"PYTHONPATH": os.environ["PYTHONPATH"]} if "PYTHONPATH" in os.environ else {}
    return {
        "PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin",
        "HOME": str(home),
        **({"CITATIONS_EMBEDDING_MODEL": "lexical"} if lexical else {}),
        **inherited,
    }


def run_cli(*args: str, env: dict[str, str], cwd: Path | None = None) -> Run:
    """``pytest-citations ARGS`` in a fresh process with exactly ``env``."""
    done = subprocess.run(
        [*COMMAND, *args], env=env, cwd=cwd, capture_output=True, timeout=180, check=False
    )
    return Run(done.returncode, done.stdout.decode("utf-8"), done.stderr.decode("utf-8"))


@dataclass
class Web:
    """Both emulators serving the example site, and the environment pointing at them."""

    crawlbase: CrawlbaseEmulator
    judge: JudgeEmulator
    env: dict[str, str]

    def without(self, *variables: str) -> dict[str, str]:
        """The environment with some variables unset."""
        return {key: value for key, value in self.env.items() if key not in variables}


@contextlib.contextmanager
def emulators(home: Path, *, crawlbase_token: str = CRAWLBASE_TOKEN) -> Iterator[Web]:
    """Start both emulators (the Crawlbase one accepting ``crawlbase_token``) with the
    example site installed; the environment carries every canary secret."""
    with (
        CrawlbaseEmulator(token=crawlbase_token, js_token=CRAWLBASE_JS_TOKEN) as crawlbase,
        JudgeEmulator(openai_key=OPENAI_API_KEY, anthropic_key=ANTHROPIC_API_KEY) as judge,
    ):
        example_site.install(crawlbase, judge)
        env = {
            **base_env(home),
            **SECRETS,
            "CRAWLBASE_API_URL": crawlbase.url,
            **judge.base_urls(),
        }
        yield Web(crawlbase, judge, env)


def free_port() -> int:
    """A port on 127.0.0.1 that nothing listens on (bound, then released)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


def copy_examples(target: Path, *, cassettes: bool = True) -> None:
    """Copy the shipped example case files (and their cassettes) under ``target``."""
    (target / "cases").mkdir(parents=True, exist_ok=True)
    for name in EXAMPLES:
        shutil.copyfile(REPO / "cases" / name, target / "cases" / name)
        if cassettes:
            (target / "cassettes" / "cases").mkdir(parents=True, exist_ok=True)
            shutil.copyfile(
                REPO / "cassettes" / "cases" / name, target / "cassettes" / "cases" / name
            )


#: Arguments of every inner pytest run: no cache, no hypothesis.
PYTEST_ARGS = ("--citations", "-p", "no:cacheprovider", "-p", "no:hypothesispytest")
LEXICAL_ARGS = ("--citations-embedder", "lexical")


def run_pytest(
    project: Path,
    *args: str,
    env: dict[str, str],
    lexical: bool = True,
    python: Path | None = None,
) -> Run:
    """``pytest --citations ARGS`` (the lexical embedder unless ``lexical`` is False) in a
    fresh process in ``project``, with exactly ``env``, by ``python`` (this interpreter by
    default): the plugin comes from its entry point, as for a user."""
    chosen = LEXICAL_ARGS if lexical else ()
    done = subprocess.run(
        [str(python or sys.executable), "-m", "pytest", *PYTEST_ARGS, *chosen, *args],
        cwd=project,
        env=env,
        capture_output=True,
        timeout=300,
        check=False,
    )
    return Run(done.returncode, done.stdout.decode("utf-8"), done.stderr.decode("utf-8"))
