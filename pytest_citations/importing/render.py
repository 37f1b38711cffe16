"""The YAML text of imported case files: one configured dumper, keys in one fixed order,
the answer in block style, short lists on one line, so that the same answers always give
the same bytes and a case file reads (and diffs) well in review."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import yaml

from .answers import AnswerClaim, ImportedAnswer
from .formats import Document

#: Answers longer than this on one line are folded at :data:`FOLD_WIDTH` for review.
FOLD_AT = 80
FOLD_WIDTH = 88
#: Other scalars stay on one line whatever their length: one claim, one line in a diff.
_NO_WRAP = 1 << 20
UNCITED_NOTE = "cites no source; add one, or set general to true if it needs none"
DOCUMENT_NOTE = (
    "cites a document the record gives no URL for: it cannot be fetched, so the check "
    "reports it as not checked; add the document's URL to check it"
)
#: Keys of ``claims:`` entries that only the import writes (from the provider's record):
#: a reviewer's edit is what differs beside them.
IMPORT_CLAIM_KEYS = frozenset({"span"})
#: Keys whose lists are written on one line.
_FLOW_KEYS = frozenset({"cites", "tags", "fail_on", "forbid_contradicted_topics"})
#: How the notes the import writes on a case begin; notes that begin otherwise are a
#: reviewer's.
IMPORT_NOTE = "imported from the "


class _Block(str):
    """A text shown in block style: literal when it has lines, folded when it is long."""


class _Flow(list[Any]):
    """A short list shown on one line: ``cites: [1, 3]``."""


class _CaseFileDumper(yaml.SafeDumper):
    """Safe YAML with block text and one-line lists, and never an alias: case files refuse
    aliases, and PyYAML would write one for any object it meets twice."""

    def ignore_aliases(self, data: Any) -> bool:
        return True

    def increase_indent(self, flow: bool = False, indentless: bool = False) -> None:
        # Items of a list indented under their key, as the README's examples write them.
        super().increase_indent(flow, False)


def _represent_block(dumper: yaml.SafeDumper, data: _Block) -> yaml.ScalarNode:
    style = "|" if "\n" in data else (">" if len(data) > FOLD_AT else None)
    return dumper.represent_scalar("tag:yaml.org,2002:str", str(data), style=style)


def _represent_flow(dumper: yaml.SafeDumper, data: _Flow) -> yaml.SequenceNode:
    return dumper.represent_sequence("tag:yaml.org,2002:seq", list(data), flow_style=True)


_CaseFileDumper.add_representer(_Block, _represent_block)
_CaseFileDumper.add_representer(_Flow, _represent_flow)


def marker_key(marker: str) -> int | str:
    """Markers as case files show them: ``1:`` rather than ``"1":``."""
    return int(marker) if marker.isdigit() else marker


def _order(marker: str) -> tuple[int, int, str]:
    """Numbers in numeric order (``2`` before ``10``), then any other marker."""
    return (0, int(marker), "") if marker.isdigit() else (1, 0, marker)


def claim_entry(claim: AnswerClaim) -> dict[str, Any]:
    """The entry of ``claims:`` the import writes for one sentence."""
    entry: dict[str, Any] = {
        "text": claim.text,
        "cites": _Flow(marker_key(m) for m in claim.markers),
    }
    if claim.span:
        entry["span"] = claim.span
    notes = []
    if claim.documents:
        notes.append(DOCUMENT_NOTE)
    if claim.unresolved:
        listed = ", ".join(f"[{m}]" for m in claim.unresolved)
        notes.append(f"the answer cites {listed}, which the record does not list")
    if claim.uncited:
        # Visible and decidable in review: flip to true for general phrasing.
        entry["general"] = False
        notes.append(UNCITED_NOTE)
    if notes:
        entry["notes"] = "; ".join(notes)
    return entry


def reviewed_part(entry: Any) -> Any:
    """A ``claims:`` entry without the keys only the import writes."""
    if isinstance(entry, Mapping):
        return {key: value for key, value in entry.items() if key not in IMPORT_CLAIM_KEYS}
    return entry


def document_entry(document: Document) -> dict[str, Any]:
    """A cited document without a URL, as ``citations:`` shows it."""
    entry: dict[str, Any] = {"document": document.name}
    if document.pages:
        entry["pages"] = document.pages
    if document.cited_text:
        entry["text"] = document.cited_text
    return entry


def case_mapping(
    answer: ImportedAnswer, case_id: str, claims: Sequence[AnswerClaim] | None = None
) -> dict[str, Any]:
    """The case for an answer, keys in the order a reviewer reads them."""
    claims = answer.claims() if claims is None else claims
    case: dict[str, Any] = {"id": case_id}
    if answer.question:
        case["question"] = _Block(answer.question)
    case["answer"] = _Block(answer.text)
    cited: dict[str, Any] = {**answer.citations}
    cited.update((m, document_entry(d)) for m, d in answer.documents.items())
    if cited:
        case["citations"] = {marker_key(m): cited[m] for m in sorted(cited, key=_order)}
    case["claims"] = [claim_entry(claim) for claim in claims]
    if answer.retrieved:
        if all(marker for marker, _ in answer.retrieved):
            case["retrieved"] = {
                marker_key(m): url
                for m, url in sorted(answer.retrieved, key=lambda pair: _order(pair[0]))
            }
        else:
            case["retrieved"] = [url for _, url in answer.retrieved]
    if answer.tags:
        case["tags"] = _Flow(answer.tags)
    notes = [f"{IMPORT_NOTE}{answer.format} format"]
    if answer.whole_answer:
        notes.append(
            f"the answer has no [n] markers, so every sentence cites all {len(answer.citations)} "
            "of its sources"
        )
    notes.extend(answer.warnings)
    case["notes"] = "; ".join(notes)
    return case


def yaml_value(value: Any, key: Any = None) -> Any:
    """A value read back from a case file (under ``key``), as this module writes values:
    mappings and lists plain, ``cites`` and the lists of names on one line, text with line
    breaks in block style; values built here stay as they are."""
    if isinstance(value, _Block | _Flow):
        return value
    if isinstance(value, str):
        return _Block(value) if "\n" in value else str(value)
    if isinstance(value, Mapping):
        return {name: yaml_value(item, name) for name, item in value.items()}
    if isinstance(value, list | tuple):
        items = [yaml_value(item) for item in value]
        return _Flow(items) if key in _FLOW_KEYS else items
    return value


def _mapping_lines(case: Mapping[str, Any]) -> list[str]:
    """A case mapping as YAML lines, one key at a time so that only the answer folds."""
    lines: list[str] = []
    for key, value in case.items():
        width = FOLD_WIDTH if isinstance(value, _Block) else _NO_WRAP
        piece = yaml.dump(
            {key: value},
            Dumper=_CaseFileDumper,
            allow_unicode=True,
            sort_keys=False,
            default_flow_style=False,
            width=width,
        )
        lines.extend(piece.removesuffix("\n").split("\n"))
    return lines


def render_case_file(
    cases: Sequence[Mapping[str, Any]], *, schema_url: str | None = None, grouped: bool = False
) -> str:
    """The YAML text of a case file: one case as the document, or several (or ``grouped``)
    under ``cases:``; the ``yaml-language-server`` line first when a schema is known."""
    lines = [f"# yaml-language-server: $schema={schema_url}"] if schema_url else []
    if len(cases) == 1 and not grouped:
        lines.extend(_mapping_lines(cases[0]))
    else:
        lines.append("cases:")
        for case in cases:
            for number, line in enumerate(_mapping_lines(case)):
                # Block scalars keep their text relative to the indentation: shifting every
                # line alike is safe; empty lines stay empty (no trailing spaces).
                prefix = "  - " if number == 0 else "    "
                lines.append(prefix + line if line else "")
    return "\n".join(lines) + "\n"
