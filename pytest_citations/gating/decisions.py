"""The thresholds of a case and of the run (004, C7): citation precision and the supported
share against their minimums, sound whatever the unchecked citations turn out to be (a
threshold missed even if every unchecked citation or claim were supported fails, one they
could still meet is undecided), and the calibration gate (C5). The run's own gates, as
values."""

from __future__ import annotations

from dataclasses import dataclass

from ..labels import counted
from .criteria import Criteria, Failure
from .precision import Precision, Share

#: The criteria a case misses as a whole (its claims' own failures are theirs).
THRESHOLDS = ("min_precision", "min_supported_share")


@dataclass(frozen=True)
class Gate:
    """One threshold and what stands against it: the figure as shown (over what was
    checked), and its value if no unchecked citation (or claim) were supported
    (``worst``) or if every one were (``best``). A threshold that the worst case meets
    passes; one the best case misses fails; any other is undecided."""

    criterion: str
    minimum: float | None
    value: float | None
    worst: float | None
    best: float | None
    unchecked: int
    unit: str
    shown: str

    def judge(self, failures: list[Failure], undecided: list[Failure]) -> None:
        """Append this gate's failure to ``failures`` or ``undecided``, if it missed."""
        minimum = self.minimum
        if minimum is None or (self.worst is not None and self.worst >= minimum):
            return
        if self.unchecked and self.best is not None and self.best >= minimum:
            open_ = counted(self.unchecked, self.unit)
            if self.value is not None and self.value >= minimum:
                said = f"{self.shown} could fall below {minimum:g}: {open_} unchecked"
            else:
                said = f"{self.shown} below {minimum:g}, with {open_} unchecked"
            undecided.append(Failure(self.criterion, said))
            return
        whatever = (
            f", even if the {counted(self.unchecked, 'unchecked ' + self.unit)} were supported"
            if self.unchecked
            else ""
        )
        failures.append(Failure(self.criterion, f"{self.shown} below {minimum:g}{whatever}"))


def thresholds(
    precision: Precision, share: Share, criteria: Criteria, scope: str = ""
) -> list[Gate]:
    """The two thresholds of a case (``scope`` empty) or of the run (``"suite"``): citation
    precision and supported share."""
    # The words each scope has always used in its messages.
    shown_share = f"suite share {share}" if scope else f"fully supported claims {share}"
    shown_precision = (
        f"suite citation_precision={precision.fraction()}"
        if scope
        else f"citation precision {precision.fraction()}"
    )
    return [
        Gate(
            "min_supported_share",
            criteria.min_supported_share,
            share.value,
            share.worst,
            share.best,
            share.unchecked,
            "claim",
            shown_share,
        ),
        Gate(
            "min_precision",
            criteria.min_precision,
            precision.citation,
            precision.worst,
            precision.best,
            precision.unchecked,
            "citation",
            shown_precision,
        ),
    ]


def judge_case(
    precision: Precision, share: Share, criteria: Criteria
) -> tuple[list[Failure], list[Failure]]:
    """A case's thresholds: (the failures, the undecided)."""
    failures: list[Failure] = []
    undecided: list[Failure] = []
    for gate in thresholds(precision, share, criteria):
        gate.judge(failures, undecided)
    return failures, undecided


@dataclass(frozen=True)
class RunDecision:
    """The suite's own gates, decided once for the terminal, the reports and the exit
    status: thresholds missed (``failures``) and thresholds unchecked citations could still
    meet (``undecided``)."""

    failures: tuple[Failure, ...] = ()
    undecided: tuple[Failure, ...] = ()


@dataclass(frozen=True)
class AgreementGate:
    """The calibration gate (004, C5): the judge's agreement with the human ``expect:``
    labels of ``labelled`` claims, as ``metric`` (None when it is undefined), against
    ``minimum``."""

    metric: str
    minimum: float
    value: float | None
    labelled: int

    def judge(self, failures: list[Failure], undecided: list[Failure]) -> None:
        """A gate with nothing to measure is undecided, never a pass; one below its minimum
        (or undefined over the labels there are) fails."""
        if not self.labelled:
            said = (
                f"no claim in this run carries an 'expect:' label, so the judge's "
                f"{self.metric} cannot be measured against {self.minimum:g}"
            )
            undecided.append(Failure("min_agreement", said))
        elif self.value is None or self.value < self.minimum:
            shown = "n/a" if self.value is None else f"{self.value:.4f}"
            failures.append(
                Failure("min_agreement", f"judge {self.metric} {shown} below {self.minimum:g}")
            )


def decide_run(
    precision: Precision,
    share: Share,
    criteria: Criteria,
    agreement: AgreementGate | None = None,
) -> RunDecision:
    """The run's gates: the suite's precision and supported share (like ``--cov-fail-under``)
    and, when asked, the judge's agreement with human labels (004, C5)."""
    failures: list[Failure] = []
    undecided: list[Failure] = []
    gates = thresholds(precision, share, criteria, scope="suite")
    for gate in reversed(gates):  # the suite's precision first, as --cov-fail-under reads
        gate.judge(failures, undecided)
    if agreement is not None:
        agreement.judge(failures, undecided)
    return RunDecision(tuple(failures), tuple(undecided))
