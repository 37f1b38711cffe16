"""What an import did, as typed records, and the lines a command prints about it (a pure
function of the result: no I/O here)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from ..labels import counted
from ..sanitize import strip_controls
from .formats import AUTO

#: ``created``: a new file; ``updated``: the import merged into a file, its review kept;
#: ``replaced``: a file overwritten with the import, review and all; ``unchanged``: nothing
#: to change, not a byte written; ``kept``: a file the import could not merge into.
FileStatus = Literal["created", "updated", "replaced", "unchanged", "kept"]
STATUSES: tuple[FileStatus, ...] = ("created", "updated", "replaced", "unchanged", "kept")
NEXT_STEP = "pytest --citations {folder} --citations-record=new_episodes"


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
class ClaimChange:
    """A sentence of a case's answer that changed (its old and new text, and the pages each
    cites: a sentence that cites another page changed too) or is gone (new None): its
    reviewed claims were dropped."""

    case_id: str
    old: str
    new: str | None = None
    old_cites: tuple[str, ...] = ()
    new_cites: tuple[str, ...] = ()

    @property
    def recited(self) -> bool:
        """True when the sentence cites other pages than it did (tracking aside)."""
        return self.new is not None and set(self.old_cites) != set(self.new_cites)


@dataclass(frozen=True)
class ImportedFile:
    """A case file of the import and what happened to it."""

    path: Path
    status: FileStatus
    case_ids: tuple[str, ...]
    #: Review edits carried over: sentences whose reviewed claims were kept, claims of the
    #: reviewer's own, case keys only a reviewer writes.
    kept_edits: int = 0
    changes: tuple[ClaimChange, ...] = ()
    #: Sentences new in the answers.
    added: int = 0
    #: Cases of the file that are no longer among the answers.
    removed_cases: tuple[str, ...] = ()
    #: Why a ``kept`` file could not take the import.
    reason: str | None = None
    #: Claims per case written as imported that cite no source, still to be reviewed.
    uncited: Mapping[str, int] = field(default_factory=dict)

    @property
    def changed(self) -> tuple[ClaimChange, ...]:
        """The sentences whose text changed."""
        return tuple(change for change in self.changes if change.new is not None)

    @property
    def removed(self) -> tuple[ClaimChange, ...]:
        """The sentences no longer in the answer."""
        return tuple(change for change in self.changes if change.new is None)


@dataclass(frozen=True)
class ImportResult:
    """Everything an import did: the files, and one outcome per record in input order."""

    out_dir: Path
    files: tuple[ImportedFile, ...]
    records: tuple[RecordOutcome, ...]
    #: The format asked for: a name, or ``auto`` when each record's shape was detected.
    format: str = AUTO

    @property
    def imported(self) -> tuple[RecordOutcome, ...]:
        """The records that became cases."""
        return tuple(r for r in self.records if r.imported)

    @property
    def skipped(self) -> tuple[RecordOutcome, ...]:
        """The records that could not be read, with their reasons."""
        return tuple(r for r in self.records if not r.imported)

    @property
    def unmerged(self) -> tuple[ImportedFile, ...]:
        """The files that could not take the import and were kept as they were."""
        return tuple(f for f in self.files if f.status == "kept")

    def formats(self) -> dict[str, int]:
        """How many imported records each format read, by name."""
        return dict(sorted(Counter(r.format for r in self.imported if r.format).items()))

    def lines(self) -> list[str]:
        """The report a command line prints: counts, the formats read, what became of each
        file (created, updated with the edits it kept and the claims that changed,
        unchanged, kept), each skipped record with its line, and the next step."""
        formats = ", ".join(f"{name} {count}" for name, count in self.formats().items())
        statuses = Counter(f.status for f in self.files)
        done = ", ".join(f"{statuses[s]} {s}" for s in STATUSES if statuses[s])
        lines = [
            f"Imported {len(self.imported)} of {counted(len(self.records), 'answer record')} "
            f"into {counted(len(self.files), 'case file')} in {self.out_dir}"
            + (f" ({formats})" if formats else "")
            + (f": {done}" if done else ""),
            *self._format_lines(),
        ]
        for case_file in self.files:
            lines.extend(file_lines(case_file))
        lines.extend(f"Skipped {r.where}: {r.reason}" for r in self.skipped)
        lines.extend(
            f"Warning {r.where}: {warning}" for r in self.imported for warning in r.warnings
        )
        uncited = sum(r.uncited for r in self.imported)
        if uncited:
            verb, which = ("cites", "it") if uncited == 1 else ("cite", "them")
            lines.append(
                f"{counted(uncited, 'claim')} {verb} no source: review {which} (general: true "
                "for general phrasing)"
            )
        if self.imported:
            lines.append(
                "Next: review the case files, then record: " + NEXT_STEP.format(folder=self.out_dir)
            )
        return lines

    def _format_lines(self) -> list[str]:
        """Which format read the records: the one asked for, or those ``auto`` detected."""
        found = self.formats()
        if self.format != AUTO:
            return [f"Format: {self.format}, as asked"]
        if not found:
            return []
        detected = ", ".join(f"{name} ({counted(n, 'record')})" for name, n in found.items())
        return [f"Detected format{'s' if len(found) > 1 else ''}: {detected}"]


def file_lines(case_file: ImportedFile) -> list[str]:
    """What became of one case file: its status, and for a merge the edits it kept and each
    sentence that changed (old and new text) or left the answer."""
    path, status = case_file.path, case_file.status
    if status == "kept":
        reason = _shown(case_file.reason or "")
        return [
            f"Kept {path}: this import cannot be merged into it ({reason}); fix it, or import "
            "with overwrite to replace it"
        ]
    kept = counted(case_file.kept_edits, "kept edit")
    if status == "unchanged":
        return [f"Unchanged {path}" + (f" ({kept})" if case_file.kept_edits else "")]
    if status != "updated":
        return [f"{status.capitalize()} {path}"]
    counts = [kept, f"{len(case_file.changed)} changed", f"{len(case_file.removed)} removed"]
    if case_file.added:
        counts.append(f"{case_file.added} added")
    lines = [f"Updated {path} ({', '.join(counts)})"]
    for change in case_file.changes:
        head = f"  {'changed' if change.new is not None else 'removed'} ({change.case_id}): "
        old_cites = f" (cites {', '.join(change.old_cites) or 'nothing'})"
        new_cites = f" (cites {', '.join(change.new_cites) or 'nothing'})"
        lines.append(head + _shown(change.old) + (old_cites if change.recited else ""))
        if change.new is not None:
            shown = _shown(change.new) + (new_cites if change.recited else "")
            lines.append(" " * (len(head) - 4) + "to: " + shown)
    lines.extend(
        f"  removed case {case_id}: it is no longer among the answers"
        for case_id in case_file.removed_cases
    )
    return lines


def _shown(text: str) -> str:
    """Text of an answer as one printable line (answers are input: no terminal controls)."""
    return " ".join(strip_controls(text).split())
