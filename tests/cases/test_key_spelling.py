"""A case file whose keys are written in another case or spelling (``Question:``,
``Claims:``) is a collection error naming the file, each key's line and the spelling to
write, never a file skipped without a word (issue 27). Another tool's YAML stays silent.

"Looks like a case file in another spelling" is narrow on purpose: a top-level ``claims``
key with one of ``question``, ``answer`` or ``citations`` (or a ``cases`` list whose items
have them), compared lower-cased with ``-`` and spaces read as ``_``."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from plugin_helpers import PDF_URL, SUPPORTED_CLAIM, Citations, single_claim_case

from pytest_citations.cases import CaseFileError, load_cases, looks_like_misspelt_case_file
from pytest_citations.cases.spelling import SCAN_CHARS, canonical

GOOD_CASE = single_claim_case("good", SUPPORTED_CLAIM, PDF_URL)

CAPITALISED = f"""\
id: capitalised
Question: At what temperature does water boil?
Citations:
  1: {PDF_URL}
Claims:
  - text: {SUPPORTED_CLAIM}
    cites: [1]
"""

LISTED = f"""\
Cases:
  - id: listed
    Question: At what temperature does water boil?
    citations: [{PDF_URL}]
    Claims:
      - text: {SUPPORTED_CLAIM}
        cites: [1]
"""

#: Other tools' YAML, some with keys a case file also has, none of them a case file.
FOREIGN = {
    "github workflow": "name: CI\non: [push]\njobs:\n  test:\n    runs-on: ubuntu-latest\n",
    "docker compose": "services:\n  web:\n    image: nginx\n    labels: [claims=1]\n",
    # Kubernetes' dynamic resource allocation: "claims" nested under a container's resources.
    "k8s pod": (
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: gpu\nspec:\n  containers:\n"
        "    - name: main\n      resources:\n        claims:\n          - name: gpu\n"
        "  resourceClaims:\n    - name: gpu\n"
    ),
    # Top-level Claims with nothing else of a case file.
    "claims register": "Claims:\n  - number: 17\n    status: open\nOwner: legal\n",
    # A list of questions and answers, but no claims: an FAQ, not a case file.
    "faq": "Questions:\n  - Question: Why?\n    Answer: Because.\n",
}


@pytest.mark.parametrize(
    ("written", "meant"),
    [("Question", "question"), ("CLAIMS", "claims"), ("Min-Precision", "min_precision"),
     ("min precision", "min_precision"), (" Cites ", "cites"), (3, None)],
)  # fmt: skip
def test_canonical_spelling(written: object, meant: str | None) -> None:
    assert canonical(written) == meant


@pytest.mark.parametrize("text", [CAPITALISED, LISTED, CAPITALISED.replace("Claims", "CLAIMS")])
def test_a_case_file_in_another_spelling_is_recognised(text: str) -> None:
    assert looks_like_misspelt_case_file(text)


@pytest.mark.parametrize("name", list(FOREIGN))
def test_other_tools_yaml_is_not_a_misspelt_case_file(name: str) -> None:
    assert not looks_like_misspelt_case_file(FOREIGN[name])


def test_the_scan_reads_a_bounded_head_in_linear_time() -> None:
    # A key found past the scanned head does not count; a huge line without a colon, or
    # with one far along it, is passed over quickly.
    late = "x: 1\n" * (SCAN_CHARS // 5 + 1) + "Claims: []\nQuestion: q\n"
    assert not looks_like_misspelt_case_file(late)
    hostile = ("a " * 2_000_000) + "\n" + ("Claims" + " " * 1_000_000 + ":")
    started = time.perf_counter()
    assert not looks_like_misspelt_case_file(hostile)
    assert time.perf_counter() - started < 1.0


def test_every_misspelt_key_is_named_once_with_the_spelling_to_write(tmp_path: Path) -> None:
    path = tmp_path / "capitalised.yaml"
    path.write_text(CAPITALISED.replace("  - text:", "  - Text:"), encoding="utf-8")

    with pytest.raises(CaseFileError) as caught:
        load_cases(path)

    # Only the spellings: the keys are read as meant, so no "'claims' must be a non-empty
    # list" follows from the misspelt 'Claims'.
    assert caught.value.problems == [
        (2, "unknown key 'Question': write it 'question'"),
        (3, "unknown key 'Citations': write it 'citations'"),
        (5, "unknown key 'Claims': write it 'claims'"),
        (6, "unknown key 'Text' in claim 1: write it 'text'"),
    ]


def test_a_key_written_twice_in_two_spellings_is_not_read_as_the_other(tmp_path: Path) -> None:
    path = tmp_path / "twice.yaml"
    path.write_text(f"Question: one\nquestion: two\n{GOOD_CASE}".replace("id: good\n", ""))

    with pytest.raises(CaseFileError) as caught:
        load_cases(path)

    assert caught.value.line == 1
    assert caught.value.message.startswith("unknown key 'Question' (allowed: ")


def test_a_misspelt_criterion_is_named_with_its_spelling(tmp_path: Path) -> None:
    path = tmp_path / "criteria.yaml"
    path.write_text(GOOD_CASE + "criteria:\n  Fail-On: [contradicted]\n", encoding="utf-8")

    with pytest.raises(CaseFileError) as caught:
        load_cases(path)

    assert caught.value.problems == [
        (8, "unknown key 'Fail-On' in 'criteria': write it 'fail_on'")
    ]


def test_capitalised_keys_in_a_folder_run_are_a_collection_error(citations: Citations) -> None:
    citations.write("cases/good.yaml", GOOD_CASE)
    citations.write("cases/capitalised.yaml", CAPITALISED)
    citations.write("cases/listed.yaml", LISTED)

    result = citations.run("cases/", "--citations-fail-on=contradicted", gate="args")

    result.assert_outcomes(errors=2, passed=2)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        [
            "*ERROR collecting cases/capitalised.yaml*",
            "cases/capitalised.yaml:2: unknown key 'Question': write it 'question'",
            "cases/capitalised.yaml:3: unknown key 'Citations': write it 'citations'",
            "cases/capitalised.yaml:5: unknown key 'Claims': write it 'claims'",
        ]
    )
    result.stdout.fnmatch_lines(
        [
            "*ERROR collecting cases/listed.yaml*",
            "cases/listed.yaml:1: unknown key 'Cases': write it 'cases'",
            "cases/listed.yaml:3: unknown key 'Question': write it 'question'",
            "cases/listed.yaml:5: unknown key 'Claims': write it 'claims'",
        ]
    )
    result.stdout.fnmatch_lines(["Release decision: incomplete*"])
    assert "Traceback" not in result.stdout.str()


def test_other_tools_yaml_beside_case_files_stays_silent(citations: Citations) -> None:
    citations.write("cases/good.yaml", GOOD_CASE)
    for number, name in enumerate(FOREIGN):
        citations.write(f"cases/foreign-{number}.yaml", FOREIGN[name])

    result = citations.run("cases/", "-v", "--citations-fail-on=contradicted", gate="args")

    result.assert_outcomes(passed=2)
    assert result.ret == pytest.ExitCode.OK
    assert "foreign" not in result.stdout.str()
