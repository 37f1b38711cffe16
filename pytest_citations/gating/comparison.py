"""The comparison of a run with its base as values (see :mod:`.regressions` for how it is
made): how each claim differs (:class:`ClaimDiff`), each case (:class:`CaseDiff`), the run's
precision before and after, the criteria laxer than the base's (:class:`Relaxation`, see
:mod:`.relaxation`), and what the gates of ``--citations-fail-on-regression`` and
``--citations-max-precision-drop`` decided, once: each diff says whether it ``fails``, and
the comparison holds the drops that fail and those that unchecked citations leave
undecided. The typed interface every output of the diff reads (terminal, JSON, HTML,
Markdown, GitHub)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from .criteria import Decision, Failure
from .precision import Precision

if TYPE_CHECKING:
    from .result import Location

#: How a side that could not be checked is named where a label would stand.
UNCHECKED = "unchecked"


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
    #: Unchecked on either side: it has no label there, so there is nothing to compare.
    NOT_COMPARED = "not_compared"


@dataclass(frozen=True)
class ClaimState:
    """One claim as one run saw it: its label (None when it was not checked)."""

    where: Location
    text: str
    label: str | None
    #: None when the base does not say (a baseline file stores labels only).
    decision: Decision | None
    #: Uncited general phrasing (``general: true``), which needs no citation.
    general: bool = False

    @property
    def shown(self) -> str:
        """Its label, or ``unchecked``."""
        return self.label if self.label is not None else UNCHECKED


@dataclass(frozen=True)
class CaseState:
    """One case as one run saw it: its claims and its citation precision."""

    file: str
    case: str
    question: str | None
    claims: tuple[ClaimState, ...]
    precision: Precision
    #: The case's own criteria (its ``criteria:`` and ``min_precision:``, over the run's);
    #: None when the side does not say (a baseline file stores labels only).
    criteria: Mapping[str, Any] | None = None
    #: The case's answer as its file gives it (None: it gives none, or the side does not say).
    answer: str | None = None

    @property
    def key(self) -> str:
        """``file::case``."""
        return f"{self.file}::{self.case}"


#: A criterion's value as a relaxation shows it: a threshold, a flag, labels or topics,
#: the calibration gate (``kappa 0.6``), or None where it is not set.
Value = float | bool | str | tuple[str, ...] | None


@dataclass(frozen=True)
class Relaxation:
    """A criterion laxer than the base's (see :mod:`.relaxation`): its value ``before`` and
    ``after``, and for a list (``fail_on``, the forbidden topics) the names it ``lost``."""

    criterion: str
    before: Value
    after: Value
    lost: tuple[str, ...] = ()

    def __str__(self) -> str:
        if self.lost:
            return f"{self.criterion} lost {', '.join(self.lost)}"
        return f"{self.criterion} {_shown(self.before)} -> {_shown(self.after)}"

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready mapping."""

        def plain(value: Value) -> Any:
            return list(value) if isinstance(value, tuple) else value

        return {
            "criterion": self.criterion,
            "before": plain(self.before),
            "after": plain(self.after),
            "lost": list(self.lost),
            "said": str(self),
        }


def _shown(value: Value) -> str:
    if value is None or value == ():
        return "none"
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, float | int):
        return f"{value:g}"
    return value if isinstance(value, str) else ", ".join(value)


@dataclass(frozen=True)
class ClaimDiff:
    """A claim that differs from the base (``kind``), with its labels ``before`` and
    ``after`` (``unchecked`` for a side that was not checked, None on the side it is
    missing from). ``regressed`` marks the claims that got worse (see :mod:`.regressions`);
    ``fails`` those that fail the run (``--citations-fail-on-regression``); the other
    differences are shown, never failed."""

    case: str
    where: Location
    kind: ChangeKind
    before: str | None
    after: str | None
    #: The claim's text in the base when it changed (or was removed), and now (None for a
    #: removed claim).
    text_before: str | None = None
    text_after: str | None = None
    regressed: bool = False
    fails: bool = False

    @property
    def summary(self) -> str:
        """What changed, in one line (``supported → contradicted``)."""
        said = f"{self.before or 'new'} → {self.after or 'removed'}"
        if self.text_before is not None and self.text_after is not None:
            said += f" (was: {self.text_before})"
        return said

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready mapping."""
        return {
            "case": self.case,
            "claim": self.where.name,
            "nodeid": self.where.nodeid,
            "line": self.where.line,
            "kind": self.kind.value,
            "before": self.before,
            "after": self.after,
            "text_before": self.text_before,
            "text_after": self.text_after,
            "regressed": self.regressed,
            "fails": self.fails,
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
    changes: tuple[ClaimDiff, ...] = ()
    #: Claims of an added or removed case.
    claims: int = 0
    #: The case's criteria laxer than the base's (an added case's, than the run's own);
    #: ``relaxation_fails`` when that fails the run (``--citations-fail-on-regression``).
    relaxed: tuple[Relaxation, ...] = ()
    relaxation_fails: bool = False

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
        touched = bool(self.changes or self.relaxed)
        return touched or moved or renamed or self.status != "matched"

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
            "relaxed": [relaxation.to_dict() for relaxation in self.relaxed],
            "relaxation_fails": self.relaxation_fails,
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
        "unchecked": precision.unchecked,
    }


@dataclass(frozen=True)
class RunComparison:
    """This run against the base ``base`` (its name as the summary shows it), with what its
    gates decided: the ``failures`` (a regression or a relaxed criterion under
    ``--citations-fail-on-regression``, a drop beyond ``--citations-max-precision-drop``)
    and the drops that unchecked citations leave ``undecided``."""

    base: str
    cases: tuple[CaseDiff, ...] = ()
    precision_before: Precision = field(default_factory=lambda: Precision(0, 0, 0))
    precision_after: Precision = field(default_factory=lambda: Precision(0, 0, 0))
    failures: tuple[Failure, ...] = ()
    undecided: tuple[Failure, ...] = ()
    #: The run's own gates laxer than the base run's; ``relaxation_fails`` as a case's.
    relaxed: tuple[Relaxation, ...] = ()
    relaxation_fails: bool = False
    #: Whether the criteria were compared: False when the base stores none (a baseline
    #: file), so that no relaxation can show; None when the comparison was not given the
    #: run's gates to compare.
    criteria_compared: bool | None = None

    @property
    def relaxed_cases(self) -> tuple[CaseDiff, ...]:
        """The cases whose criteria are laxer than the base's."""
        return tuple(case for case in self.cases if case.relaxed)

    @property
    def changes(self) -> tuple[ClaimDiff, ...]:
        """Every claim that differs from the base, case by case."""
        return tuple(change for case in self.cases for change in case.changes)

    @property
    def regressions(self) -> tuple[ClaimDiff, ...]:
        """The claims that regressed."""
        return tuple(change for change in self.changes if change.regressed)

    def to_dict(self) -> dict[str, Any]:
        """The JSON report's ``comparison``."""
        return {
            "base": self.base,
            "precision_before": figures(self.precision_before),
            "precision_after": figures(self.precision_after),
            "regressions": [change.to_dict() for change in self.regressions],
            "failures": [str(failure) for failure in self.failures],
            "undecided": [str(failure) for failure in self.undecided],
            "relaxed": [relaxation.to_dict() for relaxation in self.relaxed],
            "relaxation_fails": self.relaxation_fails,
            "criteria_compared": self.criteria_compared,
            "cases": [case.to_dict() for case in self.cases],
        }


def drop_gate(
    where: str, before: Precision | None, after: Precision | None, limit: float, base: str
) -> tuple[Failure | None, bool]:
    """Whether ``where``'s citation precision fell by more than ``limit`` against ``base``:
    (the failure, False) when it fell by more whatever its unchecked citations (on either
    side) turn out to be, (the failure, True) when they decide it, (None, False) when it
    did not. A side with nothing to count compares with nothing."""
    if before is None or after is None:
        return None, False
    low = _less(before.worst, after.best)
    high = _less(before.best, after.worst)
    if high is None or low is None or high <= limit + 1e-9:
        return None, False
    fell = _less(before.citation, after.citation)
    by = f" by {fell:.4f}" if fell is not None and fell > limit + 1e-9 else ""
    said = (
        f"{where}: citation precision fell{by} against {base}, from {before.fraction()} to "
        f"{after.fraction()} (more than {limit:g})"
    )
    if low > limit + 1e-9:
        return Failure("max_precision_drop", said), False
    return Failure("max_precision_drop", f"{said} (undecided: citations unchecked)"), True


def _less(first: float | None, second: float | None) -> float | None:
    return None if first is None or second is None else first - second


def drops(
    cases: tuple[CaseDiff, ...], before: Precision, after: Precision, limit: float, base: str
) -> tuple[list[Failure], list[Failure]]:
    """The drops beyond ``limit``, each matched case's then the run's: those that fail, and
    those its unchecked citations leave undecided."""
    failed: list[Failure] = []
    undecided: list[Failure] = []
    sides: list[tuple[str, Precision | None, Precision | None]] = [
        (case.case, case.precision_before, case.precision_after) for case in cases
    ]
    sides.append(("the run", before, after))
    for where, old, new in sides:
        found, open_ = drop_gate(where, old, new, limit, base)
        if found is not None:
            (undecided if open_ else failed).append(found)
    return failed, undecided


def regression_failures(changes: Iterable[ClaimDiff], base: str) -> list[Failure]:
    """A ``fail_on_regression`` failure for every change that fails."""
    return [
        Failure(
            "fail_on_regression",
            f"{change.where.nodeid} regressed against {base} "
            f"({change.before or 'new'} -> {change.after})",
        )
        for change in changes
        if change.fails
    ]


__all__ = [
    "MATCHED_BY",
    "UNCHECKED",
    "CaseDiff",
    "CaseState",
    "ChangeKind",
    "ClaimDiff",
    "ClaimState",
    "Relaxation",
    "RunComparison",
    "drop_gate",
    "drops",
    "figures",
    "regression_failures",
]
