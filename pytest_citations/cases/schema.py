"""The JSON Schema of case files (draft 2020-12), built from the key tables of
:mod:`.fields`, so that a key added there is published here with its description.

``pytest-citations schema`` prints it; an editor with the YAML language server validates
and completes a case file that names it on its first line::

    # yaml-language-server: $schema=case-file.schema.json

The schema says what the parser accepts, as far as a schema can: a claim citing a marker
that ``citations`` lacks, or two markers equal once brackets are removed, are still found
only by the parser (``pytest --citations --collect-only``).
"""

from __future__ import annotations

import json
from typing import Any

from . import fields

DIALECT = "https://json-schema.org/draft/2020-12/schema"
TITLE = "pytest-citations case file"
_CASES = "several cases in one file, each with its own id"


def _properties(table: dict[str, fields.Key]) -> dict[str, Any]:
    """Each key of a table as a property: its description, then its schema."""
    return {name: {"description": key.description, **key.schema} for name, key in table.items()}


def _case() -> dict[str, Any]:
    return {
        "type": "object",
        "description": "One question, its answer, its citations and its claims.",
        "properties": _properties(fields.CASE),
        "additionalProperties": False,
        # Claims are written out, or split from the answer at sentence ends.
        "anyOf": [{"required": ["claims"]}, {"required": ["answer"]}],
    }


def _claim() -> dict[str, Any]:
    return {
        "description": "A claim: its text alone, or a mapping with the markers it cites.",
        "oneOf": [
            {"type": "string", "minLength": 1},
            {
                "type": "object",
                "properties": _properties(fields.CLAIM),
                "required": ["text"],
                "additionalProperties": False,
            },
        ],
    }


def _document() -> dict[str, Any]:
    return {
        "type": "object",
        "description": "A cited document the record gives no URL for: it cannot be fetched, "
        "so claims citing it are reported as not checked.",
        "properties": _properties(fields.DOCUMENT),
        "required": ["document"],
        "additionalProperties": False,
    }


def _criteria() -> dict[str, Any]:
    return {
        "type": "object",
        "description": "Acceptance criteria of one case; they override the ini file's.",
        "properties": _properties(fields.CRITERIA),
        "additionalProperties": False,
    }


def _case_list() -> dict[str, Any]:
    return {
        "type": "object",
        "description": "Several cases in one file.",
        "properties": {"cases": _cases_property()},
        "required": ["cases"],
        "additionalProperties": False,
    }


def _cases_property() -> dict[str, Any]:
    return {
        "description": _CASES,
        "type": "array",
        "minItems": 1,
        "items": {"$ref": "#/$defs/case"},
    }


def case_file_schema() -> dict[str, Any]:
    """The schema of a case file: one case, or several under a top-level ``cases:`` list."""
    return {
        "$schema": DIALECT,
        "title": TITLE,
        "description": (
            "A case file of pytest-citations: one case (question, answer, citations, "
            "claims), or several under 'cases'."
        ),
        "type": "object",
        # Named here too, so that an editor offers 'cases' beside the keys of a case (its
        # items are checked once, by the 'then' branch).
        "properties": {"cases": {"description": _CASES, "type": "array"}},
        "if": {"required": ["cases"]},
        "then": {"$ref": "#/$defs/caseList"},
        "else": {"$ref": "#/$defs/case"},
        "$defs": {
            "case": _case(),
            "caseList": _case_list(),
            "claim": _claim(),
            "criteria": _criteria(),
            "document": _document(),
        },
    }


def schema_text() -> str:
    """The schema as the JSON text ``pytest-citations schema`` prints (ends with a newline)."""
    return json.dumps(case_file_schema(), indent=2, ensure_ascii=False) + "\n"
