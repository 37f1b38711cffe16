"""``pytest-citations schema`` (issue 11, case files are easy to write): a JSON Schema (draft
2020-12) built from the key tables, that the shipped examples pass and a broken case fails
where the parser fails it, published in the repository as ``schema/case-file.schema.json``.

YAML is read as an editor's language server reads it: keys become strings (``1:`` is
``"1"``), so the schema is checked against the JSON form of each file.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml
from ops_support import REPO, base_env, run_cli

from pytest_citations.cases import CaseFileError, load_cases
from pytest_citations.cases.fields import CASE, CLAIM, CRITERIA
from pytest_citations.cases.schema import case_file_schema

EXAMPLES = sorted((REPO / "cases").rglob("*.yaml"))


def as_json(text: str) -> Any:
    """A YAML document as the JSON an editor validates."""
    return json.loads(json.dumps(yaml.safe_load(text)))


@pytest.fixture(scope="module")
def printed(tmp_path_factory: pytest.TempPathFactory) -> str:
    run = run_cli("schema", env=base_env(tmp_path_factory.mktemp("schema")))
    assert run.returncode == 0, run.stderr
    return run.stdout


@pytest.fixture(scope="module")
def validator(printed: str) -> jsonschema.Draft202012Validator:
    schema = json.loads(printed)
    jsonschema.Draft202012Validator.check_schema(schema)  # a valid draft 2020-12 schema
    return jsonschema.Draft202012Validator(schema)


def test_the_command_prints_the_schema_of_the_key_tables(printed: str) -> None:
    schema = json.loads(printed)

    assert schema == case_file_schema()
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    definitions = schema["$defs"]
    for table, where in ((CASE, "case"), (CLAIM, "claim"), (CRITERIA, "criteria")):
        found = definitions[where]
        properties = (found.get("oneOf", [{}])[-1] if where == "claim" else found)["properties"]
        assert list(properties) == list(table), where
        for name, key in table.items():
            assert properties[name]["description"] == key.description


def test_the_repository_publishes_what_the_command_prints(printed: str) -> None:
    published = REPO / "schema" / "case-file.schema.json"

    assert published.read_text(encoding="utf-8") == printed, (
        "schema/case-file.schema.json is stale: pytest-citations schema > "
        "schema/case-file.schema.json"
    )


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.relative_to(REPO).as_posix() for p in EXAMPLES])
def test_every_shipped_example_is_valid(
    validator: jsonschema.Draft202012Validator, path: Path
) -> None:
    text = path.read_text(encoding="utf-8")
    assert load_cases(path, text)  # the parser accepts it...

    errors = [f"{list(e.absolute_path)}: {e.message}" for e in validator.iter_errors(as_json(text))]

    assert errors == []  # ...and so does the schema
    # ...and an editor finds it: the first line points to the published schema
    schema = REPO / "schema" / "case-file.schema.json"
    first = text.splitlines()[0]
    assert first.startswith("# yaml-language-server: $schema=")
    assert (path.parent / first.split("$schema=", 1)[1]).resolve() == schema.resolve()


BROKEN = """\
id: broken
answr: a typo of answer
citations:
  1: ftp://example.org/boiling
claims:
  - text: Water boils at 100 °C.
    cites: [1]
    expect: maybe
  - 42
min_precision: 2
criteria:
  fail_on: [contradictd]
  max_cost: 3
"""

#: Where the schema finds each problem of BROKEN (a path into the document).
PROBLEMS = [
    [],  # answr
    ["citations"],  # not an http(s) URL
    ["claims", 0],  # expect: maybe
    ["claims", 1],  # 42 is no claim
    ["criteria"],  # max_cost
    ["criteria", "fail_on", 0],  # contradictd
    ["min_precision"],  # 2 > 1
]


def test_a_broken_case_fails_at_each_of_its_problems(
    validator: jsonschema.Draft202012Validator,
) -> None:
    with pytest.raises(CaseFileError):  # the parser refuses it too
        load_cases(Path("broken.yaml"), BROKEN)

    errors = sorted(validator.iter_errors(as_json(BROKEN)), key=lambda e: list(e.absolute_path))

    assert [list(error.absolute_path) for error in errors] == PROBLEMS
    assert "'answr' was unexpected" in errors[0].message
    assert "contradictd" in errors[5].message


@pytest.mark.parametrize(
    ("document", "where"),
    [
        ({"question": "Why?"}, []),  # neither claims nor an answer to split
        ({"cases": []}, ["cases"]),
        ({"cases": [{"claims": ["x"], "extra": 1}]}, ["cases", 0]),
        ({"cases": [{"claims": ["x"]}], "id": "beside"}, []),
        ({"claims": [{"cites": [1]}]}, ["claims", 0]),  # a claim without text
        ({"claims": ["x"], "tags": [1]}, ["tags"]),
    ],
    ids=["no-claims", "empty-cases", "unknown-key-in-cases", "key-beside-cases", "no-text", "tags"],
)
def test_shapes_the_parser_refuses_are_invalid(
    validator: jsonschema.Draft202012Validator, document: dict[str, Any], where: list[Any]
) -> None:
    errors = list(validator.iter_errors(document))

    assert [list(error.absolute_path) for error in errors] == [where]


@pytest.mark.parametrize(
    "document",
    [
        {"answer": "Water boils at 100 °C [1].", "citations": ["https://example.org/b"]},
        {"cases": [{"claims": ["Water boils."]}, {"answer": "It boils."}]},
        {
            "citations": {"[1]": "https://e.org/a"},
            "claims": [{"text": "x", "cites": 1}],
            "tags": "smoke",
            "retrieved": {"2": "https://e.org/b"},
        },
    ],
    ids=["answer-only", "several-cases", "scalars-for-lists"],
)
def test_shapes_the_parser_accepts_are_valid(
    validator: jsonschema.Draft202012Validator, document: dict[str, Any]
) -> None:
    assert load_cases(Path("ok.yaml"), json.dumps(document))
    assert list(validator.iter_errors(document)) == []
