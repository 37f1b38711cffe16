"""The option table (issue 9): every flag has an ini key of the same name, the precedence is
command line > environment > ini, and renamed ini keys keep working with a warning."""

from __future__ import annotations

import pytest
from plugin_helpers import BOILING_CASE, Citations

from pytest_citations.plugin.option_table import OPTIONS


def test_every_flag_has_an_ini_key_of_the_same_name() -> None:
    for option in OPTIONS:
        assert option.key == "citations_" + option.flag_name.removeprefix("--citations-").replace(
            "-", "_"
        )
    flags = {option.name for option in OPTIONS if option.flag}
    assert {"report", "html", "csv", "embedder", "audit", "record"} <= flags
    assert all(option.ini for option in OPTIONS if option.name in ("report", "html", "csv"))


@pytest.mark.parametrize(
    ("old", "new", "value", "shown"),
    [
        ("citations_embedding_model", "citations_embedder", "lexical", "embedder=lexical"),
        ("citations_record_mode", "citations_record", "none", "record=none"),
        # Issue 25: "budget" also named the spending caps; the words the judge is shown
        # are the evidence words now.
        ("citations_budget", "citations_evidence_words", "300", "evidence_words=300"),
    ],
)
def test_an_old_ini_name_still_works_with_a_deprecation_warning(
    citations: Citations, old: str, new: str, value: str, shown: str
) -> None:
    citations.write("cases/boiling.yaml", BOILING_CASE)
    citations.write("pytest.ini", f"[pytest]\n{old} = {value}\n")

    result = citations.pytester.runpytest("--citations", "-p", "no:cacheprovider", "cases/",
                                          "--co")  # fmt: skip

    result.stdout.fnmatch_lines([f"*{shown}*", f"*{old} is deprecated; use {new}*"])


def test_the_old_budget_flag_still_works_with_a_deprecation_warning(
    citations: Citations,
) -> None:
    """Issue 25: ``--citations-budget`` is ``--citations-evidence-words`` for a release, and
    says so in the run's warnings summary; the new flag wins where both are given."""
    citations.write("cases/boiling.yaml", BOILING_CASE)

    old = citations.run("cases/", "--co", "--citations-budget", "300", gate="default")
    both = citations.run(
        "cases/", "--co", "--citations-budget", "300", "--citations-evidence-words", "400",
        gate="default"
    )
    new = citations.run("cases/", "--co", "--citations-evidence-words", "300", gate="default")

    old.stdout.fnmatch_lines(
        [
            "citations: * evidence_words=300*",
            "*warnings summary*",
            "*PytestDeprecationWarning: --citations-budget is deprecated; use "
            "--citations-evidence-words*",
        ]
    )
    both.stdout.fnmatch_lines(
        ["citations: * evidence_words=400*", "*--citations-budget is deprecated*"]
    )
    assert "deprecated" not in new.stdout.str()
    new.stdout.fnmatch_lines(["citations: * evidence_words=300*"])


def test_the_new_ini_name_needs_no_warning(citations: Citations) -> None:
    citations.write("cases/boiling.yaml", BOILING_CASE)
    citations.write(
        "pytest.ini", "[pytest]\ncitations_embedder = lexical\ncitations_audit = a.db\n"
    )

    result = citations.pytester.runpytest("--citations", "-p", "no:cacheprovider", "cases/",
                                          "--co")  # fmt: skip

    result.stdout.fnmatch_lines(["*embedder=lexical*"])
    assert "deprecated" not in result.stdout.str()


def test_the_command_line_wins_over_the_environment_and_the_ini_file(
    citations: Citations,
) -> None:
    citations.write("cases/boiling.yaml", BOILING_CASE)
    citations.write("pytest.ini", "[pytest]\ncitations_concurrency = 3\n")
    citations.monkeypatch.setenv("BATCH_CONCURRENCY", "5")

    from_env = citations.run("cases/", "--co", gate="default")
    from_flag = citations.run("cases/", "--co", "--citations-concurrency", "7", gate="default")
    citations.monkeypatch.delenv("BATCH_CONCURRENCY")
    from_ini = citations.run("cases/", "--co", gate="default")

    from_env.stdout.fnmatch_lines(["*concurrency=5*"])
    from_flag.stdout.fnmatch_lines(["*concurrency=7*"])
    from_ini.stdout.fnmatch_lines(["*concurrency=3*"])
