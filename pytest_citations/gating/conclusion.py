"""The run's own gates, decided once from the typed report: the suite's precision and
supported share (C7), the judge's agreement with the human labels (C5), and the run against
its base (``--citations-compare``). The plugin's reporter and ``pytest-citations merge``
both call :func:`conclude`, so a merge of shard reports decides as one serial run would:
from every claim, never from the shards' own decisions."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..labels import is_unchecked
from .calibration import Agreement
from .criteria import Criteria, Failure
from .decisions import AgreementGate, RunDecision, decide_run
from .regressions import CaseState, Comparison, compare_runs, states_of
from .run_report import RunReport


@dataclass(frozen=True)
class RunGates:
    """What the run was asked to meet, as its options set it: recorded in the JSON report
    (``run.gates``) so that a merge of shard reports gates the same way."""

    criteria: Criteria = field(default_factory=Criteria)
    calibrate: bool = False
    #: (metric, minimum) of the calibration gate, if set.
    min_agreement: tuple[str, float] | None = None
    #: The base's name as the summary shows it, when the run is compared with one.
    compare: str | None = None
    fail_on_regression: bool = False
    max_precision_drop: float | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready mapping."""
        return {
            "criteria": self.criteria.to_dict(),
            "calibrate": self.calibrate,
            "min_agreement": list(self.min_agreement) if self.min_agreement else None,
            "compare": self.compare,
            "fail_on_regression": self.fail_on_regression,
            "max_precision_drop": self.max_precision_drop,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> RunGates:
        """Inverse of :meth:`to_dict`; a gate that is no number in its range (a ``nan``
        that every comparison passes) is a ValueError."""
        agreement = data.get("min_agreement")
        drop = data.get("max_precision_drop")
        if agreement:
            metric, minimum = str(agreement[0]), agreement[1]
            if not isinstance(minimum, int | float) or not -1 <= minimum <= 1:
                raise ValueError(f"gate min_agreement is {agreement!r:.40}, not from -1 to 1")
        if drop is not None and (not isinstance(drop, int | float) or not 0 <= drop <= 1):
            raise ValueError(f"gate max_precision_drop is {drop!r:.40}, not from 0 to 1")
        return cls(
            criteria=Criteria.from_dict(data.get("criteria") or {}),
            calibrate=bool(data.get("calibrate")),
            min_agreement=(metric, float(minimum)) if agreement else None,
            compare=data.get("compare"),
            fail_on_regression=bool(data.get("fail_on_regression")),
            max_precision_drop=float(drop) if drop is not None else None,
        )


@dataclass(frozen=True)
class Base:
    """The cases of the base a run is compared with, and its name in the summary."""

    cases: tuple[CaseState, ...]
    shown: str


@dataclass(frozen=True)
class Conclusion:
    """The run's gates decided, and what they measured."""

    decision: RunDecision
    agreement: Agreement | None = None
    comparison: Comparison | None = None


def calibration_gate(
    report: RunReport, gates: RunGates
) -> tuple[Agreement | None, AgreementGate | None]:
    """The judge's agreement with the claims' ``expect:`` labels (C5), and its gate."""
    pairs = [(claim.expect, claim.label) for claim in report.claims if claim.expect]
    agreement = Agreement.of(pairs) if pairs and (gates.calibrate or gates.min_agreement) else None
    if gates.min_agreement is None:
        return agreement, None
    metric, minimum = gates.min_agreement
    value = getattr(agreement, metric) if agreement is not None else None
    return agreement, AgreementGate(metric, minimum, value, len(pairs))


def unchecked_by_case(report: RunReport) -> dict[str, int]:
    """The citations each case (by key) left unchecked where the run did not allow it."""
    found: Counter[str] = Counter()
    for claim in report.claims:
        if claim.unchecked:
            open_ = sum(1 for c in claim.citations if is_unchecked(c.reason))
            found[claim.nodeid.rsplit("::", 1)[0]] += open_
    return dict(found)


def conclude(
    report: RunReport,
    gates: RunGates,
    base: Base | None = None,
    *,
    in_scope: Callable[[str], bool] = lambda file: True,
) -> Conclusion:
    """Decide the run's gates. ``in_scope`` says which files of the base this run answers
    for (a shard's, or the files a selection ran): see
    :func:`~.regressions.compare_runs`."""
    agreement, agreement_gate = calibration_gate(report, gates)
    comparison = None
    extra: list[Failure] = []
    undecided: list[Failure] = []
    if base is not None:
        comparison = compare_runs(
            base.cases,
            states_of(report),
            base=base.shown,
            in_scope=in_scope,
            left_out=frozenset(report.deselected),
        )
        open_citations = unchecked_by_case(report)
        extra = comparison.failures(
            fail_on_regression=gates.fail_on_regression,
            max_drop=gates.max_precision_drop,
            unchecked=open_citations,
        )
        undecided = comparison.undecided(gates.max_precision_drop, open_citations)
    decision = decide_run(
        report.precision,
        report.share,
        *report.unchecked(),
        gates.criteria,
        agreement=agreement_gate,
    )
    if extra or undecided:
        decision = RunDecision((*decision.failures, *extra), (*decision.undecided, *undecided))
    return Conclusion(decision, agreement, comparison)


__all__ = ["Base", "Conclusion", "RunGates", "calibration_gate", "conclude", "unchecked_by_case"]
