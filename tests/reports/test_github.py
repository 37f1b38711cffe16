"""GitHub workflow commands: escaped as GitHub's toolkit escapes them, so that no text of a
page or a case file ends a command early or starts another; and the annotations of a run,
read from its result: an error at each claim that fails or could not be checked, at each
case that misses a threshold, at each problem of a case file not collected and each item of
one not verified, and a warning per regression that does not fail the gate (an error for
one that does)."""

from __future__ import annotations

from tree_helpers import LENIENT, cited, claim, run_of

from pytest_citations.gating.build import Findings
from pytest_citations.gating.comparison import CaseState, ClaimState
from pytest_citations.gating.precision import Precision
from pytest_citations.gating.result import CaseInfo, Location
from pytest_citations.gating.run_result import Base, FileError
from pytest_citations.labels import Label, Reason
from pytest_citations.reports.github import (
    MAX_MESSAGE,
    Annotation,
    annotations_of,
    escape_data,
    escape_property,
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


CASE = CaseInfo("cases/a.yaml", "case", line=1)
URL = "https://example.org/a"


def _base(*labels: str) -> Base:
    """A base in which claim ``n`` of the case had the ``n``-th label."""
    stored = tuple(
        ClaimState(Location(CASE.file, CASE.case, f"claim-{n}"), f"Claim {n}.", label, None)
        for n, label in enumerate(labels, start=1)
    )
    return Base((CaseState(CASE.file, CASE.case, None, stored, Precision(1, 1, 1)),), "b.json")


def test_each_claim_that_fails_or_could_not_be_checked_is_an_error_at_its_line() -> None:
    result = run_of([
        (CASE, claim(CASE, 1, "Claim 1.", cited(URL, Label.SUPPORTED))),
        (CASE, claim(CASE, 2, "Claim 2.", cited(URL, Label.CONTRADICTED))),
        (CASE, claim(CASE, 3, "Claim 3.", cited(URL, Label.NOT_FOUND, Reason.JUDGE_ERROR))),
    ])  # fmt: skip

    found = annotations_of(result, lambda path: f"repo/{path}")

    assert [(a.level, a.file, a.line, a.title) for a in found] == [
        ("error", "repo/cases/a.yaml", 8, "citations: case::claim-2 failed (contradicted)"),
        ("error", "repo/cases/a.yaml", 10, "citations: case::claim-3 could not be checked"),
    ]
    assert found[0].message.startswith("claim is contradicted (failing labels: contradicted)\n")
    assert found[1].message.startswith("claim could not be checked: 1 of 1 citations unchecked")
    assert "label:" not in found[1].message  # it has no label


def test_a_case_below_its_threshold_and_the_files_that_could_not_be_checked() -> None:
    found_ = Findings()
    problems = ((4, "cites [9]"), (6, "no text"))
    found_.add_file_error(FileError("cases/b.yaml", "cites [9]", problems=problems))
    broken = Location("cases/c.yaml", "c", "claim-1", 7, 1)
    damaged = FileError("cases/c.yaml", "damaged", True, message="damaged", items=(broken,))
    found_.add_file_error(damaged)
    claims = [(CASE, claim(CASE, 1, "Claim 1.", cited(URL, Label.NOT_FOUND)))]

    result = run_of(claims, found=found_, rules=LENIENT.merged({"min_precision": 0.5}))

    found = [(a.file, a.line, a.title) for a in annotations_of(result, str)]
    assert found == [
        ("cases/a.yaml", 1, "citations: case::precision failed"),
        ("cases/b.yaml", 4, "citations: case file not collected"),
        ("cases/b.yaml", 6, "citations: case file not collected"),
        ("cases/c.yaml", 7, "citations: c::claim-1 could not be checked (its case file was not "
                            "verified)"),
    ]  # fmt: skip


def test_a_regression_is_a_warning_unless_it_fails_the_gate() -> None:
    """A regression that failed the gate (``--citations-fail-on-regression``) while its
    claim passed got no annotation at all: whether it fails is now decided once, on it."""
    partial = [(CASE, claim(CASE, 1, "Claim 1.", cited(URL, Label.PARTIAL)))]
    base = _base("supported")
    title = "citations: case::claim-1 regressed against the base"

    shown = annotations_of(run_of(partial, base=base), str)
    gated = annotations_of(run_of(partial, base=base, fail_on_regression=True), str)

    assert shown == [Annotation("warning", "cases/a.yaml", 6, title, "supported → partial")]
    assert gated == [Annotation("error", "cases/a.yaml", 6, title, "supported → partial")]
    # A claim that fails on its own says so in its own error; its regression adds nothing.
    failing = [(CASE, claim(CASE, 1, "Claim 1.", cited(URL, Label.CONTRADICTED)))]
    [own] = annotations_of(run_of(failing, base=base), str)
    assert own.title == "citations: case::claim-1 failed (contradicted)"
