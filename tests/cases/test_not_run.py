"""No silent non-run (issue 27): ``pytest cases tests`` without ``--citations`` says, once,
at the end of the summary, that the case files it walked past were not run, with the flag
and the ``addopts`` line of the ini file the run read; the exit status stays pytest's.
Another tool's YAML is never counted, ``--citations`` and ``-p no:citations`` print nothing."""

from __future__ import annotations

import pytest
from plugin_helpers import NO_CACHE, PDF_URL, QUIET, SUPPORTED_CLAIM, Citations, single_claim_case

GOOD_CASE = single_claim_case("good", SUPPORTED_CLAIM, PDF_URL)
PASSING_TEST = "def test_ok():\n    pass\n"
FAILING_TEST = "def test_not_ok():\n    assert False\n"
CAPITALISED = f"Question: Why?\nCitations: [{PDF_URL}]\nClaims:\n  - text: x\n    cites: [1]\n"
WORKFLOW = "name: CI\non: [push]\njobs:\n  test:\n    runs-on: ubuntu-latest\n"
COMPOSE = "services:\n  web:\n    image: nginx\n"

NOTE = "citations: 3 case files in cases/, more/ were not run: pass --citations to check them"
INI_LINE = "  or make it the default in pytest.ini: addopts = --citations (under [pytest])"


def project(citations: Citations, tests: str = PASSING_TEST) -> None:
    """Case files in two folders (one in another spelling), a Python test, an ini file,
    and other tools' YAML."""
    citations.write("pytest.ini", "[pytest]\n")
    citations.write("cases/good.yaml", GOOD_CASE)
    citations.write("cases/capitalised.yaml", CAPITALISED)
    citations.write("more/other.yml", single_claim_case("other", SUPPORTED_CLAIM, PDF_URL))
    citations.write("tests/test_app.py", tests)
    citations.write("tests/workflow.yml", WORKFLOW)
    citations.write("tests/docker-compose.yml", COMPOSE)


def test_a_run_without_citations_says_once_that_the_case_files_did_not_run(
    citations: Citations,
) -> None:
    project(citations)

    result = citations.run_plain("cases", "more", "tests")

    assert result.ret == pytest.ExitCode.OK
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines([NOTE, INI_LINE, "*1 passed*"])
    assert result.stdout.str().count("were not run") == 1
    for name in ("workflow", "docker-compose"):
        assert name not in result.stdout.str()


def test_the_note_leaves_a_failing_status_as_it_is(citations: Citations) -> None:
    project(citations, tests=FAILING_TEST)

    result = citations.run_plain("cases", "more", "tests")

    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines([NOTE, INI_LINE])


def test_with_citations_there_is_no_note(citations: Citations) -> None:
    project(citations)

    result = citations.run("cases", "more", "tests", "--citations-fail-on=contradicted",
                           gate="args")

    result.assert_outcomes(passed=5, errors=1)
    assert "were not run" not in result.stdout.str()
    assert "addopts" not in result.stdout.str()


def test_without_the_plugin_there_is_no_note(citations: Citations) -> None:
    project(citations)

    result = citations.pytester.runpytest(*QUIET, *NO_CACHE, "-p", "no:citations", "cases", "tests")

    assert result.ret == pytest.ExitCode.OK
    assert "citations:" not in result.stdout.str()


def test_other_tools_yaml_alone_gets_no_note(citations: Citations) -> None:
    citations.write("tests/test_app.py", PASSING_TEST)
    citations.write(".github/workflows/ci.yml", WORKFLOW)
    citations.write("deploy/docker-compose.yml", COMPOSE)
    citations.write("deploy/values.yaml", "replicaCount: 2\nimage:\n  tag: latest\n")

    result = citations.run_plain("tests", "deploy", ".github")

    assert result.ret == pytest.ExitCode.OK
    assert "citations:" not in result.stdout.str()


def test_one_case_file_at_the_root(citations: Citations) -> None:
    citations.write("good.yaml", GOOD_CASE)
    citations.write("test_app.py", PASSING_TEST)

    result = citations.run_plain()

    result.stdout.fnmatch_lines(
        [
            "citations: 1 case file in ./ was not run: pass --citations to check it",
            "  or make it the default in a pytest.ini: addopts = --citations (under [pytest])",
        ]
    )


@pytest.mark.parametrize(
    ("name", "text", "line"),
    [
        ("pyproject.toml", "[tool.pytest.ini_options]\n",
         'in pyproject.toml: addopts = "--citations" (under [tool.pytest.ini_options])'),
        ("pyproject.toml", "[tool.pytest]\n",
         'in pyproject.toml: addopts = ["--citations"] (under [tool.pytest])'),
        ("pytest.toml", "[pytest]\n", 'in pytest.toml: addopts = ["--citations"] (under [pytest])'),
        ("tox.ini", "[pytest]\n", "in tox.ini: addopts = --citations (under [pytest])"),
        ("setup.cfg", "[tool:pytest]\n",
         "in setup.cfg: addopts = --citations (under [tool:pytest])"),
    ],
)  # fmt: skip
def test_the_note_names_the_ini_file_the_run_read(
    citations: Citations, name: str, text: str, line: str
) -> None:
    citations.write(name, text)
    citations.write("cases/good.yaml", GOOD_CASE)
    citations.write("tests/test_app.py", PASSING_TEST)

    result = citations.run_plain("cases", "tests")

    result.stdout.fnmatch_lines([f"  or make it the default {line}"])


def test_citations_files_set_without_citations_is_noted(citations: Citations) -> None:
    citations.pytester.makeini("[pytest]\ncitations_files = checks/*.yml\n")
    citations.write("tests/test_app.py", PASSING_TEST)
    # A YAML case file the glob leaves out is not a case file of this project.
    citations.write("tests/data.yaml", GOOD_CASE)

    result = citations.run_plain("tests")

    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines(
        [
            "citations: citations_files is set in tox.ini, but no case file was run: "
            "pass --citations to run them",
            "  or make it the default in tox.ini: addopts = --citations (under [pytest])",
        ]
    )


def test_under_xdist_the_note_is_printed_once(citations: Citations) -> None:
    project(citations)

    result = citations.pytester.runpytest_subprocess(
        *QUIET, *NO_CACHE, "-n", "2", "cases", "more", "tests"
    )

    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines([NOTE, INI_LINE])
    assert result.stdout.str().count("were not run") == 1
