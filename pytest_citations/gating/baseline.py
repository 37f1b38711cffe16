"""Baselines (004, C4): claim labels stored per node id, so that a later change is compared
claim by claim. A readable, key-sorted JSON file that reviews well in a diff."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from ..atomic import UnwritableFile, write_atomically
from ..errors import CitationsError
from ..labels import Label
from .precision import Precision
from .result import BaselineKind, ClaimResult, stored_location

FORMAT_VERSION = 1


def entry(claim: ClaimResult) -> dict[str, Any]:
    """What the baseline keeps of a checked claim: claim, label, and per URL label/reason."""
    assert claim.label is not None
    return {
        "claim": claim.text,
        "label": claim.label.value,
        "citations": [
            {"url": c.url, "label": c.label.value, "reason": c.reason} for c in claim.citations
        ],
    }


def _kind(value: Any) -> str:
    """How JSON names the type of ``value``, with its article."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true/false"
    kinds = {str: "a string", int: "a number", float: "a number", list: "a list"}
    return kinds.get(type(value), "an object")


def _not_text(
    mapping: dict[str, Any], key: str, where: str, *, optional: bool = False
) -> str | None:
    """Why ``mapping[key]`` is not a string, or None; an ``optional`` key may be missing
    or null."""
    value = mapping.get(key)
    if isinstance(value, str) or (optional and value is None):
        return None
    if key not in mapping:
        return f"has no {where}"
    return f"has {_kind(value)} as {where}, not a string"


def _entry_problem(stored: Any) -> str | None:
    """What is wrong with one stored entry (see :func:`entry`) for the readers of this
    module, or None: an object with a ``label`` string, a ``claim`` string or null, and
    ``citations`` (if any, null meaning none) a list of objects whose ``url``, ``label``
    and ``reason`` are strings or null (a hand-made entry may leave them out)."""
    if not isinstance(stored, dict):
        return f"is {_kind(stored)}, not an object"
    problem = _not_text(stored, "label", "its 'label'") or _not_text(
        stored, "claim", "its 'claim'", optional=True
    )
    if problem is not None:
        return problem
    citations = stored.get("citations") or []
    if not isinstance(citations, list):
        return f"has {_kind(citations)} as its 'citations', not a list"
    for number, citation in enumerate(citations, start=1):
        where = f"citation {number}"
        if not isinstance(citation, dict):
            return f"has {_kind(citation)} as {where}, not an object"
        problem = (
            _not_text(citation, "url", f"the 'url' of {where}", optional=True)
            or _not_text(citation, "label", f"the 'label' of {where}", optional=True)
            or _not_text(citation, "reason", f"the 'reason' of {where}", optional=True)
        )
        if problem is not None:
            return problem
    return None


class Baseline:
    """Stored claim entries keyed by node id."""

    def __init__(self, entries: Mapping[str, dict[str, Any]] | None = None) -> None:
        self.entries: dict[str, dict[str, Any]] = dict(entries or {})

    @classmethod
    def load(cls, path: Path) -> Baseline:
        """Read a baseline; a missing file is an empty baseline. A file that cannot be read,
        is not JSON (or is nested too deeply to parse), or holds an entry of the wrong shape
        is a :class:`~pytest_citations.errors.CitationsError` naming the file (and the
        entry): nothing downstream meets a value it cannot use."""
        if not path.exists():
            return cls()
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as error:
            raise CitationsError(f"cannot read the baseline {path}: {error}") from None
        except RecursionError:
            raise CitationsError(
                f"cannot read the baseline {path}: it is nested too deeply to be a baseline"
            ) from None
        claims = data.get("claims") if isinstance(data, dict) else None
        if not isinstance(claims, dict):
            raise CitationsError(f"{path} is not a pytest-citations baseline (no 'claims')")
        for nodeid, stored in claims.items():
            problem = _entry_problem(stored)
            if problem is not None:
                raise CitationsError(
                    f"{path} is not a valid pytest-citations baseline: the entry {nodeid!r} "
                    f"{problem} (fix it, or delete the file and write it again with "
                    "--citations-update-baseline)"
                )
        return cls(claims)

    def unused(self, seen: Iterable[str]) -> list[str]:
        """Entries no claim of this run matched (``seen``: the run's claims' node ids)."""
        seen_ids = set(seen)
        return sorted(nodeid for nodeid in self.entries if nodeid not in seen_ids)

    def stored_precision(self) -> dict[str, Precision]:
        """The citation precision the baseline stored, per case (``file::case``)."""
        known = {label.value for label in Label}
        cases: dict[str, Precision] = {}
        for nodeid, stored in self.entries.items():
            labels = [str(c.get("label")) for c in stored.get("citations") or ()]
            found = Precision.of(Label(label) for label in labels if label in known)
            key = stored_location(nodeid).case_key
            cases[key] = cases[key] + found if key in cases else found
        return cases

    def updated(self, claims: Iterable[ClaimResult], removable: Iterable[str]) -> Baseline:
        """This baseline with the run's checked claims written in (an unchecked claim keeps
        its stored label) and ``removable`` entries dropped."""
        gone = set(removable)
        entries = {k: v for k, v in self.entries.items() if k not in gone}
        for claim in claims:
            if claim.checked:
                entries[claim.nodeid] = entry(claim)
        return Baseline(entries)

    def reconcile(
        self,
        claims: Sequence[ClaimResult],
        *,
        shown: str,
        full_run: bool = True,
        present: Callable[[str], bool] = lambda file: True,
        owned: Callable[[str], bool] | None = None,
    ) -> Reconciliation:
        """A run's claims against this baseline (each claim's change is its own
        ``baseline``). An unused entry is stale, and so removed by an update, only after a
        full run of its file, or when its file is gone (``present`` says whether a case file
        still exists); a shard of a run lists only the unused entries of its own files
        (``owned`` says which files those are)."""
        by_kind: dict[BaselineKind, list[ClaimResult]] = {kind: [] for kind in BaselineKind}
        for claim in claims:
            if claim.baseline is not None:
                by_kind[claim.baseline.kind].append(claim)
        files = {nodeid: stored_location(nodeid).file for nodeid in self.entries}
        unused = [
            n for n in self.unused(c.nodeid for c in claims) if owned is None or owned(files[n])
        ]
        ran = {claim.where.file for claim in claims}
        stale = [n for n in unused if full_run and (files[n] in ran or not present(files[n]))]
        improved = by_kind[BaselineKind.IMPROVEMENT]
        return Reconciliation(
            shown=shown,
            regressed=tuple(c.nodeid for c in by_kind[BaselineKind.REGRESSION]),
            improved=tuple(
                (c.nodeid, c.baseline.old_label if c.baseline else None) for c in improved
            ),
            new=tuple(c.nodeid for c in by_kind[BaselineKind.NEW]),
            unused=tuple(unused),
            stale=tuple(stale),
        )

    def update(
        self, path: Path, claims: Sequence[ClaimResult], reconciled: Reconciliation
    ) -> Reconciliation:
        """Write this baseline, updated with the run's checked claims and without the stale
        entries, to ``path`` (as syrupy's ``--snapshot-update`` does): the reconciliation
        with what was written, or why nothing was (the file is then left as it was, and
        the run fails)."""
        try:
            self.updated(claims, reconciled.stale).write(path)
        except UnwritableFile as error:
            return replace(reconciled, unwritten=str(error))
        return replace(reconciled, written=sum(1 for claim in claims if claim.checked))

    def write(self, path: Path) -> None:
        """Key-sorted, indented JSON with a trailing newline (stable diffs), written
        atomically: a write that fails leaves the old file byte-identical."""
        data = {"version": FORMAT_VERSION, "claims": dict(sorted(self.entries.items()))}
        write_atomically(
            path, json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
        )


@dataclass(frozen=True)
class Reconciliation:
    """A run's claims against the baseline: what changed, what is unused, and, after an
    update, what was written. Its :meth:`lines` are the summary's; nothing here prints."""

    shown: str
    regressed: tuple[str, ...] = ()
    #: (node id, the label the baseline had).
    improved: tuple[tuple[str, str | None], ...] = ()
    new: tuple[str, ...] = ()
    unused: tuple[str, ...] = ()
    #: Unused entries surely stale: their file ran in full, or is gone. An update removes
    #: them; ``--citations-baseline-fail-unused`` fails a run that leaves them.
    stale: tuple[str, ...] = ()
    #: Claims written by an update; None when the run did not update the baseline.
    written: int | None = None
    #: Why an update could not be written (the file was left as it was), or None.
    unwritten: str | None = None

    @property
    def changed(self) -> bool:
        """Anything an update would write or remove."""
        return bool(self.regressed or self.improved or self.new or self.stale)

    def fails(self, fail_unused: bool) -> bool:
        """An update that could not be written fails the run; stale entries fail it when
        asked to, unless this run removed them."""
        if self.unwritten is not None:
            return True
        return fail_unused and self.written is None and bool(self.stale)

    def lines(self, *, fail_unused: bool = False) -> list[str]:
        """The summary's lines, ending with the next step to take."""
        lines = [
            f"baseline {self.shown}: {len(self.regressed)} regressed, {len(self.improved)} "
            f"improved, {len(self.new)} new, {len(self.unused)} unused"
        ]
        lines += [f"  improved: {n} ({old} -> better)" for n, old in self.improved]
        accepted = " (written into the baseline)" if self.written is not None else ""
        lines += [f"  regressed: {n}{accepted}" for n in self.regressed]
        lines += [f"  unused: {n}" for n in self.unused]
        if self.written is not None:
            return [*lines, self._update_line()]
        if self.unwritten is not None:
            return [*lines, f"FAIL baseline not updated: {self.unwritten}"]
        if self.fails(fail_unused):
            lines.append(
                f"FAIL {_entries(len(self.stale))} unused (--citations-baseline-fail-unused)"
            )
        if self.changed:
            removing = f", removing the {len(self.stale)} unused" if self.stale else ""
            lines.append(
                "Re-run with --citations-update-baseline to write this run's labels into "
                f"the baseline{removing}."
            )
        return lines

    def _update_line(self) -> str:
        kinds = [
            (len(self.regressed), "regressed"),
            (len(self.improved), "improved"),
            (len(self.new), "new"),
        ]
        changed = ", ".join(f"{count} {kind}" for count, kind in kinds if count)
        kept = len(self.unused) - len(self.stale)
        return (
            f"baseline updated: {self.written} claims written"
            + (f" ({changed})" if changed else "")
            + f", {len(self.stale)} unused removed"
            + (f", {kept} kept (not a full run of their files)" if kept else "")
        )


def _entries(count: int) -> str:
    return f"{count} baseline {'entry' if count == 1 else 'entries'}"
