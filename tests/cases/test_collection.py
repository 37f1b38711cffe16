"""``--citations`` collection: what becomes a test item, under which node id, and what never
does (anything without the option, cassette files)."""

from __future__ import annotations

import pytest
from plugin_helpers import (
    BOILING_CASE,
    BOILING_URL,
    SUPPORTED_CLAIM,
    Citations,
    single_claim_case,
)


def test_without_the_option_nothing_is_collected_and_nothing_is_sent(
    citations: Citations,
) -> None:
    citations.write("cases/boiling.yaml", BOILING_CASE)
    citations.write("cases/other.yml", single_claim_case("other", SUPPORTED_CLAIM, BOILING_URL))
    with citations.web() as web:
        result = citations.run_plain("cases/", "--citations-record=all")

    assert result.ret == pytest.ExitCode.NO_TESTS_COLLECTED
    assert web.requests == 0
    # No header and no summary: only the note that the case files did not run (issue 27).
    said = [line for line in result.outlines if line.startswith("citations:")]
    assert said == [
        "citations: 2 case files in cases/ were not run: pass --citations to check them"
    ]
    assert not list((citations.path / "cassettes").rglob("*.yaml"))  # none written


def test_without_the_option_an_ordinary_suite_runs_unchanged(citations: Citations) -> None:
    citations.write("cases/boiling.yaml", BOILING_CASE)
    citations.pytester.makepyfile(test_ordinary="def test_ok():\n    assert True\n")
    with citations.web() as web:
        result = citations.run_plain("-v")

    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["*test_ordinary.py::test_ok PASSED*"])
    said = [line for line in result.outlines if line.startswith("citations:")]
    assert said == ["citations: 1 case file in cases/ was not run: pass --citations to check it"]
    assert result.ret == pytest.ExitCode.OK
    assert web.requests == 0


def test_node_ids_name_file_case_and_claim(citations: Citations) -> None:
    citations.write("cases/boiling.yaml", BOILING_CASE)

    result = citations.run("--collect-only", "-q", "cases/", gate="default")

    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines(
        [
            "cases/boiling.yaml::boiling-point::claim-1",
            "cases/boiling.yaml::boiling-point::claim-2",
            "cases/boiling.yaml::boiling-point::precision",
            "3 tests collected*",
        ]
    )


def test_collect_only_lists_each_claim_and_sends_nothing(citations: Citations) -> None:
    citations.write("cases/boiling.yaml", BOILING_CASE)
    with citations.web() as web:
        result = citations.run("--collect-only", "cases/", "--citations-record=all", gate="default")

    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines(
        [
            "*<CaseFile boiling.yaml>",
            "*<CaseNode boiling-point>",
            "*<ClaimItem claim-1*",
            "*<ClaimItem claim-2*",
            "*<PrecisionItem precision>",
        ]
    )
    assert web.requests == 0


def test_yaml_and_yml_under_several_paths(citations: Citations) -> None:
    citations.write("cases/a.yaml", single_claim_case("a", SUPPORTED_CLAIM, BOILING_URL))
    citations.write("more/deep/b.yml", single_claim_case("b", SUPPORTED_CLAIM, BOILING_URL))
    citations.write("ignored/c.yaml", single_claim_case("c", SUPPORTED_CLAIM, BOILING_URL))
    citations.write("cases/notes.txt", "not a case file")

    result = citations.run("--collect-only", "-q", "cases", "more", gate="default")

    result.stdout.fnmatch_lines(
        [
            "cases/a.yaml::a::claim-1",
            "cases/a.yaml::a::precision",
            "more/deep/b.yml::b::claim-1",
            "more/deep/b.yml::b::precision",
            "4 tests collected*",
        ]
    )
    assert "ignored/c.yaml" not in result.stdout.str()


def test_default_ids_come_from_the_file_name_and_position(citations: Citations) -> None:
    citations.write(
        "cases/water-facts.yaml",
        f"""\
        citations: [{BOILING_URL}]
        claims:
          - text: {SUPPORTED_CLAIM}
            cites: [1]
        """,
    )
    citations.write(
        "cases/several.yaml",
        f"""\
        cases:
          - citations: [{BOILING_URL}]
            claims: [{{text: {SUPPORTED_CLAIM}, cites: [1]}}]
          - id: named
            citations: [{BOILING_URL}]
            claims: [{{text: {SUPPORTED_CLAIM}, cites: [1]}}]
          - citations: [{BOILING_URL}]
            claims:
              - {{text: {SUPPORTED_CLAIM}, cites: [1]}}
              - {{text: Water boils., cites: ["{BOILING_URL}"]}}
        """,
    )

    result = citations.run("--collect-only", "-q", "cases/", gate="default")

    result.stdout.fnmatch_lines(
        [
            "cases/several.yaml::several-1::claim-1",
            "cases/several.yaml::several-1::precision",
            "cases/several.yaml::named::claim-1",
            "cases/several.yaml::named::precision",
            "cases/several.yaml::several-3::claim-1",
            "cases/several.yaml::several-3::claim-2",
            "cases/several.yaml::several-3::precision",
            "cases/water-facts.yaml::water-facts::claim-1",
            "cases/water-facts.yaml::water-facts::precision",
        ]
    )


def test_cassettes_are_never_collected_whatever_paths_are_given(citations: Citations) -> None:
    citations.write("cases/boiling.yaml", BOILING_CASE)
    recorded, _ = citations.record("cases/", gate="default")
    recorded.assert_outcomes(passed=2, failed=1)
    assert citations.cassette("cases/boiling.yaml").is_file()
    # A cassette-shaped file outside the cassette folder is not a case either.
    citations.write(
        "fixtures/recorded.yaml",
        citations.cassette("cases/boiling.yaml").read_text(encoding="utf-8"),
    )

    listed = citations.run("--collect-only", "-q", "cassettes", "fixtures", gate="default")
    everything = citations.run(".", gate="default")

    assert listed.ret == pytest.ExitCode.NO_TESTS_COLLECTED
    assert "error" not in listed.stdout.str().lower()
    everything.assert_outcomes(passed=2, failed=1)
    assert "cassettes/cases/boiling.yaml::" not in everything.stdout.str()
    assert "fixtures/recorded.yaml" not in everything.stdout.str()


def test_files_in_a_custom_cassette_folder_are_not_collected(citations: Citations) -> None:
    citations.pytester.makeini("[pytest]\ncitations_cassette_dir = recordings\n")
    # Even a valid case file is not collected inside the cassette folder.
    citations.write("recordings/stray.yaml", BOILING_CASE)
    citations.write("cases/boiling.yaml", BOILING_CASE)

    result = citations.run("--collect-only", "-q", ".", gate="default")

    result.stdout.fnmatch_lines(["cases/boiling.yaml::boiling-point::claim-1", "3 tests*"])
    assert "stray" not in result.stdout.str()
