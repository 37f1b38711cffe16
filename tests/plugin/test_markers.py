"""A case's ``tags:`` become pytest markers of its items (issue 11): ``-m smoke`` selects
them, ``pytest --markers`` lists the plugin's own marker, and under ``--strict-markers`` a tag
must be declared in the ini file's ``markers`` like any other marker."""

from __future__ import annotations

import pytest
from plugin_helpers import (
    BOILING_URL,
    CONTRADICTED_CLAIM,
    REFUNDS_CLAIM,
    REFUNDS_URL,
    SUPPORTED_CLAIM,
    Citations,
    single_claim_case,
)

SMOKE = single_claim_case("boiling", SUPPORTED_CLAIM, BOILING_URL) + "tags: [smoke, water]\n"
UNTAGGED = single_claim_case("refunds", REFUNDS_CLAIM, REFUNDS_URL)
DECLARED = "[pytest]\nmarkers =\n    smoke: quick checks\n    water: about water\n"


@pytest.fixture
def tagged(citations: Citations) -> Citations:
    """One case tagged ``smoke`` and ``water``, one without tags."""
    citations.write("cases/boiling.yaml", SMOKE)
    citations.write("cases/refunds.yaml", UNTAGGED)
    return citations


def collected(result: pytest.RunResult) -> list[str]:
    return [line for line in result.outlines if "::" in line and line.startswith("cases/")]


def test_minus_m_selects_the_items_of_tagged_cases(tagged: Citations) -> None:
    tagged.pytester.makeini(DECLARED)

    smoke = tagged.run("cases/", "--collect-only", "-q", "-m", "smoke", gate="default")
    neither = tagged.run("cases/", "--collect-only", "-q", "-m", "not water", gate="default")

    assert collected(smoke) == [
        "cases/boiling.yaml::boiling::claim-1",
        "cases/boiling.yaml::boiling::precision",
    ]
    smoke.stdout.fnmatch_lines(["*2/4 tests collected (2 deselected)*"])
    assert collected(neither) == [
        "cases/refunds.yaml::refunds::claim-1",
        "cases/refunds.yaml::refunds::precision",
    ]


def test_every_case_item_carries_the_plugins_marker(tagged: Citations) -> None:
    tagged.pytester.makeini(DECLARED)
    tagged.pytester.makepyfile(test_plain="def test_plain():\n    pass\n")

    cases = tagged.run("--collect-only", "-q", "-m", "citations", gate="default")
    python = tagged.run("--collect-only", "-q", "-m", "not citations", gate="default")

    assert len(collected(cases)) == 4
    python.stdout.fnmatch_lines(["test_plain.py::test_plain", "*1/5 tests collected*"])


def test_markers_lists_the_plugins_marker(citations: Citations) -> None:
    result = citations.run_plain("--markers")

    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines(
        ["@pytest.mark.citations: an item of a YAML case file (pytest --citations); each name "
         "in a case's 'tags:' marks its items too*"]
    )  # fmt: skip


def test_declared_tags_work_under_strict_markers(tagged: Citations) -> None:
    tagged.pytester.makeini(DECLARED)

    result = tagged.run("cases/", "--collect-only", "-q", "--strict-markers", "-m", "smoke",
                        gate="default")

    assert result.ret == pytest.ExitCode.OK
    assert len(collected(result)) == 2


# pytest remembers every marker name it has seen in a process (its MarkGenerator is global),
# and pytester runs in this one: each test below uses tags that no other run declared.


def test_an_undeclared_tag_fails_under_strict_markers_with_pytests_message(
    citations: Citations,
) -> None:
    citations.write(
        "cases/boiling.yaml",
        SMOKE.replace("[smoke, water]", "[strict_declared, strict_undeclared]"),
    )
    citations.write("cases/refunds.yaml", UNTAGGED)
    citations.pytester.makeini("[pytest]\nmarkers =\n    strict_declared: declared\n")

    result = citations.run("cases/", "--collect-only", "-q", "--strict-markers", gate="default")

    assert result.ret != pytest.ExitCode.OK
    result.stdout.fnmatch_lines(
        [
            "*ERROR collecting cases/boiling.yaml*",
            "*'strict_undeclared' not found in `markers` configuration option*",
        ]
    )
    # The other case file is collected as usual.
    assert collected(result) == [
        "cases/refunds.yaml::refunds::claim-1",
        "cases/refunds.yaml::refunds::precision",
    ]


def test_an_undeclared_tag_warns_at_its_case_file(citations: Citations) -> None:
    citations.write("cases/boiling.yaml", SMOKE.replace("[smoke, water]", "[warned_tag]"))

    result = citations.run("cases/", "--collect-only", "-q", gate="default")

    assert result.ret == pytest.ExitCode.OK
    assert len(collected(result)) == 2
    result.stdout.fnmatch_lines(
        [
            "cases/boiling.yaml:1",
            "*cases/boiling.yaml:1: PytestUnknownMarkWarning: unknown tag 'warned_tag' of the "
            "case 'boiling': declare it under 'markers' in the ini file*",
        ]
    )


# Tags that are marks with behaviour: a case file (or an application's answer log, through
# import) must never be able to skip or excuse its own checks.
CONTRADICTED = single_claim_case("mountains", CONTRADICTED_CLAIM, BOILING_URL)


@pytest.mark.parametrize("tag", ["xfail", "skip", "skipif", "usefixtures", "filterwarnings"])
def test_a_tag_naming_one_of_pytests_marks_is_a_collection_error_at_its_line(
    citations: Citations, tag: str
) -> None:
    citations.write("cases/mountains.yaml", CONTRADICTED + f"tags: [smoke, {tag}]\n")
    citations.write("cases/refunds.yaml", UNTAGGED)
    with citations.web():
        citations.record("cases/", gate="default")

    result = citations.run("cases/", gate="default")

    assert result.ret != pytest.ExitCode.OK
    result.stdout.fnmatch_lines(
        [
            "*ERROR collecting cases/mountains.yaml*",
            f"cases/mountains.yaml:7: tag {tag!r} is pytest's own {tag} mark*",
        ]
    )
    result.stdout.fnmatch_lines(
        ["Release decision: incomplete (cases/mountains.yaml: not verified (not collected: "
         f"tag {tag!r} is pytest's own {tag} mark*"]
    )  # fmt: skip
    assert "xfailed" not in result.stdout.str()
    assert "skipped" not in result.stdout.str()
    result.assert_outcomes(passed=2, errors=1)  # the other file still runs


def test_a_tag_naming_a_mark_another_plugin_registered_is_refused(citations: Citations) -> None:
    citations.write("cases/mountains.yaml", CONTRADICTED + "tags: [plugin_behaviour]\n")
    citations.pytester.makeconftest(
        "def pytest_configure(config):\n"
        "    config.addinivalue_line('markers', 'plugin_behaviour: acts on items')\n"
    )

    result = citations.run("cases/", "--collect-only", "-q", gate="default")

    assert result.ret != pytest.ExitCode.OK
    result.stdout.fnmatch_lines(
        ["cases/mountains.yaml:7: tag 'plugin_behaviour' is a mark another plugin registered*"]
    )


def test_a_case_xfailed_by_a_conftest_still_fails_the_run(citations: Citations) -> None:
    citations.write("cases/mountains.yaml", CONTRADICTED)
    citations.record("cases/", gate="default")
    citations.pytester.makeconftest(
        "import pytest\n"
        "def pytest_collection_modifyitems(items):\n"
        "    for item in items:\n"
        "        item.add_marker(pytest.mark.xfail(reason='hides a failing claim'))\n"
    )

    result = citations.run("cases/", gate="default")

    result.stdout.fnmatch_lines(["Release decision: fail*"])
    assert result.ret == pytest.ExitCode.TESTS_FAILED


def test_a_case_skipped_by_a_conftest_is_incomplete_not_a_pass(citations: Citations) -> None:
    citations.write("cases/mountains.yaml", CONTRADICTED)
    citations.write("cases/refunds.yaml", UNTAGGED)
    citations.record("cases/", gate="default")
    # A user's conftest that skips a failing claim: what this test proves is that such a skip
    # leaves the run incomplete rather than passing it.
    citations.pytester.makeconftest(
        "import pytest\n"
        "def pytest_collection_modifyitems(items):\n"
        "    for item in items:\n"
        "        if 'mountains' in item.nodeid:\n"
        "            item.add_marker(pytest.mark.skip(reason='hides a failing claim'))\n"
    )

    result = citations.run("cases/", gate="default")

    result.stdout.fnmatch_lines(
        ["Release decision: incomplete (2 case items did not run "
         "(cases/mountains.yaml::mountains::claim-1 was skipped))"]
    )  # fmt: skip
    assert result.ret == pytest.ExitCode.TESTS_FAILED


def test_the_summary_says_how_many_cases_a_selection_left_out(tagged: Citations) -> None:
    tagged.pytester.makeini(DECLARED)
    tagged.record("cases/", gate="default")

    result = tagged.run("cases/", "-m", "smoke", gate="default")

    result.stdout.fnmatch_lines(
        ["the selection (-m, -k, --deselect) left out 1 case (1 claim): the decision above "
         "does not cover them"]
    )  # fmt: skip
    assert result.ret == pytest.ExitCode.OK
