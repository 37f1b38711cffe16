"""Acceptance criteria and the release decision (004, C7): set before seeing scores, applied
per claim and per case, summed up as pass/fail with the criterion that failed."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from .aggregate import Precision
from .figures import Figure, has_figures, missing_figures
from .labels import Label
from .verdicts import ClaimVerdict

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


@dataclass(frozen=True)
class ClaimAssessment:
    """A claim's verdict against the criteria."""

    verdict: ClaimVerdict
    failures: tuple[Failure, ...] = ()
    missing: tuple[Figure, ...] = ()

    @property
    def passed(self) -> bool:
        """True when no criterion failed."""
        return not self.failures

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
    return ClaimAssessment(verdict, tuple(failures), tuple(missing))


@dataclass(frozen=True)
class Share:
    """Claims fully supported by their own citations, over the claims that count."""

    supported: int
    total: int

    @property
    def value(self) -> float | None:
        """The share, or None with no claim to count."""
        return self.supported / self.total if self.total else None

    def __str__(self) -> str:
        shown = "n/a" if self.value is None else f"{self.value:.4f}"
        return f"{shown} ({self.supported}/{self.total})"


def supported_share(assessments: Iterable[ClaimAssessment], general: Sequence[bool]) -> Share:
    """Fully supported claims over all claims except uncited general phrasing."""
    supported = total = 0
    for assessment, is_general in zip(assessments, general, strict=True):
        if assessment.verdict.label is Label.UNCITED and is_general:
            continue
        total += 1
        supported += assessment.fully_supported
    return Share(supported, total)


@dataclass(frozen=True)
class CaseDecision:
    """Whether a case may ship, and every criterion it missed."""

    share: Share
    precision: Precision
    failures: tuple[Failure, ...] = field(default_factory=tuple)

    @property
    def passed(self) -> bool:
        """True when neither the case nor any of its claims failed a criterion."""
        return not self.failures

    def line(self) -> str:
        """``pass`` or ``fail (criterion: why)`` as 004's worked example states it."""
        if self.passed:
            return "pass"
        return f"fail ({self.failures[0]})"


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
    share = supported_share(assessments, general)
    precision = Precision.of(c.label for a in assessments for c in a.verdict.citations)
    if criteria.min_supported_share is not None and (
        share.value is None or share.value < criteria.min_supported_share
    ):
        failures.append(
            Failure(
                "min_supported_share",
                f"fully supported claims {share} below {criteria.min_supported_share:g}",
            )
        )
    if criteria.min_precision is not None and (
        precision.citation is None or precision.citation < criteria.min_precision
    ):
        failures.append(
            Failure(
                "min_precision",
                f"citation precision {precision.lines()[0].split('=', 1)[1]} below "
                f"{criteria.min_precision:g}",
            )
        )
    return CaseDecision(share, precision, tuple(failures))
