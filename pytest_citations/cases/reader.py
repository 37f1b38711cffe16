"""Reading a case file into cases: one case, or several under a top-level ``cases:`` list;
and telling a case file from another tool's YAML without parsing it."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

from . import fields
from .answer_spans import place_claims
from .loader import line_of, load_document
from .model import Case, CaseFileError, Claim
from .parser import Parser, _Skip, slug

_KEY = r"['\"]?(?:" + "|".join(fields.SIGNATURE_KEYS) + r")['\"]?[ \t]*:"
_BLOCK_SIGNATURE = re.compile(r"^" + _KEY, re.MULTILINE)
_FLOW_SIGNATURE = re.compile(r"[{,]\s*" + _KEY)
_PREAMBLE = re.compile(r"(?:\s+|#[^\n]*|---|%[^\n]*)*")


def read_case(parser: Parser, raw: Any, line: int, default_id: str, ids: set[str]) -> Case:
    """One case; its problems are recorded in ``parser`` (raises ``_Skip`` when nothing
    of it can be used)."""
    if not isinstance(raw, dict):
        raise parser.fail(line, "a case must be a mapping with 'claims' and 'citations'")
    raw = parser.known_keys(raw, fields.CASE, line, "")
    values: dict[str, Any] = {}
    for key, spec in fields.CASE.items():
        if spec.kind != "structure":
            try:
                values[key] = parser.value(raw, key, spec, line)
            except _Skip:
                continue
    case_id = slug(values.get("id") or default_id)
    if case_id in ids:
        parser.fail(line_of(raw, "id", line), f"duplicate case id {case_id!r}")
    ids.add(case_id)
    citations, documents = parser.citations(raw.get("citations"), line_of(raw, "citations", line))
    claims = parser.claims(raw, line, citations, documents)
    answer = values.get("answer")
    claims = place_claims(answer if isinstance(answer, str) else None, claims)
    topic = values.get("topic")
    if topic:
        claims = tuple(claim if claim.topic else replace(claim, topic=topic) for claim in claims)
    retrieved = parser.retrieved(raw.get("retrieved"), line_of(raw, "retrieved", line))
    criteria = parser.criteria(raw.get("criteria"), line_of(raw, "criteria", line))
    tags = values.get("tags") or ()
    min_precision = values.get("min_precision")
    return Case(
        id=case_id,
        path=parser.path,
        line=line_of(raw, None, line),
        question=values.get("question"),
        answer=answer,
        citations=citations,
        claims=claims,
        min_precision=None if min_precision is None else float(min_precision),
        retrieved=tuple(retrieved),
        retrieved_markers={url: marker for url, marker in retrieved.items() if marker},
        criteria=criteria,
        tags=(tags,) if isinstance(tags, str) else tuple(tags),
        tags_line=line_of(raw, "tags", line),
        documents=documents,
    )


def load_cases(path: Path, text: str | None = None) -> list[Case]:
    """Parse one case file: a single case, or several under a top-level ``cases:`` list.
    Raises :class:`CaseFileError` listing every problem found, each with its line."""
    document = load_document(path, text)
    parser = Parser(path)
    stem = slug(path.stem)
    ids: set[str] = set()
    if isinstance(document, dict):
        document = parser.respell(document, ("cases",), 1, "")
    entries: list[tuple[Any, int, str]] = [(document, 1, stem)]
    if isinstance(document, dict) and "cases" in document:
        for key in sorted(set(document) - {"cases"}, key=str):
            parser.fail(line_of(document, key), f"unknown key {key!r} beside 'cases'")
        items = document["cases"]
        if not isinstance(items, list) or not items:
            raise CaseFileError(
                path, line_of(document, "cases"), "'cases' must be a non-empty list"
            )
        entries = [
            (item, line_of(items, n - 1), f"{stem}-{n}") for n, item in enumerate(items, start=1)
        ]
    cases = []
    for raw, line, default_id in entries:
        try:
            cases.append(read_case(parser, raw, line, default_id, ids))
        except _Skip:
            continue
    if parser.problems:
        first, *more = sorted(parser.problems, key=lambda problem: problem[0])
        raise CaseFileError(path, first[0], first[1], more)
    return cases


def looks_like_case_file(text: str) -> bool:
    """True when a top-level key of the YAML text is one of the signature keys. A text
    scan, not a parse: another tool's YAML may use tags (``!!python/name:``) that a safe
    load refuses, and it must not become a collection error."""
    if _BLOCK_SIGNATURE.search(text):
        return True
    # A document written as one flow mapping: {id: x, claims: [...]}
    start = _PREAMBLE.match(text)
    body = text[start.end() if start else 0 :]
    return body.startswith("{") and _FLOW_SIGNATURE.search(body) is not None


def iter_claims(cases: list[Case]) -> Iterator[tuple[Case, Claim]]:
    """Every claim of every case, in file order."""
    for case in cases:
        for claim in case.claims:
            yield case, claim
