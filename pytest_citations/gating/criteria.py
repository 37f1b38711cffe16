"""Acceptance criteria and the release decision (004, C7): set before seeing scores, applied
per claim and per case, summed up as pass/fail with the criterion that failed."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from ..aggregate import Precision, Share
from ..labels import CRAWL_STATUS_PREFIX, Label, Reason
from ..verdicts import CitationVerdict, ClaimVerdict
from .figures import Figure
from .numbers import has_figures, missing_figures

#: Reason of a claim whose figure is in no evidence the judge saw.
NUMBER_NOT_IN_EVIDENCE = "number_not_in_evidence"
#: Claim labels ordered from best to worst, for regressions and summaries.
LABEL_RANK = {
    label: rank
    for rank, label in enumerate(
        (
            Label.SUPPORTED,
            Label.PARTIAL,
            Label.MISATTRIBUTED,
            Label.NOT_FOUND,
            Label.UNCITED,
            Label.UNREACHABLE,
            Label.CONTRADICTED,
        )
    )
}


@dataclass(frozen=True)
class Criteria:
    """What a claim and a case must meet to ship. Ini defaults, overridable per case."""

    fail_on: tuple[str, ...] = (Label.CONTRADICTED.value,)
    forbid_contradicted_topics: tuple[str, ...] = ()
    numbers_traceable: bool = False
    min_supported_share: float | None = None
    uncited_allowed: bool = True
    min_precision: float | None = None
    #: Count citations the verifier could not check as their labels. Off by default: a
    #: judge or crawler that is down must not let a contradicted claim pass.
    allow_unchecked: bool = False

    def merged(self, overrides: Mapping[str, Any]) -> Criteria:
        """These criteria with a case's ``criteria:`` (and ``min_precision:``) applied."""
        values = dict(overrides)
        for key in ("fail_on", "forbid_contradicted_topics"):
            if key in values:
                values[key] = tuple(values[key])
        return replace(self, **values)


@dataclass(frozen=True)
class Failure:
    """A criterion a claim or case did not meet, and why."""

    criterion: str
    message: str

    def __str__(self) -> str:
        return f"{self.criterion}: {self.message}"


@dataclass(frozen=True)
class ClaimFacts:
    """What the criteria need to know of a claim beside its verdict."""

    topic: str | None = None
    general: bool = False
    #: (url, marker) of each citation, to name citations as the case file does: ``[1] url``.
    markers: tuple[tuple[str, str], ...] = ()


#: What each reason that leaves a citation unchecked means, for messages and reports.
UNCHECKED_MEANINGS = {
    Reason.FETCH_ERROR: "the crawler could not be reached or kept failing",
    Reason.CRAWL_FAILED: "the crawl failed with both tokens",
    Reason.JUDGE_ERROR: "the judge could not be reached or answered with an error",
    Reason.JUDGE_INVALID_RESPONSE: "the judge's reply was not a usable verdict",
    Reason.JUDGE_REFUSED: "the judge refused to answer",
    Reason.JUDGE_TRUNCATED: "the judge's reply was cut at its token limit",
    Reason.JUDGE_EMPTY_RESPONSE: "the judge's reply was empty",
    Reason.REQUEST_REFUSED: "the request is not in the recording (see below)",
}


def unchecked_meaning(reason: str | None) -> str:
    """Why a citation with this reason could not be checked, in words."""
    if reason and reason.startswith(CRAWL_STATUS_PREFIX):
        return f"the crawler reported status {reason.removeprefix(CRAWL_STATUS_PREFIX)}"
    return UNCHECKED_MEANINGS.get(reason or "", "it could not be checked")


def describe_unchecked(
    verdict: ClaimVerdict, markers: tuple[tuple[str, str], ...] = ()
) -> tuple[str, ...]:
    """One line per citation the verifier could not check: ``[1] url: judge_error (why)``;
    the claim's problems when no citation carries the reason."""
    named = dict(markers)

    def line(citation: CitationVerdict) -> str:
        marker = f"[{named[citation.url]}] " if citation.url in named else ""
        return f"{marker}{citation.url}: {citation.reason} ({unchecked_meaning(citation.reason)})"

    lines = tuple(line(citation) for citation in verdict.unchecked)
    return lines or verdict.problems


@dataclass(frozen=True)
class ClaimAssessment:
    """A claim's verdict against the criteria."""

    verdict: ClaimVerdict
    failures: tuple[Failure, ...] = ()
    missing: tuple[Figure, ...] = ()
    #: The citations that could not be checked, one line each (see
    #: :func:`describe_unchecked`); empty when all were, or when the run allows it.
    unchecked: tuple[str, ...] = ()

    @property
    def passed(self) -> bool:
        """True when no criterion failed and nothing was left unchecked."""
        return self.decision == "pass"

    @property
    def incomplete(self) -> bool:
        """Not decided: some citation could not be checked and nothing failed anyway."""
        return self.decision == "incomplete"

    @property
    def decision(self) -> str:
        """``fail`` (a real failure wins), ``incomplete`` or ``pass``."""
        if self.failures:
            return "fail"
        return "incomplete" if self.unchecked else "pass"

    @property
    def fully_supported(self) -> bool:
        """Supported by its own citations (alone or jointly)."""
        return self.verdict.label is Label.SUPPORTED


def evidence_texts(verdict: ClaimVerdict) -> list[str]:
    """Quotes and passages the judge saw for this claim."""
    texts = [c.evidence_quote for c in verdict.citations if c.evidence_quote]
    texts += [passage for _, passages in verdict.evidence for passage in passages]
    return texts


def assess_claim(verdict: ClaimVerdict, facts: ClaimFacts, criteria: Criteria) -> ClaimAssessment:
    """Apply the claim-level criteria: failing labels, forbidden contradicted topics,
    numbers and dates traceable to the evidence, and uncited claims only when general."""
    label = verdict.label
    failures: list[Failure] = []
    if label.value in criteria.fail_on:
        failures.append(Failure("fail_on", f"the claim is {label.value}"))
    if (
        label is Label.CONTRADICTED
        and facts.topic
        and facts.topic in criteria.forbid_contradicted_topics
    ):
        failures.append(
            Failure("forbid_contradicted_topics", f"a contradicted claim about {facts.topic!r}")
        )
    missing: list[Figure] = []
    if label is Label.UNCITED:
        if not criteria.uncited_allowed:
            failures.append(Failure("uncited_allowed", "the claim cites nothing"))
        elif not facts.general:
            failures.append(
                Failure("uncited_allowed", "the claim cites nothing and is not marked general")
            )
        elif has_figures(verdict.claim):
            failures.append(
                Failure("uncited_allowed", "an uncited claim may not state a number or date")
            )
    elif criteria.numbers_traceable:
        missing = missing_figures(verdict.claim, evidence_texts(verdict))
        if missing:
            shown = ", ".join(repr(figure.text) for figure in missing)
            failures.append(
                Failure(
                    "numbers_traceable",
                    f"{NUMBER_NOT_IN_EVIDENCE}: {shown} appears in no cited passage or quote",
                )
            )
    unchecked: tuple[str, ...] = ()
    # A request missing from the recording is never a label, even where the run counts
    # other unchecked citations as their labels: it stays an error naming the record command.
    if not verdict.complete and (not criteria.allow_unchecked or verdict.lacks_recording):
        unchecked = describe_unchecked(verdict, facts.markers)
        failures = [f for f in failures if _stands_unchecked(f, verdict)]
    return ClaimAssessment(verdict, tuple(failures), tuple(missing), unchecked)


def _stands_unchecked(failure: Failure, verdict: ClaimVerdict) -> bool:
    """True for a failure that no answer of the unchecked citations could undo: a checked
    citation contradicts the claim, and one contradiction decides the claim (A1)."""
    return (
        failure.criterion in ("fail_on", "forbid_contradicted_topics")
        and verdict.label is Label.CONTRADICTED
        and any(c.checked and c.label is Label.CONTRADICTED for c in verdict.citations)
    )


def supported_share(assessments: Iterable[ClaimAssessment], general: Sequence[bool]) -> Share:
    """Fully supported claims over all claims except uncited general phrasing."""
    return Share.of(
        (assessment.verdict.label, is_general)
        for assessment, is_general in zip(assessments, general, strict=True)
    )


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
    def decision(self) -> str:
        """``fail`` (a real failure wins), ``incomplete`` or ``pass``."""
        if self.failures:
            return "fail"
        return "incomplete" if self.incomplete or self.undecided else "pass"

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
