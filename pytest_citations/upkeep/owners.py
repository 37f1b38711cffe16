"""Which cassettes a command was given, and the case file whose recordings each holds: the
inverse of the plugin's layout (``cases/x.yaml`` records into ``cassettes/cases/x.yaml``),
checked against it, with the case file read as the drift check reads it
(:class:`~pytest_citations.drift.DriftSource`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ..cases import CaseFileError
from ..drift.sources import DriftSource
from ..paths import shown


@dataclass(frozen=True)
class CassetteOwner:
    """A cassette and its case file (``source``), or why it has none (``problem``)."""

    cassette: Path
    source: DriftSource | None
    problem: str = ""
    #: The case file that would record into it, which does not exist (a deleted case
    #: file's cassette, or a test's: the fixture's layout mirrors the test module's path).
    missing: Path | None = None


def cassette_files(paths: Sequence[Path]) -> list[Path]:
    """The cassettes among ``paths`` (folders searched for ``*.yaml``/``*.yml``), sorted,
    each once. Raises ``FileNotFoundError`` for a path that does not exist."""
    found: dict[Path, None] = {}
    for given in paths:
        if given.is_dir():
            for path in sorted([*given.rglob("*.yaml"), *given.rglob("*.yml")]):
                found.setdefault(path, None)
        elif given.is_file():
            found.setdefault(given, None)
        else:
            raise FileNotFoundError(f"no cassette or folder at {given}")
    return list(found)


def _owner(cassette: Path, cassette_dir: Path, root: Path) -> CassetteOwner:
    folder = shown(cassette_dir, root)
    try:
        relative = cassette.resolve().relative_to(cassette_dir.resolve())
    except ValueError:
        why = f"it is not under the cassette folder {folder} (--cassette-dir, --root)"
        return CassetteOwner(cassette, None, why)
    case_file = root / relative
    if not case_file.is_file():
        why = (
            f"no case file {shown(case_file, root)} records into it (a test's cassette gains "
            "its choices when it is recorded again)"
        )
        return CassetteOwner(cassette, None, why, missing=case_file)
    try:
        source = DriftSource.from_case_file(case_file, cassette_dir, root)
    except CaseFileError as error:
        return CassetteOwner(cassette, None, f"its case file cannot be read: {error}")
    if source.cassette.resolve() != cassette.resolve():
        why = f"{shown(case_file, root)} records into {shown(source.cassette, root)}"
        return CassetteOwner(cassette, None, why)
    return CassetteOwner(cassette, source)


def owners_of(cassettes: Sequence[Path], cassette_dir: Path, root: Path) -> list[CassetteOwner]:
    """Each cassette with the case file that records into it (see :class:`CassetteOwner`)."""
    return [_owner(cassette, cassette_dir, root) for cassette in cassettes]
