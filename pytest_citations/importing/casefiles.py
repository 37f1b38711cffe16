"""Case files from answer records: built, checked with the case-file parser, and written so
that importing the same answers again gives byte-identical files.

Stable ids (:mod:`.identity`: the record's question id, else its question), files and cases
in one fixed order, the text of :mod:`.render`: the same input always gives the same bytes,
so case files diff well in review. Every file is loaded with
:func:`pytest_citations.cases.load_cases` before it is written; a file that is already there
has the import merged into it, its review kept (:mod:`.update`), unless ``overwrite`` is
asked for.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Literal

from ..cases import CaseFileError, load_cases
from ..errors import CitationsError, ConfigurationError
from .answers import UNMARKED_POLICIES, ImportedAnswer, Unmarked, read_answer
from .formats import AUTO, check_format
from .merge import Sentences
from .records import AnswerRecord, BadAnswerRecord, read_records
from .render import case_mapping, render_case_file
from .result import ImportedFile, ImportResult, RecordOutcome
from .update import Fresh, update_file

#: The JSON Schema of case files, for the ``# yaml-language-server: $schema=…`` line that
#: gives editors completion and validation. None: no one address is true for every project
#: (the package is not published anywhere a URL could name). ``pytest-citations import
#: --schema PATH`` writes the schema beside the cases and passes ``schema_url`` relative to
#: them; ``pytest-citations schema`` prints it.
CASE_SCHEMA_URL: str | None = None

Grouping = Literal["record", "input"]
#: ``record``: one file per answer, named after its case id; ``input``: one file per input
#: file, its cases under ``cases:`` in line order.
GROUPINGS: tuple[Grouping, ...] = ("record", "input")

_MAX_STEM = 120
_ID = re.compile(r"[^A-Za-z0-9_.-]+")


@dataclass(frozen=True)
class _Built:
    outcome: RecordOutcome
    fresh: Fresh


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
    _check_options(format, group, unmarked)
    out = Path(out_dir)
    outcomes: list[RecordOutcome | _Built] = []
    taken: set[str] = set()
    for item in read_records(sources):
        if isinstance(item, BadAnswerRecord):
            outcomes.append(_skipped(item.source, item.line, item.reason))
        else:
            outcomes.append(_build(item, format, unmarked, taken))
    built = [entry for entry in outcomes if isinstance(entry, _Built)]
    names = _file_names(built, group)
    files = _write_files(out, built, names, group, overwrite, schema_url)
    uncited = {(f.path, case_id): count for f in files for case_id, count in f.uncited.items()}
    records = tuple(
        _placed(entry, out / names[id(entry)], uncited) if isinstance(entry, _Built) else entry
        for entry in outcomes
    )
    return ImportResult(out, files, records, format)


def _placed(entry: _Built, path: Path, uncited: Mapping[tuple[Path, str], int]) -> RecordOutcome:
    """The record's outcome with its file, and the claims of its case still to review."""
    found = uncited.get((path, entry.fresh.id), entry.outcome.uncited)
    return replace(entry.outcome, path=path, uncited=found)


def _check_options(format: str, group: str, unmarked: str) -> None:
    """A configuration error for an unknown format, grouping or policy."""
    check_format(format)
    if group not in GROUPINGS:
        raise ConfigurationError(f"unknown grouping {group!r} (known: {', '.join(GROUPINGS)})")
    if unmarked not in UNMARKED_POLICIES:
        raise ConfigurationError(
            f"unknown policy for unmarked answers {unmarked!r} (known: "
            + ", ".join(UNMARKED_POLICIES)
            + ")"
        )


def _build(
    item: AnswerRecord, format: str, unmarked: Unmarked, taken: set[str]
) -> RecordOutcome | _Built:
    """The case of one record (its id taken from ``taken``), or why it was skipped."""
    try:
        answer = read_answer(item.data, format, unmarked=unmarked)
        claims = answer.claims()
    except CitationsError as error:
        return _skipped(item.source, item.line, str(error))
    except (TypeError, ValueError, KeyError, IndexError, AttributeError, RecursionError) as error:
        # A shape no reader foresaw (or nested past what a reader can follow) must cost one
        # record, not the import.
        reason = f"could not read the record ({type(error).__name__}: {error})"
        return _skipped(item.source, item.line, reason)
    if not claims:
        return _skipped(item.source, item.line, "the answer holds no sentence", answer.format)
    case_id = _unique(answer.case_id(), taken)
    case = case_mapping(answer, case_id, claims)
    fresh = Fresh(case, Sentences.of(claims, answer.citations))
    problem = _invalid(case, answer)
    if problem:
        taken.discard(case_id.lower())
        return _skipped(item.source, item.line, problem, answer.format)
    outcome = RecordOutcome(
        item.source,
        item.line,
        format=answer.format,
        case_id=case_id,
        warnings=answer.warnings,
        uncited=sum(claim.uncited for claim in claims),
    )
    return _Built(outcome, fresh)


def _write_files(
    out: Path,
    built: Sequence[_Built],
    names: Mapping[int, str],
    group: Grouping,
    overwrite: bool,
    schema_url: str | None,
) -> tuple[ImportedFile, ...]:
    """Write (or merge) the case files, in name order."""
    by_file: dict[str, list[Fresh]] = {}
    for entry in built:
        by_file.setdefault(names[id(entry)], []).append(entry.fresh)
    if by_file:
        out.mkdir(parents=True, exist_ok=True)
    return tuple(
        update_file(
            out / name,
            by_file[name],
            grouped=group == "input",
            overwrite=overwrite,
            schema_url=schema_url,
        )
        for name in sorted(by_file)
    )


def _file_names(built: Sequence[_Built], group: Grouping) -> dict[int, str]:
    """The file of each built case: its id, or its input file's name (distinct stems)."""
    if group == "record":
        taken: set[str] = set()
        return {id(entry): _unique(_file_stem(entry.fresh.id), taken) + ".yaml" for entry in built}
    stems: dict[Path, str] = {}
    taken = set()
    for entry in built:
        source = entry.outcome.source
        if source not in stems:
            stems[source] = _unique(_file_stem(source.stem), taken)
    return {id(entry): stems[entry.outcome.source] + ".yaml" for entry in built}
