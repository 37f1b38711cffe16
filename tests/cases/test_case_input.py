"""Hostile or careless case files (issue 8): each is one clear collection error naming the
file and the line, and the other case files still run. YAML aliases and merge keys are
refused (a 654-byte file could otherwise expand to gigabytes), scalar fields must be strings,
deep nesting is a file:line error rather than a ``RecursionError``, and markers that collide
once normalised are duplicates. Long and internationalised URLs are not collection errors:
the engine judges them citation by citation."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from plugin_helpers import (
    BOILING_URL,
    PDF_URL,
    SUPPORTED_CLAIM,
    Citations,
    single_claim_case,
)

from pytest_citations.cases import CaseFileError, load_cases

#: A case file that needs no request (a PDF citation is decided by rule): it passes offline.
GOOD_CASE = single_claim_case("good", SUPPORTED_CLAIM, PDF_URL)

#: The "billion laughs": nine levels of nine aliases; ``topic:`` is stringified, so a loader
#: that expands aliases builds a string of 9**9 list items.
LAUGHS = (
    "id: laughs\n"
    'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n'
    + "".join(
        f"{chr(98 + n)}: &{chr(98 + n)} [*{chr(97 + n)},*{chr(97 + n)},*{chr(97 + n)},"
        f"*{chr(97 + n)},*{chr(97 + n)},*{chr(97 + n)},*{chr(97 + n)},*{chr(97 + n)},"
        f"*{chr(97 + n)}]\n"
        for n in range(8)
    )
    + f"topic: *i\ncitations: [{PDF_URL}]\nclaims: [{{text: Water boils., cites: [1]}}]\n"
)

BAD_FILES = {
    "alias": (
        f"""\
        id: bad
        citations:
          1: &boiling {BOILING_URL}
        claims:
          - text: {SUPPORTED_CLAIM}
            cites: [1]
        retrieved: [*boiling]
        """,
        "cases/bad.yaml:7: YAML aliases (*boiling) are not allowed in case files; "
        "write the value out",
    ),
    "merge key": (
        f"""\
        id: bad
        citations: [{BOILING_URL}]
        claims:
          - text: {SUPPORTED_CLAIM}
            cites: [1]
          - <<: {{cites: [1]}}
            text: Water boils.
        """,
        "cases/bad.yaml:6: YAML merge keys (<<) are not allowed in case files; write the keys out",
    ),
    "topic is a list": (
        f"""\
        id: bad
        topic: [leave, pay]
        citations: [{BOILING_URL}]
        claims:
          - text: {SUPPORTED_CLAIM}
            cites: [1]
        """,
        "cases/bad.yaml:2: 'topic' must be a string, got a list",
    ),
    "text is a number": (
        f"""\
        id: bad
        citations: [{BOILING_URL}]
        claims:
          - text: {SUPPORTED_CLAIM}
            cites: [1]
          - text: 42
            cites: [1]
        """,
        "cases/bad.yaml:6: 'text' of claim 2 must be a string, got 42 (quote it: text: \"42\")",
    ),
    "id is a number": (
        f"""\
        id: 2024
        citations: [{BOILING_URL}]
        claims: [{{text: {SUPPORTED_CLAIM}, cites: [1]}}]
        """,
        "cases/bad.yaml:1: 'id' must be a string, got 2024 (quote it: id: \"2024\")",
    ),
    "question is a mapping": (
        f"""\
        id: bad
        question: {{what: boiling}}
        citations: [{BOILING_URL}]
        claims: [{{text: {SUPPORTED_CLAIM}, cites: [1]}}]
        """,
        "cases/bad.yaml:2: 'question' must be a string, got a mapping",
    ),
    "claim topic is a list": (
        f"""\
        id: bad
        citations: [{BOILING_URL}]
        claims:
          - text: {SUPPORTED_CLAIM}
            cites: [1]
            topic: [leave]
        """,
        "cases/bad.yaml:6: 'topic' of claim 1 must be a string, got a list",
    ),
    "colliding markers": (
        f"""\
        id: bad
        citations:
          1: {BOILING_URL}
          "[1]": {PDF_URL}
        claims:
          - text: {SUPPORTED_CLAIM}
            cites: [1]
        """,
        "cases/bad.yaml:4: duplicate marker [[]1[]] in 'citations' (the same as marker 1 "
        "after '[[][]]' and spaces are removed)",
    ),
    "lone surrogate": (
        f"""\
        id: bad
        answer: "Water boils at 100 °C \\ud800 at sea level [1]."
        citations: [{BOILING_URL}]
        """,
        "cases/bad.yaml:2: a lone surrogate (\\ud800) cannot be written as UTF-8; write the "
        "character it was cut from, or leave it out",
    ),
    "deep nesting": (
        "id: bad\nclaims: " + "[" * 5000 + "]" * 5000 + "\n",
        "cases/bad.yaml:2: nested deeper than 100 levels",
    ),
    # PyYAML's int() and date() raised ValueError: the file failed with no line, and the
    # run's stale-recordings count, which reads the case files it did not replay, with an
    # INTERNALERROR (tests/plugin/test_stale_summary.py).
    "a number too long": (
        f"id: bad\ncitations:\n  1: {BOILING_URL}\nclaims:\n  - text: x\n"
        f"    cites: [1{'0' * 5000}]\n",
        "cases/bad.yaml:6: a number this long cannot be read",
    ),
    "a date that does not exist": (
        "id: 2025-02-30\nclaims: []\n",
        "cases/bad.yaml:1: a date that does not exist cannot be read",
    ),
}


@pytest.mark.parametrize("problem", list(BAD_FILES))
def test_bad_input_is_one_collection_error_with_file_and_line(
    citations: Citations, problem: str
) -> None:
    text, message = BAD_FILES[problem]
    citations.write("cases/bad.yaml", text)
    citations.write("cases/good.yaml", GOOD_CASE)

    result = citations.run("cases/", gate="contradicted")

    result.assert_outcomes(errors=1, passed=2)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["*ERROR collecting cases/bad.yaml*", message])
    output = result.stdout.str()
    assert "Traceback" not in output
    assert "RecursionError" not in output
    assert "empty text" not in output


def test_a_lone_surrogate_is_refused_and_every_report_is_written(citations: Citations) -> None:
    """A lone surrogate (YAML's ``"\\ud800"``) cannot be written as UTF-8: found by the red
    team, it failed each claim of its file with a traceback in the embedder's cache, then
    the whole run with an INTERNALERROR when the reports were written (the answer is in
    every report). The file is refused at its line; the others run and report."""
    text, message = BAD_FILES["lone surrogate"]
    citations.write("cases/bad.yaml", text)
    citations.write("cases/good.yaml", GOOD_CASE)
    reports = ("--citations-report", "r.json", "--citations-html", "r.html",
               "--citations-markdown", "r.md", "--citations-csv", "r.csv")  # fmt: skip

    result = citations.run("cases/", *reports, gate="contradicted")

    result.assert_outcomes(errors=1, passed=2)
    result.stdout.fnmatch_lines([message])
    assert "INTERNALERROR" not in result.stdout.str() + result.stderr.str()
    for name in ("r.json", "r.html", "r.md", "r.csv"):
        assert (citations.path / name).is_file(), name


def test_billion_laughs_is_refused_at_once(citations: Citations) -> None:
    assert len(LAUGHS.encode()) < 1000
    citations.write("cases/laughs.yaml", LAUGHS)
    citations.write("cases/good.yaml", GOOD_CASE)

    started = time.monotonic()
    result = citations.run("cases/", gate="contradicted")
    elapsed = time.monotonic() - started

    result.assert_outcomes(errors=1, passed=2)
    result.stdout.fnmatch_lines(
        ["cases/laughs.yaml:3: YAML aliases (*a) are not allowed in case files; write the *"]
    )
    assert elapsed < 30


def test_the_loader_refuses_aliases_before_building_anything(tmp_path: Path) -> None:
    path = tmp_path / "laughs.yaml"
    with pytest.raises(CaseFileError) as raised:
        load_cases(path, LAUGHS)

    assert raised.value.line == 3
    assert "aliases" in raised.value.message


def test_a_numeric_marker_and_its_bracketed_spelling_may_not_both_stand(tmp_path: Path) -> None:
    text = (
        f"citations:\n  2: {BOILING_URL}\n  ' [2] ': {PDF_URL}\n"
        "claims: [{text: a b, cites: [2]}]\n"
    )
    with pytest.raises(CaseFileError) as raised:
        load_cases(tmp_path / "x.yaml", text)

    assert raised.value.line == 3
    assert "duplicate marker" in raised.value.message


def test_long_and_internationalised_urls_are_not_collection_errors(tmp_path: Path) -> None:
    long_url = "https://example.org/" + "a" * 70_000
    idn_url = "https://bücher.example/straße"
    text = (
        f"id: urls\ncitations:\n  1: {long_url}\n  2: {idn_url}\n"
        f"claims:\n  - text: {SUPPORTED_CLAIM}\n    cites: [1, 2]\n"
    )

    (case,) = load_cases(tmp_path / "urls.yaml", text)

    assert case.claims[0].urls == (long_url, idn_url)


def test_a_case_file_with_long_and_idn_urls_collects(citations: Citations) -> None:
    citations.write(
        "cases/urls.yaml",
        single_claim_case(
            "urls",
            SUPPORTED_CLAIM,
            "https://example.org/" + "a" * 3000,
            "https://bücher.example/straße",
        ),
    )

    result = citations.run("--collect-only", "-q", "cases/", gate="default")

    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines(["cases/urls.yaml::urls::claim-1", "2 tests collected*"])


def test_strings_stay_accepted_where_they_always_were(tmp_path: Path) -> None:
    text = f"""\
id: fine
question: "42"
topic: leave
notes: anything
tags: [a, b]
citations:
  1: {BOILING_URL}
  "[2]": {PDF_URL}
claims:
  - text: "42 is a number"
    cites: [1, "[2]"]
    topic: pay
    notes: reviewed
"""
    (case,) = load_cases(tmp_path / "fine.yaml", text)

    assert case.question == "42"
    assert case.citations == {"1": BOILING_URL, "2": PDF_URL}
    assert case.claims[0].markers == ("1", "2")
    assert case.claims[0].topic == "pay"


def test_a_document_entrys_bad_marker_is_one_problem(tmp_path: Path) -> None:
    # YAML 1.1 reads `yes` as true: not a marker. `citations:` is read once, so its entry
    # (a document without a URL) gives one problem, not one per reader of the mapping.
    text = (
        "citations:\n  yes: {document: Manual}\n  2: {document: Guide}\n"
        "claims: [{text: a b, cites: [2]}]\n"
    )
    with pytest.raises(CaseFileError) as raised:
        load_cases(tmp_path / "x.yaml", text)

    assert raised.value.problems == [
        (2, "a citation marker must be a number or a string: True")
    ]
