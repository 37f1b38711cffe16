"""The release decisions of a case and of the run (004, C7): the claims' failures, the
supported share and citation precision against their thresholds, what unchecked
citations leave undecided, and the calibration gate (C5)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from ..labels import Label
from ..precision import Precision, Share
from .criteria import ClaimAssessment, Criteria, Decision, Failure


def supported_share(assessments: Iterable[ClaimAssessment], general: Sequence[bool]) -> Share:
    """Fully supported claims over all claims except uncited general phrasing."""
    return Share.of(
        (assessment.verdict.label, is_general)
        for assessment, is_general in zip(assessments, general, strict=True)
    )


#: The criteria a case misses as a whole (its claims' own failures are theirs).
THRESHOLDS = ("min_precision", "min_supported_share")


@dataclass(frozen=True)
class CaseDecision:
    """Whether a case may ship, every criterion it missed, and what could not be decided."""

    share: Share
    precision: Precision
    failures: tuple[Failure, ...] = field(default_factory=tuple)
    #: Names of the claims that could not be checked (and did not fail anyway).
    incomplete: tuple[str, ...] = ()
    #: Case criteria missed with the figures at hand that unchecked citations could
    #: still meet: neither a pass nor a fail.
    undecided: tuple[Failure, ...] = ()

    @property
    def passed(self) -> bool:
        """True when nothing failed and everything was checked."""
        return self.decision == "pass"

    @property
    def decision(self) -> Decision:
        """``fail`` (a real failure wins), ``incomplete`` or ``pass``."""
        if self.failures:
            return Decision.FAIL
        return Decision.INCOMPLETE if self.incomplete or self.undecided else Decision.PASS

    @property
    def item(self) -> Decision:
        """What the case's ``precision`` item reports: ``fail`` when the case missed a
        threshold of its own, ``incomplete`` when unchecked citations leave one undecided
        (a claim's failure fails the claim's item, not this one)."""
        if any(failure.criterion in THRESHOLDS for failure in self.failures):
            return Decision.FAIL
        return Decision.INCOMPLETE if self.undecided else Decision.PASS

    def incomplete_reasons(self) -> list[str]:
        """Why the case is incomplete: the claims not checked, the criteria not decided."""
        reasons = [f"{', '.join(self.incomplete)} could not be checked"] if self.incomplete else []
        return reasons + [str(failure) for failure in self.undecided]

    def line(self) -> str:
        """``pass``, ``fail (criterion: why)`` as 004's worked example states it, or
        ``incomplete (why)``."""
        if self.failures:
            return f"fail ({self.failures[0]})"
        if self.decision == "incomplete":
            return f"incomplete ({self.incomplete_reasons()[0]})"
        return "pass"


@dataclass(frozen=True)
class Gate:
    """One threshold and what stands against it: a missed threshold fails, unless the
    citations (or claims) that could not be checked could still lift it over."""

    criterion: str
    minimum: float | None
    value: float | None
    #: The value if every unchecked citation (or claim) had been supported.
    best: float | None
    unchecked: int
    unit: str
    message: str

    def judge(self, failures: list[Failure], undecided: list[Failure]) -> None:
        """Append this gate's failure to ``failures`` or ``undecided``, if it missed."""
        if self.minimum is None or (self.value is not None and self.value >= self.minimum):
            return
        missed = Failure(self.criterion, self.message)
        if self.unchecked and self.best is not None and self.best >= self.minimum:
            plural = "" if self.unchecked == 1 else "s"
            text = f"{missed.message}, with {self.unchecked} {self.unit}{plural} unchecked"
            undecided.append(Failure(missed.criterion, text))
        else:
            failures.append(missed)


def thresholds(
    precision: Precision,
    share: Share,
    open_citations: int,
    open_claims: int,
    criteria: Criteria,
    scope: str = "",
) -> list[Gate]:
    """The two thresholds of a case (``scope`` empty) or of the run (``"suite"``):
    citation precision and supported share."""
    lifted_share = Share(share.supported + open_claims, share.total).value
    lifted = Precision(precision.supported + open_citations, precision.total, 0).citation
    # The words each scope has always used in its messages.
    shown_share = f"suite share {share}" if scope else f"fully supported claims {share}"
    shown_precision = (
        f"suite citation_precision={precision.fraction()}"
        if scope
        else f"citation precision {precision.fraction()}"
    )
    share_minimum, precision_minimum = criteria.min_supported_share, criteria.min_precision
    return [
        Gate(
            "min_supported_share",
            share_minimum,
            share.value,
            lifted_share,
            open_claims,
            "claim",
            f"{shown_share} below {share_minimum:g}" if share_minimum is not None else "",
        ),
        Gate(
            "min_precision",
            precision_minimum,
            precision.citation,
            lifted,
            open_citations,
            "citation",
            f"{shown_precision} below {precision_minimum:g}"
            if precision_minimum is not None
            else "",
        ),
    ]


def decide_case(
    assessments: Sequence[ClaimAssessment],
    names: Sequence[str],
    general: Sequence[bool],
    criteria: Criteria,
) -> CaseDecision:
    """The case's decision: its claims' failures, supported share and precision."""
    failures: list[Failure] = [
        Failure(failure.criterion, f"{name} {failure.message}")
        for assessment, name in zip(assessments, names, strict=True)
        for failure in assessment.failures
    ]
    incomplete = tuple(name for a, name in zip(assessments, names, strict=True) if a.incomplete)
    undecided: list[Failure] = []
    share = supported_share(assessments, general)
    precision = Precision.of(c.label for a in assessments for c in a.verdict.citations)
    # What unchecked citations could still change: each might have supported its claim.
    open_citations = sum(len(a.verdict.unchecked) for a in assessments if a.unchecked)
    open_claims = sum(
        1
        for a in assessments
        if a.unchecked and not a.failures and a.verdict.label is not Label.SUPPORTED
    )
    for gate in thresholds(precision, share, open_citations, open_claims, criteria):
        gate.judge(failures, undecided)
    return CaseDecision(share, precision, tuple(failures), incomplete, tuple(undecided))


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
            undecided.append(Failure("min_agreement", (
                f"no claim in this run carries an 'expect:' label, so the judge's {self.metric} "
                f"cannot be measured against {self.minimum:g}"
            )))  # fmt: skip
        elif self.value is None or self.value < self.minimum:
            shown = "n/a" if self.value is None else f"{self.value:.4f}"
            failures.append(
                Failure("min_agreement", f"judge {self.metric} {shown} below {self.minimum:g}")
            )


def decide_run(
    precision: Precision,
    share: Share,
    open_citations: int,
    open_claims: int,
    criteria: Criteria,
    agreement: AgreementGate | None = None,
) -> RunDecision:
    """The run's gates: the suite's precision and supported share (like ``--cov-fail-under``)
    and, when asked, the judge's agreement with human labels (004, C5)."""
    failures: list[Failure] = []
    undecided: list[Failure] = []
    gates = thresholds(precision, share, open_citations, open_claims, criteria, scope="suite")
    for gate in reversed(gates):  # the suite's precision first, as --cov-fail-under reads
        gate.judge(failures, undecided)
    if agreement is not None:
        agreement.judge(failures, undecided)
    return RunDecision(tuple(failures), tuple(undecided))
