"""``--citations-fail-on`` / ini ``citations_fail_on``: which claim labels fail a claim item."""

from __future__ import annotations

import pytest
from plugin_helpers import (
    BOILING_CASE,
    RETURNS_CASE,
    Citations,
)

BOILING_CONTRADICTED = "cases/boiling.yaml::boiling-point::claim-2"
RETURNS_PARTIAL = "cases/returns.yaml::returns-policy::claim-1"
RETURNS_NOT_FOUND = "cases/returns.yaml::returns-policy::claim-3"
#: The header's words for the default gate: every label but supported (and uncited, which
#: the uncited-claim rule decides).
DEFAULT_HEADER = "*fail_on=contradicted,partial,not_found,misattributed,unreachable*"
#: The claims of both cases whose labels the default fails (partial, not_found, contradicted).
DEFAULT_FAILED = {BOILING_CONTRADICTED, RETURNS_PARTIAL, RETURNS_NOT_FOUND}


@pytest.fixture
def recorded(citations: Citations) -> Citations:
    """Boiling (supported, contradicted) and returns (partial, supported, not_found) cases,
    recorded with ``contradicted`` alone failing; the emulators are gone."""
    citations.write("cases/boiling.yaml", BOILING_CASE)
    citations.write("cases/returns.yaml", RETURNS_CASE)
    result, _ = citations.record("cases/", gate="contradicted")
    result.assert_outcomes(passed=6, failed=1)
    result.stdout.fnmatch_lines([f"FAILED {BOILING_CONTRADICTED} - *"])
    return citations


def failed_nodeids(result: pytest.RunResult) -> set[str]:
    """Node ids of the FAILED lines of the short summary (``-rf``)."""
    return {
        line.split()[1]
        for line in result.outlines
        if line.startswith("FAILED ") and "::" in line.split()[1]
    }


def test_default_fails_every_label_but_supported(recorded: Citations) -> None:
    result = recorded.run("cases/", "-rf", gate="default")

    result.assert_outcomes(passed=4, failed=3)
    assert failed_nodeids(result) == DEFAULT_FAILED
    result.stdout.fnmatch_lines(
        [
            DEFAULT_HEADER,
            "claim is partial (failing labels: contradicted, partial, not_found, misattributed,"
            " unreachable)",
        ]
    )


def test_contradicted_alone_is_an_explicit_choice(recorded: Citations) -> None:
    result = recorded.run("cases/", "-rf", "--citations-fail-on=contradicted", gate="args")

    result.assert_outcomes(passed=6, failed=1)
    assert failed_nodeids(result) == {BOILING_CONTRADICTED}
    result.stdout.re_match_lines([r"citations: .* fail_on=contradicted( |$)"])


def test_option_chooses_the_failing_labels(recorded: Citations) -> None:
    result = recorded.run("cases/", "-rf", "--citations-fail-on", "partial", gate="args")

    assert failed_nodeids(result) == {RETURNS_PARTIAL}
    result.stdout.fnmatch_lines(
        ["*fail_on=partial*", "claim is partial (failing labels: partial)", "label: partial"]
    )


def test_option_takes_a_comma_separated_list(recorded: Citations) -> None:
    result = recorded.run(
        "cases/", "-rf", "--citations-fail-on=contradicted,partial,not_found", gate="args"
    )

    result.assert_outcomes(passed=4, failed=3)
    assert failed_nodeids(result) == {BOILING_CONTRADICTED, RETURNS_PARTIAL, RETURNS_NOT_FOUND}
    result.stdout.fnmatch_lines(
        ["claim is not_found (failing labels: contradicted, partial, not_found)"]
    )


@pytest.mark.parametrize(
    "ini_value", ["contradicted partial not_found", "contradicted,partial,not_found"]
)
def test_ini_chooses_the_failing_labels(recorded: Citations, ini_value: str) -> None:
    recorded.pytester.makeini(f"[pytest]\ncitations_fail_on = {ini_value}\n")

    result = recorded.run("cases/", "-rf", gate="ini")

    assert result.ret == pytest.ExitCode.TESTS_FAILED
    assert failed_nodeids(result) == {BOILING_CONTRADICTED, RETURNS_PARTIAL, RETURNS_NOT_FOUND}
    result.stdout.fnmatch_lines(["*fail_on=contradicted,partial,not_found*"])


def test_command_line_wins_over_ini(recorded: Citations) -> None:
    recorded.pytester.makepyprojecttoml(
        '[tool.pytest.ini_options]\ncitations_fail_on = ["partial", "not_found"]\n'
    )

    from_ini = recorded.run("cases/", "-rf", gate="ini")
    from_option = recorded.run("cases/", "-rf", "--citations-fail-on", "contradicted", gate="args")

    assert failed_nodeids(from_ini) == {RETURNS_PARTIAL, RETURNS_NOT_FOUND}
    assert failed_nodeids(from_option) == {BOILING_CONTRADICTED}


def test_unknown_label_is_a_usage_error(citations: Citations) -> None:
    citations.write("cases/boiling.yaml", BOILING_CASE)

    result = citations.run("cases/", "--citations-fail-on", "contradicted,wrong", gate="args")

    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*unknown label 'wrong'*"])


@pytest.mark.parametrize(
    ("args", "ini", "gate"),
    [
        (("--citations-fail-on=,",), None, "args"),
        (("--citations-fail-on", " , "), None, "args"),
        ((), "citations_fail_on = ,", "ini"),
    ],
    ids=["comma", "blank", "ini"],
)
def test_an_empty_list_of_labels_is_a_usage_error(
    citations: Citations, args: tuple[str, ...], ini: str | None, gate: str
) -> None:
    """An empty list fails nothing: one comma would turn the gate off."""
    citations.write("cases/boiling.yaml", BOILING_CASE)
    if ini:
        citations.pytester.makeini(f"[pytest]\n{ini}\n")

    result = citations.run("cases/", *args, gate=gate)

    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["*--citations-fail-on names no label; name at least one of contradicted, misattributed, *"]
    )


def test_an_empty_option_value_means_the_default(recorded: Citations) -> None:
    result = recorded.run("cases/", "--citations-fail-on=", gate="args")

    result.stdout.fnmatch_lines([DEFAULT_HEADER])
    assert failed_nodeids(result) == DEFAULT_FAILED
