"""Baselines (004, C4): claim labels stored per node id, so that a later change is compared
claim by claim. A readable, key-sorted JSON file that reviews well in a diff."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import CitationsError
from ..labels import Label
from .criteria import LABEL_RANK

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


def entry(record: Mapping[str, Any]) -> dict[str, Any]:
    """What the baseline keeps of a claim record: claim, label, and per URL label/reason."""
    return {
        "claim": record["claim"],
        "label": record["label"],
        "citations": [
            {"url": c["url"], "label": c["label"], "reason": c.get("reason")}
            for c in record["citations"]
        ],
    }


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
        """Read a baseline; a missing file is an empty baseline."""
        if not path.exists():
            return cls()
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as error:
            raise CitationsError(f"cannot read the baseline {path}: {error}") from None
        claims = data.get("claims") if isinstance(data, dict) else None
        if not isinstance(claims, dict):
            raise CitationsError(f"{path} is not a pytest-citations baseline (no 'claims')")
        return cls(claims)

    def compare(self, nodeid: str, record: Mapping[str, Any]) -> Change:
        """Regression, improvement, unchanged or new, by label rank (supported best)."""
        new = entry(record)
        old = self.entries.get(nodeid)
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

    def updated(self, records: Iterable[Mapping[str, Any]], removable: Iterable[str]) -> Baseline:
        """This baseline with the run's claims written in and ``removable`` entries dropped."""
        entries = {k: v for k, v in self.entries.items() if k not in set(removable)}
        for record in records:
            entries[record["nodeid"]] = entry(record)
        return Baseline(entries)

    def write(self, path: Path) -> None:
        """Key-sorted, indented JSON with a trailing newline (stable diffs)."""
        path.parent.mkdir(parents=True, exist_ok=True)
        data = {"version": FORMAT_VERSION, "claims": dict(sorted(self.entries.items()))}
        path.write_text(
            json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n", "utf-8"
        )


def side_by_side(change: Change) -> str:
    """Old and new verdicts of a claim, URL by URL."""
    old = change.old or {"label": "-", "citations": []}
    lines = [f"label: {old['label']} -> {change.new['label']}"]
    old_by_url = {c["url"]: c for c in old.get("citations", [])}
    for citation in change.new["citations"]:
        before = old_by_url.get(citation["url"])
        was = (
            f"{before['label']}" + (f" ({before['reason']})" if before and before["reason"] else "")
            if before
            else "-"
        )
        now = citation["label"] + (f" ({citation['reason']})" if citation.get("reason") else "")
        lines.append(f"  {citation['url']}: {was} -> {now}")
    return "\n".join(lines)
