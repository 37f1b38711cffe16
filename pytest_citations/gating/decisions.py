"""The thresholds of a case and of the run (004, C7): citation precision and the supported
share against their minimums, sound whatever the unchecked citations turn out to be (a
threshold missed even if every unchecked citation or claim were supported fails, one they
could still meet is undecided). The run's own gates, as values, with the calibration gate
(C5) when it is asked for (:class:`~.calibration.AgreementGate`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..labels import counted
from .criteria import Criteria, Failure
from .precision import Precision, Ratio, Share

if TYPE_CHECKING:
    from .calibration import AgreementGate
    from .comparison import RunComparison

#: The criteria a case misses as a whole (its claims' own failures are theirs).
THRESHOLDS = ("min_precision", "min_supported_share")


@dataclass(frozen=True)
class Gate:
    """One threshold (``criterion``, its ``minimum``: None when it is not set) and the figure
    that stands against it, over what was checked (``named``: the words before it in
    messages; ``unit``: what it counts). The figure if no unchecked item were supported
    (:attr:`~.precision.Ratio.worst`) meeting the threshold passes; the figure if every
    one were (:attr:`~.precision.Ratio.best`) missing it fails; any other is undecided."""

    criterion: str
    minimum: float | None
    figure: Ratio
    unit: str
    named: str

    def judge(self, failures: list[Failure], undecided: list[Failure]) -> None:
        """Append this gate's failure to ``failures`` or ``undecided``, if it missed."""
        minimum, figure = self.minimum, self.figure
        if minimum is None or (figure.worst is not None and figure.worst >= minimum):
            return
        shown = f"{self.named}{figure.fraction()}"
        if figure.unchecked and figure.best is not None and figure.best >= minimum:
            open_ = counted(figure.unchecked, self.unit)
            if figure.value is not None and figure.value >= minimum:
                said = f"{shown} could fall below {minimum:g}: {open_} unchecked"
            else:
                said = f"{shown} below {minimum:g}, with {open_} unchecked"
            undecided.append(Failure(self.criterion, said))
            return
        whatever = (
            f", even if the {counted(figure.unchecked, 'unchecked ' + self.unit)} were supported"
            if figure.unchecked
            else ""
        )
        failures.append(Failure(self.criterion, f"{shown} below {minimum:g}{whatever}"))


def judge_thresholds(
    precision: Precision, share: Share, criteria: Criteria, *, suite: bool = False
) -> tuple[list[Failure], list[Failure]]:
    """The two thresholds of a case, or of the run (``suite``): citation precision and
    supported share. (The failures, the undecided.)"""
    # The words each scope has always used in its messages, and its order: the suite's
    # precision first, as --cov-fail-under reads.
    share_gate = Gate(
        "min_supported_share",
        criteria.min_supported_share,
        share,
        "claim",
        "suite share " if suite else "fully supported claims ",
    )
    precision_gate = Gate(
        "min_precision",
        criteria.min_precision,
        precision,
        "citation",
        "suite citation_precision=" if suite else "citation precision ",
    )
    failures: list[Failure] = []
    undecided: list[Failure] = []
    for gate in (precision_gate, share_gate) if suite else (share_gate, precision_gate):
        gate.judge(failures, undecided)
    return failures, undecided


@dataclass(frozen=True)
class RunDecision:
    """The suite's own gates, decided once for the terminal, the reports and the exit
    status: thresholds missed (``failures``) and thresholds unchecked citations could still
    meet (``undecided``)."""

    failures: tuple[Failure, ...] = ()
    undecided: tuple[Failure, ...] = ()


def decide_run(
    precision: Precision,
    share: Share,
    criteria: Criteria,
    agreement: AgreementGate | None = None,
    comparison: RunComparison | None = None,
) -> RunDecision:
    """The run's gates: the suite's precision and supported share (like ``--cov-fail-under``),
    when asked the judge's agreement with human labels (004, C5), and, in a run compared
    with a base, what the comparison's gates decided."""
    failures, undecided = judge_thresholds(precision, share, criteria, suite=True)
    if agreement is not None:
        agreement.judge(failures, undecided)
    if comparison is not None:
        failures += comparison.failures
        undecided += comparison.undecided
    return RunDecision(tuple(failures), tuple(undecided))
