"""A broken case file is a collection error naming file, line and problem; the other case
files still run, and the run fails."""

from __future__ import annotations

import pytest
from plugin_helpers import (
    BOILING_URL,
    PDF_URL,
    SUPPORTED_CLAIM,
    Citations,
    single_claim_case,
)

#: A case file that needs no request at all (a PDF citation is decided by rule), so it runs
#: offline without a cassette: its claim comes out not_found and passes.
GOOD_CASE = single_claim_case("good", SUPPORTED_CLAIM, PDF_URL)

BAD_FILES = {
    "unknown key": (
        f"""\
        id: bad
        citations:
          1: {BOILING_URL}
        claims:
          - text: {SUPPORTED_CLAIM}
            cites: [1]
        colour: blue
        """,
        "cases/bad.yaml:7: unknown key 'colour' (allowed: *)",
    ),
    "unknown marker": (
        f"""\
        id: bad
        citations:
          1: {BOILING_URL}
          2: {PDF_URL}
        claims:
          - text: {SUPPORTED_CLAIM}
            cites: [1]
          - text: Water boils.
            cites: [2, 3]
        """,
        "cases/bad.yaml:9: claim 2 cites [3], which is not in 'citations' (known: [1], [2])",
    ),
    "empty claim": (
        f"""\
        id: bad
        citations:
          1: {BOILING_URL}
        claims:
          - text: {SUPPORTED_CLAIM}
            cites: [1]
          - text: "   "
            cites: [1]
        """,
        "cases/bad.yaml:7: claim 2 has an empty text",
    ),
    "non-http URL": (
        f"""\
        id: bad
        citations:
          1: {BOILING_URL}
          2: ftp://example.org/physics/boiling.txt
        claims:
          - text: {SUPPORTED_CLAIM}
            cites: [1, 2]
        """,
        "cases/bad.yaml:4: citation [[]2[]] is not an http(s) URL: 'ftp://example.org/*'",
    ),
    "broken YAML": (
        f"""\
        id: bad
        citations:
          1: {BOILING_URL}
        claims:
          - text: [{SUPPORTED_CLAIM}
            cites: [1]
        """,
        "cases/bad.yaml:6: invalid YAML: *",
    ),
    "duplicate key": (
        f"""\
        id: bad
        question: At what temperature does water boil?
        citations:
          1: {BOILING_URL}
        question: Why does water boil?
        claims:
          - text: {SUPPORTED_CLAIM}
            cites: [1]
        """,
        "cases/bad.yaml:5: duplicate key 'question'",
    ),
}


@pytest.mark.parametrize("problem", list(BAD_FILES))
def test_bad_file_is_named_with_its_line_and_the_others_still_run(
    citations: Citations, problem: str
) -> None:
    text, message = BAD_FILES[problem]
    citations.write("cases/bad.yaml", text)
    citations.write("cases/good.yaml", GOOD_CASE)
    citations.write("more/also-good.yaml", single_claim_case("also", "Boiling.", PDF_URL))

    result = citations.run("cases/", "more/", "-rA", gate="contradicted")

    result.assert_outcomes(errors=1, passed=4)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["*ERROR collecting cases/bad.yaml*", message])
    result.stdout.fnmatch_lines(
        [
            "PASSED*cases/good.yaml::good::claim-1",
            "PASSED*cases/good.yaml::good::precision",
            "PASSED*more/also-good.yaml::also::claim-1",
        ],
        consecutive=False,
    )
    output = result.stdout.str()
    assert "Traceback" not in output
    assert "yaml.constructor" not in output
    assert "Interrupted" not in output


def test_every_broken_file_is_reported(citations: Citations) -> None:
    for number, problem in enumerate(BAD_FILES, start=1):
        text, _ = BAD_FILES[problem]
        citations.write(f"cases/bad-{number}.yaml", text)
    citations.write("cases/good.yaml", GOOD_CASE)

    result = citations.run("cases/", gate="contradicted")

    result.assert_outcomes(errors=len(BAD_FILES), passed=2)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        [f"*ERROR collecting cases/bad-{n}.yaml*" for n in range(1, len(BAD_FILES) + 1)],
        consecutive=False,
    )


def test_error_in_the_second_case_of_a_file_names_its_line(citations: Citations) -> None:
    citations.write(
        "cases/several.yaml",
        f"""\
        cases:
          - id: first
            citations: [{PDF_URL}]
            claims:
              - text: {SUPPORTED_CLAIM}
                cites: [1]
          - id: second
            citations: [{PDF_URL}]
            claims:
              - text: {SUPPORTED_CLAIM}
                cites: [4]
        """,
    )

    result = citations.run("cases/", gate="default")

    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(
        [
            "cases/several.yaml:11: claim 1 cites [[]4[]], which is not in 'citations' "
            "(known: [[]1[]])"
        ]
    )


def test_collection_error_with_collect_only(citations: Citations) -> None:
    citations.write("cases/bad.yaml", BAD_FILES["unknown key"][0])
    citations.write("cases/good.yaml", GOOD_CASE)

    result = citations.run("--collect-only", "-q", "cases/", gate="default")

    assert result.ret != pytest.ExitCode.OK
    result.stdout.fnmatch_lines(
        ["cases/good.yaml::good::claim-1", "*cases/bad.yaml:7: unknown key 'colour'*"],
        consecutive=False,
    )
