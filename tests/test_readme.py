"""The README stays true (issue 11): every output block it shows is what its command prints,
checked here by running the command for real against the local emulators of
``pytest_citations.sandbox`` or the shipped cassettes, never the network; its examples load;
its paths exist. The checks that hold for any page (the options and commands it names exist,
it installs nothing from an index the package is not on) run over the documentation site's
pages too (issue 28), and
``tests/test_docs.py`` runs their commands.

The first run's output is checked in ``tests/plugin/test_examples.py`` and the flow from
exported answers to a gate in ``tests/cli/test_import.py``; both read the README with the
helpers of this module, so that a changed README and a changed program cannot drift apart.
"""

from __future__ import annotations

import functools
import re
import shlex
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

import pytest
from ops_support import COMMAND, Run
from plugin_helpers import (
    BOILING_CASE,
    BOILING_URL,
    RETURNS_CASE,
    SUPPORTED_CLAIM,
    Citations,
    single_claim_case,
)
from test_workflows import from_an_index, help_options, subcommands

from pytest_citations.cases import load_cases
from pytest_citations.cases.schema import schema_text
from pytest_citations.pipeline.settings import LIMITS
from pytest_citations.plugin.option_table import OPTIONS
from pytest_citations.plugin.reference import options_page

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
DOCS = ROOT / "docs"
#: The pages of the documentation site written by hand (the reference pages are generated).
DOC_PAGES = sorted(DOCS.rglob("*.md"))
#: Every document whose commands and names are checked: the README and the site's pages.
DOCUMENTS = [README, *DOC_PAGES]
#: A line of an output block that stands for lines left out.
ELISION = "…"
_FENCE = re.compile(r"^```([^\n`]*)\n(.*?)^```[ \t]*$", re.MULTILINE | re.DOTALL)
#: The comment before a ``bash`` block whose output needs a setup of its own (answers to
#: import, a base run to compare with): the test it names runs it, reading the page.
_RUN_BY = re.compile(r"<!-- run by (\S+) -->\n\Z")
_DURATION = re.compile(r"\bin \d+(?:\.\d+)?s(?: \(\d+:\d\d:\d\d\))?")
# pytest centres its final line in ``=``, so a duration of another length moves the padding
_FINAL_LINE = re.compile(r"^=+ (.* in <time>) =+$")


def _without_duration(line: str) -> str:
    """``line`` with a test run's duration (and the padding that centres it) made neutral."""
    return _FINAL_LINE.sub(r"= \1 =", _DURATION.sub("in <time>", line.rstrip()))


@dataclass(frozen=True)
class Block:
    """One fenced code block: its language tag (empty for output) and its text; ``run_by``,
    the test that runs it, where a ``<!-- run by tests/… -->`` line stands before it."""

    language: str
    text: str
    run_by: str = ""

    @property
    def lines(self) -> list[str]:
        """The block's lines."""
        return self.text.splitlines()


def document_id(path: Path) -> str:
    """A document's path from the repository's root, as a test id."""
    return path.relative_to(ROOT).as_posix()


def readme_section(title: str, document: Path = README) -> str:
    """The section of the README (or of another ``document``) under the heading ``title``
    (any level), up to the next heading of the same or a higher level."""
    level = 0
    kept: list[str] = []
    fenced = False
    for line in document.read_text(encoding="utf-8").splitlines(keepends=True):
        if line.startswith("```"):
            fenced = not fenced
        heading = None if fenced else re.match(r"(#+) (.*)", line)
        if heading and level and len(heading[1]) <= level:
            break
        if heading and not level and heading[2].strip() == title:
            level = len(heading[1])
        elif level:
            kept.append(line)
    assert level, f"{document_id(document)} has no section {title!r}"
    return "".join(kept)


def code_blocks(text: str) -> list[Block]:
    """The fenced code blocks of ``text``, in order."""
    blocks = []
    for match in _FENCE.finditer(text):
        run_by = _RUN_BY.search(text, 0, match.start())
        blocks.append(Block(match[1].strip(), match[2], run_by[1] if run_by else ""))
    return blocks


def commands(blocks: list[Block]) -> list[str]:
    """The command lines of the ``bash`` blocks, in order (comments left out; a line ending
    in a backslash continues on the next, as the shell reads it)."""
    found = []
    for block in blocks:
        if block.language != "bash":
            continue
        text = re.sub(r"\\\n[ \t]*", "", block.text)
        lines = (line.strip() for line in text.splitlines())
        found += [line for line in lines if line and not line.startswith("#")]
    return found


def assert_printed(expected: list[str], printed: list[str]) -> None:
    """``printed`` is what the block ``expected`` shows: the same lines in the same order,
    where a line starting with ``…`` stands for any number of lines left out, and a test
    run's duration (``in 24.87s``) may differ. Without ``…`` at its start or end, the block
    must start or end where the output does."""
    expected = [_without_duration(line) for line in expected]
    printed = [_without_duration(line) for line in printed]
    segments: list[list[str]] = [[]]
    for line in expected:
        if line.strip().startswith(ELISION):
            segments.append([])
        else:
            segments[-1].append(line)
    position = 0
    for number, segment in enumerate(segments):
        if not segment:
            continue
        anchored = number == 0
        starts = [position] if anchored else range(position, len(printed) - len(segment) + 1)
        found = next((s for s in starts if printed[s : s + len(segment)] == segment), None)
        assert found is not None, (
            "the block shows lines the command does not print:\n"
            + "\n".join(segment)
            + "\n--- it printed:\n"
            + "\n".join(printed)
        )
        position = found + len(segment)
    if segments[-1]:
        assert position == len(printed), "the command prints more than the block shows:\n" + (
            "\n".join(printed[position:])
        )


def run_readme_command(line: str, *, env: dict[str, str], cwd: Path) -> Run:
    """Run one command line of the README as written. ``VAR=… command`` stands for a
    variable the environment must set (``env`` sets it: a token of the emulators)."""
    import subprocess

    words = shlex.split(line)
    while re.fullmatch(r"[A-Z_]+=…", words[0]):
        variable = words.pop(0).split("=")[0]
        assert env.get(variable), f"the README sets {variable}, the environment does not"
    program = {"pytest": [sys.executable, "-m", "pytest"], "pytest-citations": COMMAND}
    assert words[0] in program, f"not a command of this project: {line}"
    done = subprocess.run(
        [*program[words[0]], *words[1:]],
        cwd=cwd,
        env={**env, "COLUMNS": "80"},
        capture_output=True,
        timeout=300,
        check=False,
    )
    return Run(done.returncode, done.stdout.decode("utf-8"), done.stderr.decode("utf-8"))


# -- options ------------------------------------------------------------------------------


@pytest.mark.parametrize("document", DOCUMENTS, ids=document_id)
def test_every_option_and_ini_key_a_document_names_exists(document: Path) -> None:
    text = document.read_text(encoding="utf-8")
    flags = {"--citations", *(option.flag_name for option in OPTIONS if option.flag)}
    flags |= {option.old_flag for option in OPTIONS if option.old_flag}
    keys = {option.key for option in OPTIONS if option.ini}
    keys |= {option.old_ini for option in OPTIONS if option.old_ini}

    named_flags = set(re.findall(r"--citations(?:-[a-z]+)*", text))
    named_keys = set(re.findall(r"\bcitations_[a-z_]+", text))

    assert named_flags - flags == set()
    assert named_keys - keys == set()


def test_the_options_table_matches_the_option_table_of_the_code() -> None:
    """Each row of the options reference (generated from the table when the site is built;
    it replaced the README's hand-written copy): the flag's ini key and environment
    variable."""
    by_flag = {option.flag_name: option for option in OPTIONS if option.flag}
    rows = re.findall(
        r"^\| `(--citations-[a-z-]+)[^`]*`[^|]*\| (?:`(citations_[a-z_]+)`)?[^|]*\| ([^|]*)\|",
        options_page(),
        re.MULTILINE,
    )
    assert len(rows) > 20
    for flag, key, env in rows:
        option = by_flag[flag]
        assert key == (option.key if option.ini else ""), flag
        assert re.findall(r"`([A-Z_]+)`", env)[:1] == list(option.env[:1]), flag


def test_the_options_table_has_a_row_for_every_limit_and_budget() -> None:
    """Request limits and budgets come from one table of the code: each is a row."""
    rows = set(re.findall(r"^\| `(--citations-[a-z-]+)", options_page(), re.MULTILINE))
    assert {f"--citations-{limit.name}" for limit in LIMITS} - rows == set()


@pytest.mark.parametrize("document", DOCUMENTS, ids=document_id)
def test_every_command_line_a_document_shows_uses_commands_and_options_that_exist(
    document: Path,
) -> None:
    lines = commands(code_blocks(document.read_text(encoding="utf-8")))
    shown = [shlex.split(line.split(" && ")[-1], comments=True) for line in lines]
    shown = [words for words in shown if words and words[0] == "pytest-citations"]
    if document == DOCS / "service.md":  # the page of the command line
        assert len(shown) >= 6
    names = cli_commands()
    assert {"verify", "batch", "import", "stored-page", "schema", "serve"} <= set(names)
    for words in shown:
        positional = [word for word in words[1:] if not word.startswith("-")]
        command = (positional or [""])[0]
        assert command in names, f"pytest-citations has no command {command!r}"
        actions = cli_commands(command)  # a command of actions: ``cassettes upgrade``
        if actions:
            action = (positional[1:] or [""])[0]
            assert action in actions, f"{words}: {command} has no action {action!r}"
            command = f"{command} {action}"
        options = {word.split("=")[0] for word in words[1:] if word.startswith("--")}
        known = cli_options(command)
        assert options <= known, f"{words}: {sorted(options - known)}"


@functools.cache
def cli_commands(command: str = "") -> tuple[str, ...]:
    """The commands of ``pytest-citations``, or the actions of ``command``, read from
    ``--help`` once per test process."""
    return subcommands(*command.split())


@functools.cache
def cli_options(command: str = "") -> frozenset[str]:
    """The long options ``pytest-citations COMMAND --help`` names, the global ones included,
    read once per test process."""
    if not command:
        return frozenset(help_options(*COMMAND))
    return cli_options() | help_options(*COMMAND, *command.split())


def simple_commands(line: str) -> list[list[str]]:
    """The words of each command of a shell line (``a && b; c | d``: four), quotes read."""
    lexer = shlex.shlex(line, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    found: list[list[str]] = [[]]
    for word in lexer:
        if word in ("&&", "||", ";", "|", "&"):
            found.append([])
        else:
            found[-1].append(word)
    return [words for words in found if words]


@pytest.mark.parametrize("document", DOCUMENTS, ids=document_id)
def test_no_command_a_document_shows_installs_pytest_citations_from_an_index(
    document: Path,
) -> None:
    """Issue 28: pytest-citations is not on PyPI yet, so such a command fails."""
    installs = [
        words[2:]
        for line in commands(code_blocks(document.read_text(encoding="utf-8")))
        for words in simple_commands(line)
        if words[:2] == ["pip", "install"]
    ]
    if document == README:
        assert installs  # the first run's installs
    assert [words for words in installs if any(map(from_an_index, words))] == []


# -- case files ---------------------------------------------------------------------------------

#: The page on case files, read whole (its title is its only first-level heading).
CASE_FILES = ("Writing case files", DOCS / "case-files.md")


def test_the_case_file_example_loads(tmp_path: Path) -> None:
    [example, *_] = [b for b in code_blocks(readme_section(*CASE_FILES)) if b.language == "yaml"]
    path = tmp_path / "cases" / "boiling-point.yaml"
    path.parent.mkdir()
    path.write_text(example.text, encoding="utf-8")

    [case] = load_cases(path)

    assert case.id == "boiling-point"
    assert [claim.text for claim in case.claims] == [
        "Water boils at 100 °C at sea level.",
        "It boils at 50 °C on mountains.",
    ]


def test_the_schema_line_leads_from_a_case_file_in_cases_to_the_published_schema() -> None:
    section = readme_section(*CASE_FILES)
    [line] = re.findall(r"^# yaml-language-server: \$schema=(\S+)$", section, re.MULTILINE)
    # The YAML language server resolves the path from the case file's folder.
    schema = (ROOT / "cases" / line).resolve()

    assert schema == (ROOT / "schema" / "case-file.schema.json").resolve()
    assert schema.read_text(encoding="utf-8") == schema_text()
    assert "pytest-citations schema > schema/case-file.schema.json" in section


def test_a_broken_case_file_fails_as_its_page_shows(citations: Citations) -> None:
    blocks = code_blocks(readme_section(*CASE_FILES))
    broken = next(b for b in blocks if b.language == "yaml" and "id: bad" in b.text)
    printed = blocks[blocks.index(broken) + 1]
    citations.write("cases/bad.yaml", broken.text)

    result = citations.run("cases/", gate="default")

    assert result.ret == pytest.ExitCode.TESTS_FAILED
    assert_printed([ELISION, *printed.lines, ELISION], result.outlines)


# -- recordings ---------------------------------------------------------------------------


def test_the_shipped_cassettes_come_from_the_local_emulators() -> None:
    """What the README, the recording page and cassettes/README.md say of the shipped
    recordings stays true: every request in them went to an emulator on 127.0.0.1, and each
    names the script that records them again from there (the page and cassettes/README.md
    also how to record them with real tokens)."""
    cassettes = sorted((ROOT / "cassettes").rglob("*.yaml"))
    uris = [
        line.split("uri:", 1)[1].strip()
        for path in cassettes
        for line in path.read_text(encoding="utf-8").splitlines()
        if line.strip().startswith("uri:")
    ]

    assert cassettes
    assert uris
    assert all(uri.startswith("http://127.0.0.1:") for uri in uris), "re-recorded for real?"
    assert (ROOT / "tests" / "record_examples.py").is_file()
    readme = README.read_text(encoding="utf-8")
    assert "python tests/record_examples.py" in readme
    assert "pytest_citations/sandbox/" in readme
    for text in (
        (DOCS / "recording.md").read_text(encoding="utf-8"),
        (ROOT / "cassettes" / "README.md").read_text(encoding="utf-8"),
    ):
        assert "python tests/record_examples.py" in text
        assert "pytest_citations/sandbox/" in text
        assert "--citations-record=rewrite" in text  # how to record them with real tokens


# -- baselines ------------------------------------------------------------------------------


def test_a_baseline_run_and_its_update_print_what_the_ci_gate_page_shows(
    citations: Citations,
) -> None:
    """The CI gate page's story: a baseline written for two case files; then one claim cites
    another page (it regresses), the file's last claim goes (unused) and a file is added."""
    section = readme_section("Release gating", DOCS / "ci-gate.md")
    compare = "pytest --citations cases/ --citations-baseline\ncitations-baseline.json"
    assert compare in section
    shown = [b for b in code_blocks(section) if b.text.startswith("baseline ")]
    assert len(shown) == 2  # the comparison, then the update
    baseline = ("--citations-baseline", "citations-baseline.json")
    citations.write("cases/boiling.yaml", BOILING_CASE)
    citations.write("cases/returns.yaml", RETURNS_CASE)
    citations.record("cases/", gate="default")
    citations.run("cases/", *baseline, "--citations-update-baseline", gate="default")
    changed = RETURNS_CASE.replace("    cites: [2]\n", "    cites: [1]\n")
    citations.write("cases/returns.yaml", changed[: changed.index("  - text: Opened software")])
    citations.write("cases/water.yaml", single_claim_case("water", SUPPORTED_CLAIM, BOILING_URL))
    citations.record("cases/", mode="new_episodes", gate="default")

    compared = citations.run("cases/", *baseline, gate="default")
    updated = citations.run("cases/", *baseline, "--citations-update-baseline", gate="default")

    # The page's command names no labels: the default gate fails the contradicted claim, the
    # partial one and the regressed one (now not supported by the page it cites), whether
    # the baseline accepts the regression or not: an update changes what the baseline
    # remembers, never the gate.
    assert compared.ret == updated.ret == pytest.ExitCode.TESTS_FAILED
    compared.assert_outcomes(passed=5, failed=3)
    updated.assert_outcomes(passed=5, failed=3)
    assert_printed([ELISION, *shown[0].lines, ELISION], compared.outlines)
    assert_printed([ELISION, *shown[1].lines, ELISION], updated.outlines)


# -- inside ordinary tests ----------------------------------------------------------------------

#: The page of the ``citation_verifier`` fixture, read whole.
IN_TESTS = ("Inside ordinary tests", DOCS / "in-tests.md")


@pytest.fixture
def ordinary_tests(citations: Citations) -> pytest.RunResult:
    """The tests of the page "Inside ordinary tests", recorded against the emulators, then
    replayed offline as a user's CI would."""
    blocks = code_blocks(readme_section(*IN_TESTS))
    sources = [b.text for b in blocks if b.language == "python" and "def test_" in b.text]
    pipeline = next(source for source in sources if "rag_app" in source)
    sources.remove(pipeline)  # needs the reader's own RAG application
    citations.pytester.makepyfile(test_answers="\n\n".join(sources))
    with citations.web():
        citations.run_tests("--citations-record=once")
    return citations.run_tests()


def test_a_failing_label_comparison_prints_what_its_page_shows(
    ordinary_tests: pytest.RunResult,
) -> None:
    blocks = code_blocks(readme_section(*IN_TESTS))
    shown = [
        b
        for b in blocks
        if b.language == "" and "store credit" in b.text and "of the answer" not in b.text
    ]
    assert len(shown) == 2  # the comparison and the helper

    ordinary_tests.assert_outcomes(passed=2, failed=2)
    for block in shown:
        assert_printed([ELISION, *block.lines, ELISION], ordinary_tests.outlines)


#: The assistant the page's pipeline test talks about, answering from a canned record.
RAG_APP_CONFTEST = """
import pytest

ANSWER = {
    "answer": "Refunds go to the original payment method [1]. Refunds go to store credit [1].",
    "citations": ["https://shop.example.com/policies/refunds"],
}


class App:
    def ask(self, question):
        return ANSWER


@pytest.fixture
def rag_app():
    return App()
"""


def test_an_answer_level_check_explains_every_failing_claim(citations: Citations) -> None:
    """The page's pipeline test: ``assert_answer`` names each failing claim, its label, its
    citations and quotes (``assert all(...)`` said only ``where False = all(...)``)."""
    section = readme_section(*IN_TESTS)
    blocks = code_blocks(section)
    pipeline = next(b.text for b in blocks if b.language == "python" and "rag_app" in b.text)
    shown = next(b for b in blocks if b.language == "" and "claims of the answer fail" in b.text)
    assert "Refunds go to the original payment method [1]. Refunds go to\nstore credit [1]." in (
        section
    )
    citations.pytester.makeconftest(RAG_APP_CONFTEST)
    citations.pytester.makepyfile(test_pipeline=pipeline)
    with citations.web():
        citations.run_tests("--citations-record=once")

    replayed = citations.run_tests()

    replayed.assert_outcomes(failed=1)
    assert_printed([ELISION, *shown.lines, ELISION], replayed.outlines)


def test_the_readme_block_helpers_read_elisions_strictly() -> None:
    """The comparison the other tests rely on: order, elisions and the ends all count."""
    printed = ["a", "b", "c", "=== 1 passed in 0.12s ==="]

    assert_printed(["a", ELISION, "=== 1 passed in 9.99s ==="], printed)
    assert_printed([ELISION, "b", "c", ELISION], printed)
    for wrong in (["b", ELISION], ["a", "c", ELISION], [ELISION, "c", "b", ELISION], ["a", "b"]):
        with pytest.raises(AssertionError):
            assert_printed(wrong, printed)
    text = textwrap.dedent(
        """\
        # Title
        ## One
        ```bash
        echo one
        ```
        ### Inner
        ```
        out
        ```
        ## Two
        """
    )
    assert [b.language for b in code_blocks(text)] == ["bash", ""]
    assert commands(code_blocks(text)) == ["echo one"]
