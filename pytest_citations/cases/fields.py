"""Every key a case file may hold, in one table per level (case, claim, criteria): its
description, the kind of value the parser checks, and its JSON Schema. The parser, the
published schema (``pytest-citations schema``) and the error messages all read these
tables, so a new key is one row here (plus the code that uses its value)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..labels import Label

#: Labels a human may give a claim for calibration (C5).
EXPECTABLE_LABELS = ("supported", "partial", "contradicted", "not_found")
_URL = {"type": "string", "format": "uri", "pattern": "^https?://"}
_MARKER = {"type": ["string", "integer"]}
#: A cited document the answer's record gives no URL for (an Anthropic document citation).
_DOCUMENT = {"$ref": "#/$defs/document"}
#: Every claim label, as ``fail_on`` names them.
LABELS = tuple(label.value for label in Label)
_LABELS = {"type": "array", "items": {"enum": list(LABELS)}}
_NAMES = {"type": "array", "items": {"type": "string"}}


@dataclass(frozen=True)
class Key:
    """One key: what it means, the kind of value (``text``, ``bool``, ``fraction``,
    ``names``, ``labels``, ``expect``, or ``structure`` for keys with parsing of their
    own), and the JSON Schema of its value."""

    description: str
    kind: str = "text"
    schema: dict[str, Any] = field(default_factory=lambda: {"type": "string"})


CASE: dict[str, Key] = {
    "id": Key("the case's id in node ids (default: from the file name)"),
    "question": Key("the question the answer replies to"),
    "answer": Key("the answer; split into claims at sentence ends when 'claims' is absent"),
    "citations": Key(
        "marker -> URL, or a list of URLs numbered from 1; a cited document without a URL is "
        "a mapping with 'document' (it cannot be fetched, so its claims are not checked)",
        "structure",
        {
            "oneOf": [
                {"type": "object", "additionalProperties": {"oneOf": [_URL, _DOCUMENT]}},
                {"type": "array", "items": {"oneOf": [_URL, _DOCUMENT]}},
            ]
        },
    ),
    "claims": Key(
        "the claims to check, each with the markers (or URLs) it cites",
        "structure",
        {"type": "array", "minItems": 1, "items": {"$ref": "#/$defs/claim"}},
    ),
    "min_precision": Key(
        "this case's minimum citation precision",
        "fraction",
        {"type": "number", "minimum": 0, "maximum": 1},
    ),
    "retrieved": Key(
        "URLs the assistant had but did not cite (a list, or marker -> URL)",
        "structure",
        {
            "oneOf": [
                {"type": "array", "items": _URL},
                {"type": "object", "additionalProperties": _URL},
            ]
        },
    ),
    "topic": Key("the topic of every claim that names none (see forbid_contradicted_topics)"),
    "criteria": Key(
        "acceptance criteria of this case, over the ini file's",
        "structure",
        {"$ref": "#/$defs/criteria"},
    ),
    "tags": Key(
        "pytest markers of the case's items ('-m smoke' selects them)",
        "names",
        {"oneOf": [{"type": "string"}, _NAMES]},
    ),
    "notes": Key("free text for reviewers; not checked"),
}

CLAIM: dict[str, Key] = {
    "text": Key("the claim, as one sentence"),
    "from": Key(
        "the answer's sentence this claim was rewritten or split from; the next import keeps "
        "the claim while that sentence is in the answer"
    ),
    "cites": Key(
        "the markers (or URLs) the claim cites; an empty list for an uncited claim",
        "structure",
        {"oneOf": [_MARKER, {"type": "array", "items": _MARKER}]},
    ),
    "id": Key("a name for reviewers; not checked"),
    "span": Key(
        "the answer's text the provider attributed the claim's sources to, written by import "
        "when it is not the claim's own sentence; not checked"
    ),
    "topic": Key("the claim's topic (see forbid_contradicted_topics)"),
    "expect": Key(
        "the label a human gave the claim, for judge calibration",
        "expect",
        {"enum": list(EXPECTABLE_LABELS)},
    ),
    "general": Key(
        "general phrasing that may stand without a citation", "bool", {"type": "boolean"}
    ),
    "notes": Key("free text for reviewers; not checked"),
}

DOCUMENT: dict[str, Key] = {
    "document": Key("the document's name as the provider gives it (its title, else its index)"),
    "pages": Key("the pages cited, as '3' or '3-4'", "structure", {"type": ["string", "integer"]}),
    "text": Key("the text the provider says it cited from the document"),
}

CRITERIA: dict[str, Key] = {
    "fail_on": Key("claim labels that fail a claim", "labels", _LABELS),
    "forbid_contradicted_topics": Key(
        "topics whose contradicted claims always fail", "names", _NAMES
    ),
    "numbers_traceable": Key(
        "every number and date of a claim must stand in its evidence", "bool", {"type": "boolean"}
    ),
    "min_supported_share": Key(
        "minimum share of fully supported claims",
        "fraction",
        {"type": "number", "minimum": 0, "maximum": 1},
    ),
    "uncited_allowed": Key(
        "uncited claims may pass when marked general and free of figures",
        "bool",
        {"type": "boolean"},
    ),
}

#: Top-level keys that make a YAML file a case file. YAML with none of them belongs to
#: another tool (mkdocs, docker compose, pre-commit, CI) and is not collected.
SIGNATURE_KEYS = ("cases", "claims", "citations", "answer", "question")
