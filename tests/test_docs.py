"""The documentation site stays true (issue 28): each command a page shows with an output
block prints that block, run for real in a copy of the shipped examples; the options and
command-line reference pages are generated from the option table and the argument parsers
(one source each), hold every option and command the code accepts, and build into the site.

``tests/test_readme.py`` runs the checks every page shares with the README (the options and
commands a page names exist; it installs nothing from an index the package is not on).
"""

from __future__ import annotations

import argparse
import importlib.util
import itertools
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from ops_support import COMMAND, base_env, emulators
from test_readme import (
    DOC_PAGES,
    DOCS,
    README,
    ROOT,
    Block,
    assert_printed,
    code_blocks,
    commands,
    document_id,
    run_readme_command,
)
from test_workflows import help_text, subcommands

from pytest_citations.cli.reference import cli_page
from pytest_citations.plugin.flags import Option
from pytest_citations.plugin.option_table import OPTIONS
from pytest_citations.plugin.reference import options_page
from pytest_citations.plugin.values import whole_number

HOOK = DOCS / "hooks" / "reference.py"


# -- commands and their output ----------------------------------------------------------------


def shown_runs(page: Path) -> list[tuple[str, Block]]:
    """Each command a page shows with what it prints: a ``bash`` block of one command whose
    next block is an output block (no language), unless a test of its own runs it (its
    ``<!-- run by … -->`` line: the output needs a setup the examples do not have)."""
    blocks = code_blocks(page.read_text(encoding="utf-8"))
    found = []
    for block, after in itertools.pairwise(blocks):
        if block.language == "bash" and after.language == "" and not block.run_by:
            lines = commands([block])
            assert len(lines) == 1, f"{document_id(page)}: one command before its output"
            found.append((lines[0], after))
    return found


#: The tour's commands run in order, in two terminals, each after the ones before it:
#: ``tests/test_tour.py`` follows it from its first command to its last.
TOUR = DOCS / "tour.md"
PAGES_WITH_RUNS = [page for page in DOC_PAGES if page != TOUR and shown_runs(page)]


def test_the_getting_started_page_shows_a_first_run() -> None:
    assert DOCS / "getting-started.md" in PAGES_WITH_RUNS


@pytest.mark.parametrize("page", PAGES_WITH_RUNS, ids=document_id)
def test_every_command_a_page_shows_prints_its_output_block(page: Path, tmp_path: Path) -> None:
    """In a copy of the repository's examples, as a newcomer without a token runs it; both
    emulators listen where the services' URLs point, so that any request would show."""
    for folder in ("cases", "cassettes"):
        shutil.copytree(ROOT / folder, tmp_path / folder)
    with emulators(tmp_path) as web:
        env = base_env(tmp_path, lexical=False)  # the default embedder: a replay loads none
        env.update({name: value for name, value in web.env.items() if name.endswith("_URL")})
        for command, output in shown_runs(page):
            run = run_readme_command(command, env=env, cwd=tmp_path)

            assert "Traceback" not in run.stdout + run.stderr, run.stderr
            assert_printed(output.lines, run.stdout.splitlines())
        assert (web.crawlbase.crawl_count, web.judge.call_count) == (0, 0)  # from cassettes


@pytest.mark.parametrize("page", DOC_PAGES, ids=document_id)
def test_a_block_run_elsewhere_names_a_test_that_reads_its_page(page: Path) -> None:
    """A command the generic run above leaves out is never left untested: the test its
    comment names exists and reads this page."""
    for block in code_blocks(page.read_text(encoding="utf-8")):
        if block.run_by:
            test = ROOT / block.run_by
            assert block.language == "bash", f"{document_id(page)}: {block.run_by}"
            assert test.is_file(), f"{document_id(page)}: no test {block.run_by}"
            assert f'"{page.name}"' in test.read_text(encoding="utf-8"), (
                f"{block.run_by} does not read {document_id(page)}"
            )


# -- the reference pages --------------------------------------------------------------------


def test_the_options_page_has_every_option_of_the_table() -> None:
    page = options_page()

    for option in OPTIONS:
        row = next(line for line in page.splitlines() if f"`{option.key}`" in line or (
            option.flag and f"`{option.flag_name}" in line))  # fmt: skip
        if option.flag:
            assert f"`{option.flag_name}" in row
        if option.ini:
            assert f"`{option.key}`" in row
        for variable in option.env:
            assert f"`{variable}`" in row
        if option.old_ini:
            assert f"`{option.old_ini}`" in row
        assert " ".join(option.help.split()) in row


def test_the_options_page_has_every_option_pytest_help_lists(tmp_path: Path) -> None:
    """Read from ``pytest --help`` of a run, a source the page is not made from."""
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "--help"],
        cwd=tmp_path, capture_output=True, text=True, timeout=120, check=True,
    )  # fmt: skip
    listed = set(re.findall(r"(?<![\w-])(--citations[a-z-]*)", done.stdout))
    ini = set(re.findall(r"^  (citations_[a-z_]+)", done.stdout, re.MULTILINE))
    page = options_page()

    assert len(listed) > 30
    assert {flag for flag in listed if f"`{flag}`" not in page and f"`{flag} " not in page} == set()
    assert {key for key in ini if f"`{key}`" not in page} == set()


def test_a_row_added_to_the_table_is_on_the_page() -> None:
    knob = Option("example-knob", "a knob only this test has", kind="parse", default=7,
                  parse=whole_number, metavar="N", env=("CITATIONS_EXAMPLE_KNOB",))  # fmt: skip

    page = options_page((*OPTIONS, knob))

    assert (
        "| `--citations-example-knob N` | `citations_example_knob` | `CITATIONS_EXAMPLE_KNOB` "
        "| `7` | a knob only this test has |"
    ) in page.splitlines()
    assert "example-knob" not in options_page()


def arguments_of(*words: str) -> set[str]:
    """The long options ``pytest-citations WORDS --help`` lists as its arguments (not those
    its descriptions mention)."""
    listed = help_text(*COMMAND, *words)
    # argparse lists an argument two spaces in; a wrapped description line that happens to
    # start with an option's name is indented further.
    return set(re.findall(r"^  (?:-\w[^,]*, )?(--[a-z][a-z0-9-]*)", listed, re.MULTILINE))


def test_the_command_line_page_has_every_command_and_option() -> None:
    """Read from ``pytest-citations … --help``, a source the page is not made from."""
    page = cli_page()
    names = [(name,) for name in subcommands()]
    names += [(name, action) for (name,) in names for action in subcommands(name)]

    assert len(names) >= 10
    for words in names:
        heading = "#" * (len(words) + 1) + f" `pytest-citations {' '.join(words)}`"
        assert heading in page.splitlines(), heading
        section = page.split(heading, 1)[1].split("\n## ", 1)[0]
        if len(words) == 1 and subcommands(*words):
            section = section.split("\n### ", 1)[0]
        own = arguments_of(*words) - arguments_of() - {"--help"}
        missing = {option for option in own if f"`{option}" not in section}
        assert missing == set(), f"{words}: {sorted(missing)}"
    top = page.split("## Global options", 1)[1].split("\n## ", 1)[0]
    shared = arguments_of() - {"--help", "--version"}
    assert len(shared) > 10
    assert {option for option in shared if f"`{option} " not in top} == set()
    assert "Exit codes" in help_text(*COMMAND)
    assert "4 a command that chooses passages" in page


def test_a_command_added_to_a_parser_is_on_its_page() -> None:
    parser = argparse.ArgumentParser(prog="pytest-citations", description="A test's command.")
    added = parser.add_subparsers(title="commands").add_parser(
        "tidy", help="tidy the cassettes", description="Tidy every cassette."
    )
    added.add_argument("paths", nargs="+", metavar="PATH", help="a cassette")
    added.add_argument("--keep", type=int, default=3, metavar="N", help="cassettes kept")
    added.add_argument("--dry-run", action="store_true", help="write nothing")

    page = cli_page(parser).splitlines()

    at = page.index("## `pytest-citations tidy`")
    assert page[at + 2] == "tidy the cassettes"
    assert page[at + 4] == "Tidy every cassette."
    assert "pytest-citations tidy [global options] [--keep N] [--dry-run] PATH [PATH ...]" in page
    assert "| `PATH …` |  | a cassette |" in page
    assert "| `--keep N` | `3` | cassettes kept |" in page
    assert "| `--dry-run` |  | write nothing |" in page


# -- the site -------------------------------------------------------------------------------


#: The README is the front page: what it checks, the first run, the install, a short tour and
#: links into the site, which holds the manual (issue 28).
README_WORDS = 2_500


def test_the_readme_is_a_front_page() -> None:
    text = README.read_text(encoding="utf-8")

    assert len(text.split()) <= README_WORDS
    linked = set(re.findall(r"\]\(docs/([a-z-]+\.md)", text))
    assert {page.name for page in DOC_PAGES} - linked == set()  # a way in to every page


def nav_pages(nav: object) -> list[str]:
    """The pages mkdocs.yml's nav names, in order."""
    if isinstance(nav, str):
        return [nav]
    if isinstance(nav, list):
        return [page for entry in nav for page in nav_pages(entry)]
    if isinstance(nav, dict):
        return [page for value in nav.values() for page in nav_pages(value)]
    return []


def test_every_page_is_in_the_nav_and_moved_in_whole() -> None:
    """No page is left out of the site's navigation (mkdocs only warns), and no page still
    says its text lives in the README."""
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    nav = nav_pages(config["nav"])
    hand_written = [page.relative_to(DOCS).as_posix() for page in DOC_PAGES]

    assert sorted(set(hand_written) - set(nav)) == []
    assert len(nav) == len(set(nav))
    for page in DOC_PAGES:
        text = page.read_text(encoding="utf-8")
        assert "Being moved here" not in text, document_id(page)
        assert "Until the README is cut down" not in text, document_id(page)


def test_the_reference_pages_are_generated_never_written(tmp_path: Path) -> None:
    """The build's hook renders them from the code; a copy in docs/ would drift."""
    pytest.importorskip("mkdocs", reason="the docs extra builds the site")
    spec = importlib.util.spec_from_file_location("reference_hook", HOOK)
    assert spec is not None
    assert spec.loader is not None
    hook = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hook)

    assert {"reference/options.md": options_page, "reference/cli.md": cli_page} == hook.PAGES
    assert [path for path in hook.PAGES if (DOCS / path).exists()] == []
    assert "hooks:\n  - docs/hooks/reference.py\n" in (ROOT / "mkdocs.yml").read_text("utf-8")


def test_the_site_builds_with_the_generated_pages(tmp_path: Path) -> None:
    """``mkdocs build --strict``, as .ci/run builds it: every warning fails it."""
    pytest.importorskip("mkdocs", reason="the docs extra builds the site")
    mkdocs = shutil.which("mkdocs", path=str(Path(sys.executable).parent))
    assert mkdocs is not None
    done = subprocess.run(
        [mkdocs, "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=ROOT, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip

    assert done.returncode == 0, done.stderr
    options = (tmp_path / "site" / "reference" / "options" / "index.html").read_text("utf-8")
    cli = (tmp_path / "site" / "reference" / "cli" / "index.html").read_text("utf-8")
    assert all((option.key if option.ini else option.flag_name) in options for option in OPTIONS)
    assert all(f"pytest-citations {name}" in cli for name in subcommands())
