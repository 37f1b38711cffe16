"""Baselines (004, C4): claim labels stored per node id, so that a later change is compared
claim by claim. A readable, key-sorted JSON file that reviews well in a diff."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from ..atomic import UnwritableFile, write_atomically
from ..errors import CitationsError
from ..labels import LABEL_RANK, Label
from ..verdicts import CitationVerdict

FORMAT_VERSION = 1


@dataclass(frozen=True)
class Change:
    """How a claim's label moved against the baseline."""

    kind: str  # "regression", "improvement", "unchanged" or "new"
    old: dict[str, Any] | None
    new: dict[str, Any]

    @property
    def old_label(self) -> str | None:
        """The label in the baseline, if any."""
        return self.old["label"] if self.old else None


class Entry(Protocol):
    """What the baseline reads of a claim (a claim record has it)."""

    @property
    def nodeid(self) -> str: ...

    @property
    def claim(self) -> str: ...

    @property
    def label(self) -> str: ...

    @property
    def citations(self) -> Sequence[CitationVerdict]: ...


def entry(record: Entry) -> dict[str, Any]:
    """What the baseline keeps of a claim: claim, label, and per URL label/reason."""
    return {
        "claim": record.claim,
        "label": record.label,
        "citations": [
            {"url": c.url, "label": c.label.value, "reason": c.reason} for c in record.citations
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


def _rank(label: str) -> int:
    try:
        return LABEL_RANK[Label(label)]
    except ValueError:
        return len(LABEL_RANK)


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

    def compare(self, record: Entry) -> Change:
        """Regression, improvement, unchanged or new, by label rank (supported best)."""
        new = entry(record)
        old = self.entries.get(record.nodeid)
        if old is None:
            return Change("new", None, new)
        before, after = _rank(old["label"]), _rank(new["label"])
        if after > before:
            return Change("regression", old, new)
        if after < before:
            return Change("improvement", old, new)
        return Change("unchanged", old, new)

    def unused(self, seen: Iterable[str]) -> list[str]:
        """Entries no claim of this run matched."""
        seen_ids = set(seen)
        return sorted(nodeid for nodeid in self.entries if nodeid not in seen_ids)

    def updated(self, records: Iterable[Entry], removable: Iterable[str]) -> Baseline:
        """This baseline with the run's claims written in and ``removable`` entries dropped."""
        entries = {k: v for k, v in self.entries.items() if k not in set(removable)}
        for record in records:
            entries[record.nodeid] = entry(record)
        return Baseline(entries)

    def reconcile(
        self,
        records: Sequence[Entry],
        changes: Mapping[str, tuple[str, str | None]],
        *,
        shown: str,
        update_to: Path | None = None,
        full_run: bool = True,
        present: Callable[[str], bool] = lambda nodeid: True,
        unchecked: frozenset[str] = frozenset(),
        owned: Callable[[str], bool] | None = None,
    ) -> Reconciliation:
        """A run's claims against this baseline, given each claim's change ``(kind, old
        label)`` by node id; with ``update_to``, also write the updated baseline there (as
        syrupy's ``--snapshot-update`` does). An unused entry is stale, and so removed by an
        update, only after a full run of its file, or when its file is gone (``present``
        says whether a node id's file still exists); a claim in ``unchecked`` (not checked)
        keeps its stored label. A shard of a run lists only the unused entries of its own
        files (``owned`` says which node ids those are). An update that cannot be written leaves
        the file as it was and fails the run (:attr:`Reconciliation.unwritten`)."""
        by_kind: dict[str, list[str]] = {"regression": [], "improvement": [], "new": []}
        for nodeid, (kind, _) in changes.items():
            by_kind.setdefault(kind, []).append(nodeid)
        unused = [n for n in self.unused(r.nodeid for r in records) if owned is None or owned(n)]
        ran = {record.nodeid.split("::", 1)[0] for record in records}
        stale = [n for n in unused if full_run and (n.split("::", 1)[0] in ran or not present(n))]
        written: int | None = None
        unwritten: str | None = None
        if update_to is not None:
            checked = [record for record in records if record.nodeid not in unchecked]
            try:
                self.updated(checked, stale).write(update_to)
            except UnwritableFile as error:
                unwritten = str(error)
            else:
                written = len(records)
        return Reconciliation(
            shown=shown,
            regressed=tuple(by_kind["regression"]),
            improved=tuple((n, changes[n][1]) for n in by_kind["improvement"]),
            new=tuple(by_kind["new"]),
            unused=tuple(unused),
            stale=tuple(stale),
            written=written,
            unwritten=unwritten,
        )

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
        kinds = [(len(self.regressed), "regressed"), (len(self.improved), "improved"),
                 (len(self.new), "new")]  # fmt: skip
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


def side_by_side(change: Change) -> str:
    """Old and new verdicts of a claim, URL by URL."""
    old = change.old or {"label": "-", "citations": []}
    lines = [f"label: {old['label']} -> {change.new['label']}"]
    old_by_url = {c.get("url"): c for c in old.get("citations") or []}
    for citation in change.new["citations"]:
        before = old_by_url.get(citation["url"])
        was = (
            f"{before.get('label') or '-'}"
            + (f" ({before['reason']})" if before.get("reason") else "")
            if before
            else "-"
        )
        now = citation["label"] + (f" ({citation['reason']})" if citation.get("reason") else "")
        lines.append(f"  {citation['url']}: {was} -> {now}")
    return "\n".join(lines)
