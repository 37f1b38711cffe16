"""A newcomer's first run: ``pytest --citations cases/`` from the repository root replays the
shipped examples offline, with no token and the default MiniLM embedder, and prints what the
README and the getting-started page (``docs/getting-started.md``, the whole output) say it
prints, line for line (``-v`` shows each claim's label, as the page shows for
``cases/fetch-rules.yaml``).

The examples run in a fresh Python process (the MiniLM model loads torch, which must never be
imported into pytester's in-process runs): the whole set once per module, and
``cases/fetch-rules.yaml`` once more with ``-v``.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from plugin_helpers import QUIET, STEERING_VARIABLES, Web
from test_readme import DOCS, ELISION, README, assert_printed

from pytest_citations.sandbox import CrawlbaseEmulator, JudgeEmulator

ROOT = Path(__file__).resolve().parents[2]
README_CHECKOUT = "/home/you/pytest-citations"
LABELS = ("supported", "partial", "contradicted", "not_found", "unreachable")


#: The page that shows and explains the whole first run.
GETTING_STARTED = DOCS / "getting-started.md"


def shown_block(after: str, document: Path = GETTING_STARTED) -> list[str]:
    """The lines of a document's first output block after the words ``after``."""
    text = document.read_text(encoding="utf-8")
    assert after in text, f"{document.name} no longer says {after!r}"
    return text.split(after, 1)[1].split("```", 2)[1].splitlines()[1:]


def readme_first_run() -> list[str]:
    """The output block the README shows, shortened, for ``pytest --citations cases/``."""
    return shown_block("It prints, shortened", README)


def page_first_run() -> list[str]:
    """The whole output the getting-started page shows for ``pytest --citations cases/``."""
    return shown_block("The command prints, shortened")


def page_verbose_run() -> list[str]:
    """The item lines the page shows for ``pytest --citations cases/fetch-rules.yaml -v``."""
    return shown_block("`pytest --citations cases/fetch-rules.yaml -v`:")


def run_examples(
    folder: Path, *arguments: str, env_extra: dict[str, str] | None = None
) -> tuple[pytest.RunResult, Web]:
    """``pytest ARGUMENTS`` in a copy of the repository's examples, with no token set (only
    ``env_extra`` of the steering variables) and both emulators listening where the API URLs
    point (so that any request shows)."""
    shutil.copytree(ROOT / "cases", folder / "cases")
    shutil.copytree(ROOT / "cassettes", folder / "cassettes")
    env = {name: value for name, value in os.environ.items() if name not in STEERING_VARIABLES}
    env.update(env_extra or {})
    env["COLUMNS"] = "80"  # the README shows an 80-column terminal
    # ... on a developer's machine: under CI (``CI`` or ``BUILD_NUMBER`` set) pytest prints
    # the short test summary's lines in full instead of cut to the terminal's width
    for variable in ("CI", "BUILD_NUMBER"):
        env.pop(variable, None)
    command = [sys.executable, "-m", "pytest", *arguments, "-p", "no:cacheprovider", *QUIET]
    with CrawlbaseEmulator() as crawlbase, JudgeEmulator() as judge:
        env["CRAWLBASE_API_URL"] = crawlbase.url
        env["OPENAI_BASE_URL"] = judge.openai_base_url
        started = time.monotonic()
        done = subprocess.run(
            command, cwd=folder, env=env, capture_output=True, text=True, timeout=900
        )
    # The header names the cassette folder by its absolute path: the README's checkout is
    # /home/you/pytest-citations.
    stdout = done.stdout.replace(str(folder.resolve()), README_CHECKOUT)
    result = pytest.RunResult(
        done.returncode,
        stdout.splitlines(),
        done.stderr.splitlines(),
        time.monotonic() - started,
    )
    return result, Web(crawlbase, judge)


@pytest.fixture(scope="module")
def first_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[pytest.RunResult, Web]:
    """The README's first command, ``pytest --citations cases/``, as a newcomer runs it."""
    return run_examples(tmp_path_factory.mktemp("first-run"), "--citations", "cases/")


@pytest.mark.parametrize("shown", [readme_first_run, page_first_run], ids=["README", "page"])
def test_readme_and_page_show_a_complete_first_run(shown: Callable[[], list[str]]) -> None:
    lines = shown()
    assert any(line.startswith("citations: record=none judge=openai ") for line in lines)
    assert any(re.search(r"\d+ failed, \d+ passed", line) for line in lines)
    assert any(line.startswith("citation_precision=") for line in lines)
    assert any(line.startswith("Release decision: ") for line in lines)


def test_examples_replay_offline_and_show_every_label(
    first_run: tuple[pytest.RunResult, Web],
) -> None:
    result, web = first_run

    assert web.requests == 0
    assert result.ret == pytest.ExitCode.TESTS_FAILED  # a contradicted claim; README says why
    header = next(line for line in page_first_run() if line.startswith("citations: "))
    assert header in result.outlines
    assert "embedder=all-MiniLM-L6-v2" in header
    result.stdout.fnmatch_lines(
        ["crawlbase_credits=0 (*); judge_calls=0 judge_tokens=0; replayed: *"]
    )
    assert "request_refused" not in result.stdout.str()
    result.stdout.fnmatch_lines(["citations not verified:"])
    # Between them, the examples show every label: each label's column of the summary
    # table counts at least one claim.
    columns = next(line.split() for line in result.outlines if line.startswith("case "))
    rows = [line.split() for line in result.outlines if re.match(r"cases/\S+::\S+ +\d", line)]
    assert rows
    for label in LABELS:
        assert sum(int(row[columns.index(label)]) for row in rows) > 0, label


def test_examples_print_what_the_readme_and_the_page_show(
    first_run: tuple[pytest.RunResult, Web],
) -> None:
    result, _ = first_run

    assert_printed(readme_first_run(), result.outlines)
    assert_printed(page_first_run(), result.outlines)


def test_the_verbose_lines_the_page_shows(tmp_path: Path) -> None:
    """The getting-started page's default run of the fetch-rules case: the two claims left
    with no evidence (not_found, unreachable) fail it, as the lines it shows say."""
    result, web = run_examples(tmp_path, "--citations", "cases/fetch-rules.yaml", "-v")

    assert web.requests == 0
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    assert_printed([ELISION, *page_verbose_run(), ELISION], result.outlines)


def test_the_prompt_injection_example_does_not_fool_the_judge(
    first_run: tuple[pytest.RunResult, Web],
) -> None:
    """cases/prompt-injection.yaml: the page forges the prompt's fences and orders the judge
    to call the claim supported; the recorded run shows the order was read as data (issue 8)."""
    result, _ = first_run
    result.stdout.fnmatch_lines(
        [
            "  cases/prompt-injection.yaml::prompt-injection::claim-1: not_found "
            "https://tracker.example.com/aurora-x2"
        ]
    )
    columns = next(line.split() for line in result.outlines if line.startswith("case "))
    row = next(
        line.split()
        for line in result.outlines
        if re.match(r"cases/prompt-injection\.yaml::\S+ +\d", line)
    )
    assert int(row[columns.index("supported")]) == int(row[columns.index("partial")]) == 0
