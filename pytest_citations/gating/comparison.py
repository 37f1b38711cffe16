"""The comparison of a run with its base as values (see :mod:`.regressions` for how it is
made): how each claim differs (:class:`Regression`), each case (:class:`CaseDiff`), the
run's precision before and after, and what the gates of ``--citations-fail-on-regression``
and ``--citations-max-precision-drop`` fail (:meth:`Comparison.failures`). The typed
interface every output of the diff reads (terminal, JSON, HTML, Markdown)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from ..precision import Precision
from .criteria import Decision, Failure


class ChangeKind(StrEnum):
    """How a claim differs from the base."""

    #: Same text, another label.
    LABEL = "label"
    #: Same text and label, another decision (the criteria changed).
    DECISION = "decision"
    #: Same name, another text (the answer was rephrased).
    CHANGED = "changed"
    #: In this run only.
    ADDED = "added"
    #: In the base only.
    REMOVED = "removed"


@dataclass(frozen=True)
class ClaimState:
    """One claim as one run saw it."""

    nodeid: str
    name: str
    text: str
    label: str
    #: None when the base does not say (a baseline file stores labels only).
    decision: Decision | None
    line: int = 0
    #: Uncited general phrasing (``general: true``), which needs no citation.
    general: bool = False


@dataclass(frozen=True)
class CaseState:
    """One case as one run saw it: its claims and its citation precision."""

    file: str
    case: str
    question: str | None
    claims: tuple[ClaimState, ...]
    precision: Precision

    @property
    def key(self) -> str:
        """``file::case`` as in node ids."""
        return f"{self.file}::{self.case}"


@dataclass(frozen=True)
class Regression:
    """A claim that differs from the base (``kind``), with its labels ``before`` and
    ``after`` (None on the side it is missing from). ``regressed`` marks the regressions
    proper, the claims that got worse (see :mod:`.regressions`); the other differences are
    shown, never failed."""

    case: str
    claim: str
    kind: ChangeKind
    before: str | None
    after: str | None
    #: The claim's text in the base when it changed (or was removed), and now (None for a
    #: removed claim).
    text_before: str | None = None
    text_after: str | None = None
    #: This run's node id (the base's, for a removed claim) and line in its case file.
    nodeid: str = ""
    line: int = 0
    regressed: bool = False

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready mapping."""
        return {
            "case": self.case,
            "claim": self.claim,
            "nodeid": self.nodeid,
            "line": self.line,
            "kind": self.kind.value,
            "before": self.before,
            "after": self.after,
            "text_before": self.text_before,
            "text_after": self.text_after,
            "regressed": self.regressed,
        }


#: How a case of the run was matched with one of the base.
MATCHED_BY = ("key", "question", "id")


@dataclass(frozen=True)
class CaseDiff:
    """A case against the base: matched (``matched_by`` names how), added (no
    ``base_case``) or removed (no ``precision_after``)."""

    case: str
    base_case: str | None
    matched_by: str | None
    question: str | None
    precision_before: Precision | None
    precision_after: Precision | None
    changes: tuple[Regression, ...] = ()
    #: Claims of an added or removed case.
    claims: int = 0

    @property
    def status(self) -> str:
        """``matched``, ``added`` or ``removed``."""
        if self.base_case is None:
            return "added"
        return "removed" if self.precision_after is None else "matched"

    @property
    def changed(self) -> bool:
        """Anything to show: claims that differ, a precision that moved, a case found under
        another name, or a whole case added or removed."""
        moved = (
            self.precision_before is not None
            and self.precision_after is not None
            and self.precision_before.citation != self.precision_after.citation
        )
        renamed = self.matched_by not in (None, "key")
        return bool(self.changes) or moved or renamed or self.status != "matched"

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready mapping."""
        return {
            "case": self.case,
            "base_case": self.base_case,
            "matched_by": self.matched_by,
            "status": self.status,
            "question": self.question,
            "precision_before": figures(self.precision_before),
            "precision_after": figures(self.precision_after),
            "claims": self.claims,
            "changes": [change.to_dict() for change in self.changes],
        }


def figures(precision: Precision | None) -> dict[str, Any] | None:
    """A precision's figures, as the JSON report writes them (None: no such side)."""
    if precision is None:
        return None
    return {
        "citation_precision": precision.citation,
        "supported": precision.supported,
        "citations": precision.total,
        "reachable": precision.reachable,
    }


@dataclass(frozen=True)
class Comparison:
    """This run against the base ``base`` (its name as the summary shows it)."""

    base: str
    cases: tuple[CaseDiff, ...] = ()
    precision_before: Precision = field(default_factory=lambda: Precision(0, 0, 0))
    precision_after: Precision = field(default_factory=lambda: Precision(0, 0, 0))

    @property
    def changes(self) -> tuple[Regression, ...]:
        """Every claim that differs from the base, case by case."""
        return tuple(change for case in self.cases for change in case.changes)

    @property
    def regressions(self) -> tuple[Regression, ...]:
        """The claims that regressed."""
        return tuple(change for change in self.changes if change.regressed)

    def failures(
        self,
        *,
        fail_on_regression: bool,
        max_drop: float | None,
        unchecked: Mapping[str, int] | None = None,
    ) -> list[Failure]:
        """What the gates fail: every claim that regressed (with
        ``fail_on_regression``), and every matched case, and the run, whose citation
        precision fell by more than ``max_drop`` even if its ``unchecked`` citations (by
        case key) were all supported: a drop they could undo is :meth:`undecided`."""
        found = []
        if fail_on_regression:
            found += [
                Failure(
                    "fail_on_regression",
                    f"{change.nodeid} regressed against {self.base} "
                    f"({change.before or 'new'} -> {change.after})",
                )
                for change in self.regressions
            ]
        if max_drop is not None:
            found += [drop for drop, open_ in self._drops(max_drop, unchecked or {}) if not open_]
        return found

    def undecided(self, max_drop: float | None, unchecked: Mapping[str, int]) -> list[Failure]:
        """The precision drops beyond ``max_drop`` that the ``unchecked`` citations (by case
        key) could still undo: the gate cannot be decided, so the run is incomplete."""
        if max_drop is None:
            return []
        return [
            Failure(drop.criterion, f"{drop.message} (undecided: citations unchecked)")
            for drop, open_ in self._drops(max_drop, unchecked)
            if open_
        ]

    def _drops(self, limit: float, unchecked: Mapping[str, int]) -> list[tuple[Failure, bool]]:
        """Each drop beyond ``limit`` (the cases', then the run's), and whether unchecked
        citations could undo it."""
        found = []
        sides = [(c.case, c.precision_before, c.precision_after, unchecked.get(c.case, 0))
                 for c in self.cases]  # fmt: skip
        sides.append(("the run", self.precision_before, self.precision_after,
                      sum(unchecked.values())))  # fmt: skip
        for where, before, after, open_citations in sides:
            if not _dropped(before, after, limit):
                continue
            assert after is not None
            best = Precision(after.supported + open_citations, after.total, after.reachable)
            drop = _drop(where, before, after, limit, self.base)
            found.append((drop, _dropped(before, best, limit) is False))
        return found

    def to_dict(self) -> dict[str, Any]:
        """The JSON report's ``comparison``."""
        return {
            "base": self.base,
            "precision_before": figures(self.precision_before),
            "precision_after": figures(self.precision_after),
            "regressions": [change.to_dict() for change in self.regressions],
            "cases": [case.to_dict() for case in self.cases],
        }


def _dropped(before: Precision | None, after: Precision | None, limit: float) -> bool:
    if before is None or after is None or before.citation is None or after.citation is None:
        return False
    return before.citation - after.citation > limit + 1e-9


def _drop(where: str, before: Any, after: Any, limit: float, base: str) -> Failure:
    fell = before.citation - after.citation
    return Failure(
        "max_precision_drop",
        f"{where}: citation precision fell by {fell:.4f} against {base}, from "
        f"{before.fraction()} to {after.fraction()} (more than {limit:g})",
    )


__all__ = [
    "MATCHED_BY",
    "CaseDiff",
    "CaseState",
    "ChangeKind",
    "ClaimState",
    "Comparison",
    "Regression",
    "figures",
]
