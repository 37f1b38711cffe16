"""What ``--citations`` collects, beside the YAML of other tools (issue 8): files matching the
ini glob ``citations_files`` (default ``*.yaml *.yml``) that hold a case key; never
``mkdocs.yml`` (with its ``!!python/name:`` tags), ``docker-compose.yml`` or
``.pre-commit-config.yaml``. Turning the plugin on does not change how a broken Python test
module is handled: only case-file errors let the rest of the run go on."""

from __future__ import annotations

import pytest
from plugin_helpers import (
    PDF_URL,
    SUPPORTED_CLAIM,
    Citations,
    single_claim_case,
)

#: Needs no request (a PDF citation is decided by rule): passes offline, without a cassette.
GOOD_CASE = single_claim_case("good", SUPPORTED_CLAIM, PDF_URL)

MKDOCS = """\
site_name: Example docs
theme:
  name: material
markdown_extensions:
  - pymdownx.emoji:
      emoji_index: !!python/name:material.extensions.emoji.twemoji
      emoji_generator: !!python/name:material.extensions.emoji.to_svg
nav:
  - Home: index.md
"""
DOCKER_COMPOSE = """\
services:
  web:
    image: "nginx:1.27"
    ports: ["8080:80"]
    labels:
      - id=web
volumes:
  data: {}
"""
PRE_COMMIT = """\
repos:
  - repo: https://github.com/astral-sh/ruff-pre-commit
    rev: v0.6.0
    hooks:
      - id: ruff
      - id: ruff-format
"""
BROKEN_CASE = f"""\
id: broken
citations: [{PDF_URL}]
claims:
  - text: {SUPPORTED_CLAIM}
    cites: [3]
"""
BROKEN_MODULE = "import a_module_that_does_not_exist\n\n\ndef test_never():\n    pass\n"
GOOD_MODULE = "def test_ok():\n    pass\n"


def foreign_files(citations: Citations) -> None:
    """The YAML of other tools, at the root and in a folder."""
    citations.write("mkdocs.yml", MKDOCS)
    citations.write("docker-compose.yml", DOCKER_COMPOSE)
    citations.write(".pre-commit-config.yaml", PRE_COMMIT)
    citations.write("deploy/values.yaml", "replicaCount: 2\nimage:\n  tag: latest\n")


def test_no_path_collects_the_case_files_and_skips_other_tools_yaml(citations: Citations) -> None:
    foreign_files(citations)
    citations.write("cases/good.yaml", GOOD_CASE)

    result = citations.run("-v", gate="contradicted")

    assert result.ret == pytest.ExitCode.OK, result.stdout.str()
    result.assert_outcomes(passed=2)
    output = result.stdout.str()
    for name in ("mkdocs.yml", "docker-compose.yml", ".pre-commit-config.yaml", "values.yaml"):
        assert name not in output
    assert "error" not in output.lower()


def test_a_folder_of_other_tools_yaml_collects_nothing(citations: Citations) -> None:
    foreign_files(citations)

    result = citations.run(".", gate="default")

    assert result.ret == pytest.ExitCode.NO_TESTS_COLLECTED
    assert "error" not in result.stdout.str().lower()


def test_a_case_file_with_a_broken_yaml_line_is_still_reported(citations: Citations) -> None:
    foreign_files(citations)
    citations.write("cases/good.yaml", GOOD_CASE)
    citations.write("cases/bad.yaml", "id: bad\nclaims: [\n  - text: x\n")

    result = citations.run(gate="contradicted")

    result.assert_outcomes(errors=1, passed=2)
    result.stdout.fnmatch_lines(["*ERROR collecting cases/bad.yaml*", "cases/bad.yaml:*"])


def test_citations_files_selects_case_files_by_glob(citations: Citations) -> None:
    citations.pytester.makeini("[pytest]\ncitations_files = *.case.yaml checks/*.yml\n")
    citations.write("cases/good.case.yaml", GOOD_CASE)
    citations.write("checks/other.yml", single_claim_case("other", SUPPORTED_CLAIM, PDF_URL))
    # A valid case file that the glob leaves out is not collected.
    citations.write("cases/left-out.yaml", single_claim_case("left", SUPPORTED_CLAIM, PDF_URL))

    result = citations.run("--collect-only", "-q", gate="default")

    result.stdout.fnmatch_lines(
        [
            "cases/good.case.yaml::good::claim-1",
            "cases/good.case.yaml::good::precision",
            "checks/other.yml::other::claim-1",
            "checks/other.yml::other::precision",
            "4 tests collected*",
        ]
    )
    assert "left-out" not in result.stdout.str()


def test_a_broken_python_module_interrupts_as_without_the_plugin(citations: Citations) -> None:
    citations.pytester.makepyfile(test_broken=BROKEN_MODULE, test_fine=GOOD_MODULE)
    citations.write("cases/good.yaml", GOOD_CASE)

    plain = citations.run_plain()
    result = citations.run(gate="default")

    assert plain.ret == result.ret == pytest.ExitCode.INTERRUPTED
    plain.stdout.fnmatch_lines(["*Interrupted: 1 error during collection*"])
    result.stdout.fnmatch_lines(["*Interrupted: 1 error during collection*"])
    result.assert_outcomes(errors=1)


def test_a_broken_case_file_lets_python_tests_and_other_cases_run(citations: Citations) -> None:
    citations.pytester.makepyfile(test_fine=GOOD_MODULE)
    citations.write("cases/good.yaml", GOOD_CASE)
    citations.write("cases/broken.yaml", BROKEN_CASE)

    result = citations.run(gate="contradicted")

    result.assert_outcomes(errors=1, passed=3)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    assert "Interrupted" not in result.stdout.str()


def test_a_broken_case_file_and_a_broken_module_interrupt(citations: Citations) -> None:
    citations.pytester.makepyfile(test_broken=BROKEN_MODULE, test_fine=GOOD_MODULE)
    citations.write("cases/broken.yaml", BROKEN_CASE)

    result = citations.run(gate="default")

    assert result.ret == pytest.ExitCode.INTERRUPTED
    result.stdout.fnmatch_lines(["*Interrupted: 2 errors during collection*"])


def test_continue_on_collection_errors_given_by_the_user_is_honoured(
    citations: Citations,
) -> None:
    citations.pytester.makepyfile(test_broken=BROKEN_MODULE, test_fine=GOOD_MODULE)
    citations.write("cases/good.yaml", GOOD_CASE)

    result = citations.run("--continue-on-collection-errors", gate="contradicted")

    result.assert_outcomes(errors=1, passed=3)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
