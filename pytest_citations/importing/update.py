"""A case file written by an import, or brought up to date with a new one.

A new file is written as imported. An existing file is merged: each case of the import meets
the case of the same id in the file; the record's own values (question, answer, citations)
are the import's, the claims are merged by :mod:`.merge`, and what only a reviewer writes
(criteria, a topic, a threshold, tags and retrieved pages added, notes of their own) stays.
A file the merge leaves as it is keeps every byte, the reviewer's comments and layout
included; one that changes is written in the import's layout, checked by the case-file
parser first, atomically. ``overwrite`` replaces the file with the import, review and all.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..atomic import write_atomically
from ..cases import Case, CaseFileError, load_cases
from ..cases.fields import CASE
from ..cases.loader import load_document
from .answers import AnswerClaim
from .identity import without_tracking
from .merge import ClaimsMerge, Sentences, merge_claims
from .render import IMPORT_NOTE, render_case_file, yaml_value
from .result import ClaimChange, ImportedFile

#: Case keys whose value is the record's, whatever the file says.
IMPORTED = frozenset({"id", "question", "answer", "citations"})
#: Case keys whose entries a reviewer may add to the record's.
UNITED = frozenset({"retrieved", "tags"})
_SCHEMA_LINE = re.compile(r"# yaml-language-server: \$schema=(\S+)")


@dataclass(frozen=True)
class Fresh:
    """A case as the import writes it, and the sentences its claims are."""

    case: dict[str, Any]
    sentences: Sentences

    @property
    def id(self) -> str:
        """The case's id."""
        return str(self.case["id"])

    @property
    def uncited(self) -> int:
        """Its claims that cite no source."""
        return sum(claim.uncited for claim in self.sentences.claims)


@dataclass(frozen=True)
class _Merged:
    """One case after the merge: its mapping, its claims' merge, the edits it kept."""

    case: dict[str, Any]
    claims: ClaimsMerge | None = None
    kept_edits: int = 0
    #: Its claims written as imported that cite nothing.
    uncited: int = 0


class NotMerged(Exception):
    """Why an existing file cannot take the import."""


def _united(old: Any, new: Any) -> Any:
    """The record's entries and those the file adds (file order first); the record's alone
    when the two are not of one kind."""
    if old is None or new is None:
        return new if old is None else old
    if isinstance(old, list) and isinstance(new, list):
        return [*old, *(item for item in new if item not in old)]
    if isinstance(old, Mapping) and isinstance(new, Mapping):
        taken = set(old.values())
        return {**old, **{k: v for k, v in new.items() if k not in old and v not in taken}}
    return new


def _untracked(value: Any) -> Any:
    """URLs of the file's ``retrieved:`` as the import writes them: without tracking."""
    if isinstance(value, list):
        return [without_tracking(item) if isinstance(item, str) else item for item in value]
    if isinstance(value, Mapping):
        return {k: without_tracking(v) if isinstance(v, str) else v for k, v in value.items()}
    return value


def _not_cited(value: Any, citations: Mapping[str, str]) -> Any:
    """The file's ``retrieved:`` without the pages (or markers) the new answer cites: a page
    is cited or retrieved, not both."""
    urls = {without_tracking(url) for url in citations.values()}
    if isinstance(value, list):
        return [item for item in value if item not in urls] or None
    if isinstance(value, Mapping):
        kept = {k: v for k, v in value.items() if v not in urls and str(k) not in citations}
        return kept or None
    return value


def _notes(old: Any, new: Any) -> Any:
    """A reviewer's own notes on the case, else the import's (which say what it found)."""
    if isinstance(old, str) and old.strip() and not old.startswith(IMPORT_NOTE):
        return old
    return new


def merge_case(raw: Mapping[str, Any], case: Case, fresh: Fresh) -> _Merged:
    """The import's case with the review of the file's case carried over."""
    if case.answer is None:
        raise NotMerged(f"its case {case.id!r} has no answer, so import did not write it")
    claims = None
    if isinstance(raw.get("claims"), list):  # without claims: the answer's sentences
        old = Sentences.imported(case.answer, case.citations, case.documents)
        claims = merge_claims(raw["claims"], old, fresh.sentences)
    merged: dict[str, Any] = {}
    for key in CASE:
        if key == "claims":
            value = claims.entries if claims is not None else None
        elif key in IMPORTED:
            value = fresh.case.get(key)
        elif key == "retrieved":
            own = _not_cited(_untracked(raw.get(key)), fresh.sentences.citations)
            value = _united(own, fresh.case.get(key))
        elif key in UNITED:
            value = _united(raw.get(key), fresh.case.get(key))
        elif key == "notes":
            value = _notes(raw.get(key), fresh.case.get(key))
        else:
            value = raw.get(key)
        if value is not None:
            merged[key] = yaml_value(value, key)
    edits = sum(merged.get(key) != fresh.case.get(key) for key in CASE if key != "claims")
    if claims is None:
        return _Merged(merged, None, edits)
    return _Merged(merged, claims, edits + claims.kept_edits, claims.uncited)


def _read(path: Path, text: str) -> tuple[Any, list[tuple[Any, Case]]]:
    """The file's document and each of its cases, raw and parsed."""
    try:
        cases = load_cases(path, text)
        document = load_document(path, text)
    except CaseFileError as error:
        raise NotMerged(f"it does not load as a case file: {error.message}") from None
    grouped = isinstance(document, Mapping) and "cases" in document
    raw = document["cases"] if grouped else [document]
    return document, list(zip(raw, cases, strict=True))


@dataclass(frozen=True)
class _FileMerge:
    cases: list[_Merged]
    document: Any
    removed_cases: tuple[str, ...]


def _merged_cases(path: Path, text: str, fresh: Sequence[Fresh], grouped: bool) -> _FileMerge:
    """Each case of the import merged with the file's case of its id."""
    document, old = _read(path, text)
    by_id = {case.id: (raw, case) for raw, case in old}
    if len(old) == 1 and len(fresh) == 1 and not grouped:
        by_id = {fresh[0].id: old[0]}  # one case a file: the file names it
    merged = []
    for new in fresh:
        found = by_id.pop(new.id, None)
        merged.append(
            _Merged(new.case, uncited=new.uncited) if found is None else merge_case(*found, new)
        )
    return _FileMerge(merged, document, tuple(by_id))


def _cited(claim: AnswerClaim) -> tuple[str, ...]:
    """The pages a sentence cites, as the case file names them (no tracking parameters)."""
    return tuple(dict.fromkeys(without_tracking(url) for url in claim.urls))


def _changes(fresh: Sequence[Fresh], merged: Sequence[_Merged]) -> list[ClaimChange]:
    changes: list[ClaimChange] = []
    for new, done in zip(fresh, merged, strict=True):
        if done.claims is not None:
            changes.extend(
                ClaimChange(new.id, old.text, text.text, _cited(old), _cited(text))
                for old, text in done.claims.changed
            )
            changes.extend(ClaimChange(new.id, old) for old in done.claims.removed)
    return changes


def _with_schema_line(text: str, schema_url: str | None) -> str:
    """The file's text naming ``schema_url`` on its first line (as it was without one)."""
    if schema_url is None:
        return text
    line = f"# yaml-language-server: $schema={schema_url}"
    first, _, rest = text.partition("\n")
    if first == line:
        return text
    return f"{line}\n{rest}" if _SCHEMA_LINE.fullmatch(first) else f"{line}\n{text}"


def _merge(
    path: Path, text: str, fresh: Sequence[Fresh], grouped: bool, schema_url: str | None
) -> tuple[ImportedFile, str]:
    """The file after the merge and the text to write ("" when nothing changes)."""
    merge = _merged_cases(path, text, fresh, grouped)
    cases = [done.case for done in merge.cases]
    document = cases[0] if len(cases) == 1 and not grouped else {"cases": cases}
    first = _SCHEMA_LINE.fullmatch(text.partition("\n")[0])
    if document == merge.document:
        wanted = _with_schema_line(text, schema_url)
    else:
        schema = schema_url or (first[1] if first else None)
        wanted = render_case_file(cases, schema_url=schema, grouped=grouped)
        try:
            load_cases(path, wanted)
        except CaseFileError as error:
            raise NotMerged(f"the merged file would not load: {error.message}") from None
    result = ImportedFile(
        path,
        "unchanged" if wanted == text else "updated",
        tuple(new.id for new in fresh),
        kept_edits=sum(done.kept_edits for done in merge.cases),
        changes=tuple(_changes(fresh, merge.cases)),
        added=sum(done.claims.added for done in merge.cases if done.claims),
        removed_cases=merge.removed_cases,
        uncited={new.id: done.uncited for new, done in zip(fresh, merge.cases, strict=True)},
    )
    return result, "" if wanted == text else wanted


def update_file(
    path: Path, fresh: Sequence[Fresh], *, grouped: bool, overwrite: bool, schema_url: str | None
) -> ImportedFile:
    """Write the import's cases to ``path``: created, merged into the file there (its review
    kept), or, with ``overwrite``, replacing it."""
    ids = tuple(new.id for new in fresh)
    text = render_case_file([new.case for new in fresh], schema_url=schema_url, grouped=grouped)
    load_cases(path, text)  # the same parser as collection; each case passed it alone
    uncited = {new.id: new.uncited for new in fresh}
    try:
        existing = path.read_bytes()
    except FileNotFoundError:
        existing = None
    if existing == text.encode("utf-8"):
        return ImportedFile(path, "unchanged", ids, uncited=uncited)
    if existing is not None and not overwrite:
        try:
            result, text = _merge(path, existing.decode("utf-8"), fresh, grouped, schema_url)
        except (NotMerged, UnicodeDecodeError) as error:
            reason = "it is not UTF-8 text" if isinstance(error, UnicodeDecodeError) else error
            return ImportedFile(path, "kept", ids, reason=str(reason))
    else:
        result = ImportedFile(
            path, "created" if existing is None else "replaced", ids, uncited=uncited
        )
    if text:
        # An interrupted import leaves the old file or the new one, never half of one; a new
        # file gets the user's umask like any source file, a replaced one keeps its mode.
        write_atomically(path, text)
    return result
