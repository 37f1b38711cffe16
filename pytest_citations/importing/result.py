"""What an import did, as typed records, and the lines a command prints about it (a pure
function of the result: no I/O here)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from .formats import AUTO

FileStatus = Literal["written", "unchanged", "kept"]
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

    def formats(self) -> dict[str, int]:
        """How many imported records each format read, by name."""
        return dict(sorted(Counter(r.format for r in self.imported if r.format).items()))

    def lines(self) -> list[str]:
        """The report a command line prints: counts, the formats read, the files written,
        each skipped record with its line, kept files, and the next step."""
        formats = ", ".join(f"{name} {count}" for name, count in self.formats().items())
        statuses = Counter(f.status for f in self.files)
        done = ", ".join(
            f"{statuses[s]} {s}" for s in ("written", "unchanged", "kept") if statuses[s]
        )
        lines = [
            f"Imported {len(self.imported)} of {_count(len(self.records), 'answer record')} "
            f"into {_count(len(self.files), 'case file')} in {self.out_dir}"
            + (f" ({formats})" if formats else "")
            + (f": {done}" if done else ""),
            *self._format_lines(),
        ]
        lines.extend(f"Wrote {f.path}" for f in self.files if f.status == "written")
        lines.extend(f"Skipped {r.where}: {r.reason}" for r in self.skipped)
        lines.extend(
            f"Kept {f.path}: it differs from this import (edited in review?); "
            "import with overwrite to replace it"
            for f in self.files
            if f.status == "kept"
        )
        uncited = sum(r.uncited for r in self.imported)
        if uncited:
            verb, which = ("cites", "it") if uncited == 1 else ("cite", "them")
            lines.append(
                f"{_count(uncited, 'claim')} {verb} no source: review {which} (general: true "
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
        detected = ", ".join(f"{name} ({_count(n, 'record')})" for name, n in found.items())
        return [f"Detected format{'s' if len(found) > 1 else ''}: {detected}"]


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}" + ("" if number == 1 else "s")
