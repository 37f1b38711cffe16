"""Under GitHub Actions (``GITHUB_ACTIONS=true``) the run prints an ``::error`` workflow
command at the case file and line of every item that failed or could not be checked, and of
every problem of a case file that could not be collected; GitHub shows them on the pull
request's diff. Nothing of it without GitHub, the same under xdist."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
from plugin_helpers import BOILING_CASE, RETURNS_CASE, Citations
from test_examples import run_examples
from test_readme import DOCS, assert_printed, code_blocks, readme_section

#: Two problems of a case file that cannot be collected, at lines 4 and 6.
BROKEN = """\
id: broken
citations:
  1: https://example.org/x
claims:
  - text: The first claim cites a marker that does not exist.
    cites: [9]
  - cites: [1]
"""
#: The gate these scenarios were written for (only a contradicted claim fails), chosen
#: explicitly: the default also fails partial, not_found, misattributed and unreachable.
LENIENT_INI = "[pytest]\ncitations_fail_on = contradicted\n"
COMMAND = re.compile(r"^::(error|warning|notice) (.*?)::(.*)$")


def annotations(result: pytest.RunResult) -> list[tuple[str, dict[str, str], str]]:
    """(level, properties, message) of every workflow command printed, in order; the
    properties and the message decoded as GitHub decodes them."""
    found = []
    for line in result.outlines:
        match = COMMAND.match(line)
        if match:
            properties = dict(part.split("=", 1) for part in match[2].split(","))
            found.append(
                (match[1], {k: decode(v) for k, v in properties.items()}, decode(match[3]))
            )
    return found


def decode(text: str) -> str:
    for escaped, plain in (("%0D", "\r"), ("%0A", "\n"), ("%3A", ":"), ("%2C", ","), ("%25", "%")):
        text = text.replace(escaped, plain)
    return text


@pytest.fixture
def project(citations: Citations) -> Citations:
    """The boiling and returns cases recorded; then one claim of returns.yaml rephrased (its
    judge call is not in the recording) and a broken case file added."""
    citations.write("pytest.ini", LENIENT_INI)
    citations.write("cases/boiling.yaml", BOILING_CASE)
    citations.write("cases/returns.yaml", RETURNS_CASE)
    citations.record("cases/", gate="ini")
    citations.write("cases/returns.yaml", RETURNS_CASE.replace("Refunds go", "Refunds went"))
    citations.write("cases/broken.yaml", BROKEN)
    citations.monkeypatch.setenv("GITHUB_ACTIONS", "true")
    return citations


@pytest.mark.parametrize("workers", ["0", "2"])
def test_every_failed_and_unchecked_item_gets_an_error_at_its_line(
    project: Citations, workers: str
) -> None:
    result = project.run("cases/", "-n", workers, gate="ini")

    result.assert_outcomes(passed=5, failed=1, errors=2)  # the broken file, the claim
    found = annotations(result)
    where = [(level, p["file"], p.get("line"), p["title"]) for level, p, _ in found]
    assert where == [
        ("error", "cases/boiling.yaml", "10", "citations: boiling-point::claim-2 failed "
         "(contradicted)"),
        ("error", "cases/broken.yaml", "6", "citations: case file not collected"),
        ("error", "cases/broken.yaml", "7", "citations: case file not collected"),
        ("error", "cases/returns.yaml", "9", "citations: returns-policy::claim-2 could not "
         "be checked"),
    ]  # fmt: skip
    lines = project.path.joinpath("cases/returns.yaml").read_text(encoding="utf-8").splitlines()
    assert lines[9 - 1] == "  - text: Refunds went to the original payment method."
    messages = [message for _, _, message in found]
    # Each says what the item says: the failing label, each problem, the unchecked citation.
    assert messages[0].startswith("claim is contradicted (failing labels: contradicted)\n")
    assert "claim: On mountains water boils at 50 °C." in messages[0]
    assert "cites [9]" in messages[1]
    assert "request_refused" in messages[3]
    assert "--citations-record=new_episodes" in messages[3]


def test_xdist_prints_the_same_annotations_as_a_serial_run(project: Citations) -> None:
    serial = [line for line in project.run("cases/", gate="ini").outlines if line.startswith("::")]
    parallel = [line for line in project.run("cases/", "-n", "2",
                                             gate="ini").outlines if line.startswith("::")]

    assert len(serial) == 4
    assert parallel == serial


def test_a_case_that_misses_its_threshold_and_a_file_not_verified_are_annotated(
    project: Citations,
) -> None:
    # A damaged cassette: no item of its file can be checked. A precision below the
    # threshold fails the case's precision item, at the case's first line.
    project.cassette("cases/returns.yaml").write_text("interactions: [\n", encoding="utf-8")
    project.write("cases/broken.yaml", "")

    result = project.run("cases/", "--citations-min-precision=0.5", gate="ini")

    found = [(p["file"], p.get("line"), p["title"]) for _, p, _ in annotations(result)]
    assert ("cases/boiling.yaml", "1", "citations: boiling-point::precision failed") in found
    unverified = [(f, line) for f, line, title in found if "was not verified" in title]
    assert unverified == [("cases/returns.yaml", line) for line in ("1", "7", "9", "11")]


def test_paths_are_relative_to_the_github_workspace(project: Citations) -> None:
    # The project is a folder of the repository GitHub checked out.
    project.monkeypatch.setenv("GITHUB_WORKSPACE", str(project.path.parent))

    result = project.run("cases/boiling.yaml", gate="ini")

    [(_, properties, _)] = annotations(result)
    assert properties["file"] == f"{project.path.name}/cases/boiling.yaml"


def test_nothing_is_printed_outside_github_actions(project: Citations) -> None:
    project.monkeypatch.setenv("GITHUB_ACTIONS", "false")

    result = project.run("cases/", gate="ini")

    result.assert_outcomes(passed=5, failed=1, errors=2)
    assert annotations(result) == []
    assert not any(line.startswith("::") for line in result.outlines)


#: A claim whose text holds the command syntax, a percent sign, a comma and a newline.
HOSTILE_CLAIM = "Water boils at 50% less,\n::error file=x.py,line=1::pwned"


def test_text_from_a_case_file_cannot_end_the_command_or_start_another(
    citations: Citations,
) -> None:
    # The claim is not found on the page, which fails it.
    citations.write(
        "cases/odd.yaml",
        """\
        id: "odd:case,1"
        citations:
          1: https://example.org/physics/boiling
        claims:
          - text: "Water boils at 50% less,\\n::error file=x.py,line=1::pwned"
            cites: [1]
        """,
    )
    with citations.web():
        citations.monkeypatch.setenv("GITHUB_ACTIONS", "true")
        result = citations.run("cases/", "--citations-record=once", "--citations-fail-on=not_found",
                               gate="args")

    result.assert_outcomes(passed=1, failed=1)
    commands = [line for line in result.outlines if line.startswith("::")]
    assert len(commands) == 1, commands
    [(_, properties, message)] = annotations(result)
    assert properties["title"] == "citations: odd-case-1::claim-1 failed (not_found)"
    assert properties["file"] == "cases/odd.yaml"
    # The claim's own newline became a space (a claim is one line); the message's newlines
    # and the percent sign came through GitHub's escapes.
    assert f"claim: {' '.join(HOSTILE_CLAIM.split())}\nlabel: not_found" in message


def test_the_ci_gate_page_shows_what_the_shipped_gate_prints_under_github_actions(
    tmp_path: Path,
) -> None:
    """The CI gate page's "Results on GitHub": the command it names, run on the examples as a
    GitHub step runs it, prints the annotations and writes the job summary it shows."""
    section = readme_section("Results on GitHub", DOCS / "ci-gate.md")
    [command] = re.findall(r"^`(pytest --citations .*)`$", section, re.MULTILINE)
    summary = tmp_path / "step-summary.md"
    github = {"GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": str(summary)}

    result, web = run_examples(tmp_path / "repo", *shlex.split(command)[1:], env_extra=github)

    assert result.ret == pytest.ExitCode.TESTS_FAILED  # the examples fail on purpose
    assert web.requests == 0  # a replay: no request
    blocks = code_blocks(section)
    [printed] = [block for block in blocks if not block.language]
    [markdown] = [block for block in blocks if block.language == "markdown"]
    assert_printed(printed.lines, result.outlines)
    assert len([line for line in result.outlines if line.startswith("::error ")]) == 5
    assert summary.read_text(encoding="utf-8") == markdown.text
