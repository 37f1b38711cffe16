"""GitHub workflow commands: escaped as GitHub's toolkit escapes them, so that no text of a
page or a case file ends a command early or starts another; a warning per regression that
does not fail the gate, from whatever comparison yields them."""

from __future__ import annotations

from dataclasses import dataclass

from pytest_citations.reports.github import (
    MAX_MESSAGE,
    Annotation,
    escape_data,
    escape_property,
    regression_annotations,
)


def test_the_message_escapes_percent_and_line_breaks() -> None:
    assert escape_data("50% of\r\nthe page") == "50%25 of%0D%0Athe page"
    assert escape_data("%0A") == "%250A"  # an escape in the text stays text


def test_a_property_also_escapes_colon_and_comma() -> None:
    assert escape_property("a:b,c%\n") == "a%3Ab%2Cc%25%0A"


def test_a_command_is_one_line_with_its_properties_escaped() -> None:
    annotation = Annotation(
        "error", "cases/a,b.yaml", 12, "citations: x::claim-1", "first\nsecond ::error::no"
    )

    command = annotation.command()

    assert command == (
        "::error file=cases/a%2Cb.yaml,line=12,title=citations%3A x%3A%3Aclaim-1"
        "::first%0Asecond ::error::no"
    )
    assert "\n" not in command


def test_a_command_without_a_line_points_at_the_file() -> None:
    assert Annotation("error", "cases/a.yaml", 0, "t", "m").command() == (
        "::error file=cases/a.yaml,title=t::m"
    )


def test_control_sequences_are_dropped_and_a_long_message_is_cut() -> None:
    hostile = ("\x1b]8;;https://x\x07" + "y" * 10) * 500  # 5000 characters shown
    annotation = Annotation("error", "a.yaml", 1, "t\x1b[31m", hostile)

    command = annotation.command()

    assert "\x1b" not in command
    assert "\x07" not in command
    message = command.split("::", 2)[2]
    assert message == "y" * (MAX_MESSAGE - 1) + "…"


@dataclass(frozen=True)
class Found:
    """A regression as a comparison might yield it."""

    nodeid: str
    line: int
    summary: str
    fails: bool


def test_a_regression_that_does_not_fail_the_gate_is_a_warning_at_its_claim() -> None:
    regressions = [
        Found("cases/a.yaml::case::claim-2", 9, "supported → partial", fails=False),
        Found("cases/a.yaml::case::claim-3", 12, "supported → contradicted", fails=True),
    ]

    found = regression_annotations(regressions, lambda path: f"repo/{path}")

    assert found == [
        Annotation(
            "warning",
            "repo/cases/a.yaml",
            9,
            "citations: case::claim-2 regressed against the base",
            "supported → partial",
        )
    ]
