"""Case files from answer records: built, checked with the case-file parser, and written so
that importing the same answers again gives byte-identical files.

Stable ids (the record's own, else a content hash), keys in one fixed order, files and cases
in one fixed order, YAML emitted by one configured dumper: the same input always gives the
same bytes, so case files diff well in review. Every file is loaded with
:func:`pytest_citations.cases.load_cases` before it is written; a file edited by hand since
the last import is kept unless ``overwrite`` is asked for.
"""

from __future__ import annotations

import hashlib
import os
import re
import tempfile
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Literal

import yaml

from ..cases import CaseFileError, load_cases
from ..errors import CitationsError, ConfigurationError
from .answers import UNMARKED_POLICIES, AnswerClaim, ImportedAnswer, Unmarked, read_answer
from .formats import AUTO, check_format
from .records import BadRecord, read_records

#: The JSON Schema of case files, for the ``# yaml-language-server: $schema=…`` line that
#: gives editors completion and validation. None until the schema is published; set it (or
#: pass ``schema_url``) and every imported file starts with that line.
CASE_SCHEMA_URL: str | None = None

Grouping = Literal["record", "input"]
#: ``record``: one file per answer, named after its case id; ``input``: one file per input
#: file, its cases under ``cases:`` in line order.
GROUPINGS: tuple[Grouping, ...] = ("record", "input")
FileStatus = Literal["written", "unchanged", "kept"]

#: Answers longer than this on one line are folded at :data:`FOLD_WIDTH` for review.
FOLD_AT = 80
FOLD_WIDTH = 88
#: Other scalars stay on one line whatever their length: one claim, one line in a diff.
_NO_WRAP = 1 << 20
_MAX_STEM = 120
_ID = re.compile(r"[^A-Za-z0-9_.-]+")
UNCITED_NOTE = "cites no source; add one, or set general to true if it needs none"
NEXT_STEP = "pytest --citations {folder} --citations-record=new_episodes"


class _Block(str):
    """A text shown in block style: literal when it has lines, folded when it is long."""


class _Flow(list[Any]):
    """A short list shown on one line: ``cites: [1, 3]``."""


class _Dumper(yaml.SafeDumper):
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


_Dumper.add_representer(_Block, _represent_block)
_Dumper.add_representer(_Flow, _represent_flow)


def _marker_key(marker: str) -> int | str:
    """Markers as case files show them: ``1:`` rather than ``"1":``."""
    return int(marker) if marker.isdigit() else marker


def _order(marker: str) -> tuple[int, int, str]:
    """Numbers in numeric order (``2`` before ``10``), then any other marker."""
    return (0, int(marker), "") if marker.isdigit() else (1, 0, marker)


def _claim_entry(claim: AnswerClaim) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "text": claim.text,
        "cites": _Flow(_marker_key(m) for m in claim.markers),
    }
    notes = []
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


def case_mapping(
    answer: ImportedAnswer, case_id: str, claims: Sequence[AnswerClaim] | None = None
) -> dict[str, Any]:
    """The case for an answer, keys in the order a reviewer reads them."""
    claims = answer.claims() if claims is None else claims
    case: dict[str, Any] = {"id": case_id}
    if answer.question:
        case["question"] = _Block(answer.question)
    case["answer"] = _Block(answer.text)
    if answer.citations:
        case["citations"] = {
            _marker_key(m): answer.citations[m] for m in sorted(answer.citations, key=_order)
        }
    case["claims"] = [_claim_entry(claim) for claim in claims]
    if answer.retrieved:
        if all(marker for marker, _ in answer.retrieved):
            case["retrieved"] = {
                _marker_key(m): url
                for m, url in sorted(answer.retrieved, key=lambda pair: _order(pair[0]))
            }
        else:
            case["retrieved"] = [url for _, url in answer.retrieved]
    if answer.tags:
        case["tags"] = _Flow(answer.tags)
    notes = [f"imported from the {answer.format} format"]
    if answer.whole_answer:
        notes.append(
            f"the answer has no [n] markers, so every sentence cites all {len(answer.citations)} "
            "of its sources"
        )
    notes.extend(answer.warnings)
    case["notes"] = "; ".join(notes)
    return case


def _mapping_lines(case: Mapping[str, Any]) -> list[str]:
    """A case mapping as YAML lines, one key at a time so that only the answer folds."""
    lines: list[str] = []
    for key, value in case.items():
        width = FOLD_WIDTH if isinstance(value, _Block) else _NO_WRAP
        piece = yaml.dump(
            {key: value},
            Dumper=_Dumper,
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


@dataclass(frozen=True)
class RecordOutcome:
    """What became of one record: its case and file, or why it was skipped."""

    source: Path
    line: int
    format: str | None = None
    case_id: str | None = None
    path: Path | None = None
    #: Why the record was skipped; None when it was imported.
    reason: str | None = None
    warnings: tuple[str, ...] = ()
    uncited: int = 0

    @property
    def imported(self) -> bool:
        """True when the record became a case."""
        return self.reason is None

    @property
    def where(self) -> str:
        """``file:line`` of the record (the file alone when the whole file failed)."""
        return f"{self.source}:{self.line}" if self.line else str(self.source)


@dataclass(frozen=True)
class CaseFile:
    """A case file of the import and what happened to it."""

    path: Path
    status: FileStatus
    case_ids: tuple[str, ...]


@dataclass(frozen=True)
class ImportResult:
    """Everything an import did: the files, and one outcome per record in input order."""

    out_dir: Path
    files: tuple[CaseFile, ...]
    records: tuple[RecordOutcome, ...]

    @property
    def imported(self) -> tuple[RecordOutcome, ...]:
        """The records that became cases."""
        return tuple(r for r in self.records if r.imported)

    @property
    def skipped(self) -> tuple[RecordOutcome, ...]:
        """The records that could not be read, with their reasons."""
        return tuple(r for r in self.records if not r.imported)

    def formats(self) -> dict[str, int]:
        """How many imported records each format read, by name."""
        return dict(sorted(Counter(r.format for r in self.imported if r.format).items()))

    def lines(self) -> list[str]:
        """The report a command line prints: counts, each skipped record with its line, kept
        files, and the next step."""
        formats = ", ".join(f"{name} {count}" for name, count in self.formats().items())
        statuses = Counter(f.status for f in self.files)
        done = ", ".join(
            f"{statuses[s]} {s}" for s in ("written", "unchanged", "kept") if statuses[s]
        )
        lines = [
            f"Imported {len(self.imported)} of {_count(len(self.records), 'answer record')} "
            f"into {_count(len(self.files), 'case file')} in {self.out_dir}"
            + (f" ({formats})" if formats else "")
            + (f": {done}" if done else "")
        ]
        lines.extend(f"Skipped {r.where}: {r.reason}" for r in self.skipped)
        lines.extend(
            f"Kept {f.path}: it differs from this import (edited in review?); "
            "import with overwrite to replace it"
            for f in self.files
            if f.status == "kept"
        )
        uncited = sum(r.uncited for r in self.imported)
        if uncited:
            verb = "cites" if uncited == 1 else "cite"
            lines.append(
                f"{_count(uncited, 'claim')} {verb} no source: review them (general: true for "
                "general phrasing)"
            )
        if self.imported:
            lines.append(
                "Next: review the case files, then record: " + NEXT_STEP.format(folder=self.out_dir)
            )
        return lines


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}" + ("" if number == 1 else "s")


@dataclass(frozen=True)
class _Built:
    outcome: RecordOutcome
    case: dict[str, Any]


def _unique(case_id: str, taken: set[str]) -> str:
    """The id, suffixed ``-2``, ``-3`` … when taken; compared without case, because the id
    names a file and some file systems do not tell ``A.yaml`` from ``a.yaml``."""
    candidate, number = case_id, 2
    while candidate.lower() in taken:
        candidate, number = f"{case_id}-{number}", number + 1
    taken.add(candidate.lower())
    return candidate


def _file_stem(name: str) -> str:
    stem = _ID.sub("-", name).strip("-.") or "answers"
    if len(stem) <= _MAX_STEM:
        return stem
    digest = hashlib.sha256(stem.encode("utf-8")).hexdigest()[:8]
    return f"{stem[: _MAX_STEM - 9]}-{digest}"


def _invalid(case: Mapping[str, Any], answer: ImportedAnswer) -> str | None:
    """Why the case would not load as written, or None: checked with the case-file parser
    itself, so an import never writes a file that collection would refuse."""
    text = render_case_file([case])
    try:
        text.encode("utf-8")
        [loaded] = load_cases(Path(f"{case['id']}.yaml"), text)
    except UnicodeEncodeError:
        return "the record holds text that is not valid Unicode"
    except CaseFileError as error:
        return f"the case built from it is not valid: {error.message}"
    if (loaded.answer, loaded.question, loaded.citations) != (
        answer.text,
        answer.question,
        answer.citations,
    ):
        return "the answer does not survive YAML unchanged"
    return None


def _write(path: Path, text: str, overwrite: bool) -> FileStatus:
    data = text.encode("utf-8")
    try:
        existing = path.read_bytes()
    except FileNotFoundError:
        existing = None
    if existing == data:
        return "unchanged"
    if existing is not None and not overwrite:
        return "kept"
    # Atomic: an interrupted import leaves the old file or the new one, never half of one.
    descriptor, temporary = tempfile.mkstemp(
        dir=path.parent, prefix=f".{path.name}.", suffix=".tmp"
    )
    try:
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(data)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return "written"


def _skipped(source: Path, line: int, reason: str, fmt: str | None = None) -> RecordOutcome:
    return RecordOutcome(source, line, format=fmt, reason=reason)


def import_answers(
    sources: Iterable[Path | str],
    out_dir: Path | str,
    *,
    format: str = AUTO,
    group: Grouping = "record",
    overwrite: bool = False,
    unmarked: Unmarked = "cite-all",
    schema_url: str | None = CASE_SCHEMA_URL,
) -> ImportResult:
    """Import answer records (JSONL, or JSON object/array files; folders for their files)
    into case files in ``out_dir``. Records that cannot be read are skipped and reported
    with their line; the rest are imported."""
    check_format(format)
    if group not in GROUPINGS:
        raise ConfigurationError(f"unknown grouping {group!r} (known: {', '.join(GROUPINGS)})")
    if unmarked not in UNMARKED_POLICIES:
        raise ConfigurationError(
            f"unknown policy for unmarked answers {unmarked!r} (known: "
            + ", ".join(UNMARKED_POLICIES)
            + ")"
        )
    out = Path(out_dir)
    outcomes: list[RecordOutcome | _Built] = []
    taken: set[str] = set()
    for item in read_records(sources):
        if isinstance(item, BadRecord):
            outcomes.append(_skipped(item.source, item.line, item.reason))
            continue
        try:
            answer = read_answer(item.data, format, unmarked=unmarked)
            claims = answer.claims()
        except CitationsError as error:
            outcomes.append(_skipped(item.source, item.line, str(error)))
            continue
        except (TypeError, ValueError, KeyError, IndexError, AttributeError) as error:
            # A shape no reader foresaw must cost one record, not the import.
            reason = f"could not read the record ({type(error).__name__}: {error})"
            outcomes.append(_skipped(item.source, item.line, reason))
            continue
        if not claims:
            outcomes.append(
                _skipped(item.source, item.line, "the answer holds no sentence", answer.format)
            )
            continue
        case_id = _unique(answer.case_id(), taken)
        case = case_mapping(answer, case_id, claims)
        problem = _invalid(case, answer)
        if problem:
            taken.discard(case_id.lower())
            outcomes.append(_skipped(item.source, item.line, problem, answer.format))
            continue
        outcome = RecordOutcome(
            item.source,
            item.line,
            format=answer.format,
            case_id=case_id,
            warnings=answer.warnings,
            uncited=sum(claim.uncited for claim in claims),
        )
        outcomes.append(_Built(outcome, case))
    built = [entry for entry in outcomes if isinstance(entry, _Built)]
    names = _file_names(built, group)
    by_file: dict[str, list[_Built]] = {}
    for entry in built:
        by_file.setdefault(names[id(entry)], []).append(entry)
    files: list[CaseFile] = []
    if by_file:
        out.mkdir(parents=True, exist_ok=True)
    for name in sorted(by_file):
        entries = by_file[name]
        path = out / name
        text = render_case_file(
            [entry.case for entry in entries], schema_url=schema_url, grouped=group == "input"
        )
        load_cases(path, text)  # the same parser as collection; each case passed it alone
        files.append(
            CaseFile(
                path,
                _write(path, text, overwrite),
                tuple(entry.case["id"] for entry in entries),
            )
        )
    records = tuple(
        replace(entry.outcome, path=out / names[id(entry)]) if isinstance(entry, _Built) else entry
        for entry in outcomes
    )
    return ImportResult(out, tuple(files), records)


def _file_names(built: Sequence[_Built], group: Grouping) -> dict[int, str]:
    """The file of each built case: its id, or its input file's name (distinct stems)."""
    if group == "record":
        taken: set[str] = set()
        return {
            id(entry): _unique(_file_stem(str(entry.case["id"])), taken) + ".yaml"
            for entry in built
        }
    stems: dict[Path, str] = {}
    taken = set()
    for entry in built:
        source = entry.outcome.source
        if source not in stems:
            stems[source] = _unique(_file_stem(source.stem), taken)
    return {id(entry): stems[entry.outcome.source] + ".yaml" for entry in built}
