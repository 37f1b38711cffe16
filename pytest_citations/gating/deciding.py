"""Each claim and each case decided once, by pure functions: a claim from its verdict, the
case file's facts about it, the criteria and the baseline (:func:`decide_claim`); a case from
its claims (:func:`decide_case`); a whole case file at once (:func:`decide_file`, for the
plugin and the command line's batch). ``pytest-citations merge`` decides a shard's claims
again with the same function from what the shard's report says their checks found
(:func:`~.redecision.redecide`), so a merge of shard reports decides as the serial run did.

A claim's text, its citations and everything a page or an answer put there is freed of
control sequences here, once (see :mod:`pytest_citations.sanitize`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..cases import Case, Claim
from ..labels import Label
from ..sanitize import clean
from ..verdicts import ClaimVerdict
from .criteria import ClaimFacts, Criteria, Decision, Failure, assess_claim
from .decisions import judge_thresholds
from .precision import Precision, Share
from .result import (
    BaselineChange,
    BaselineKind,
    CaseInfo,
    CaseResult,
    ClaimResult,
    ClaimStatus,
    Location,
    count_labels,
)

if TYPE_CHECKING:
    from .baseline import Baseline


@dataclass(frozen=True)
class BaselineRef:
    """The baseline claims are compared with, and its name in messages."""

    baseline: Baseline
    shown: str = ""


def decide_claim(
    where: Location,
    verdict: ClaimVerdict,
    facts: ClaimFacts,
    rules: Criteria,
    baseline: BaselineRef | None = None,
    *,
    updating: bool = False,
) -> ClaimResult:
    """A claim decided against ``rules``: checked or not, its label if it was, and every
    criterion it missed; a checked claim is compared with the ``baseline`` (a regression
    fails it, unless the run is ``updating`` the baseline, which writes the label in)."""
    assessment = assess_claim(verdict, facts, rules)
    unchecked = assessment.unchecked
    decision = assessment.decision
    checked = decision is not Decision.INCOMPLETE
    failures = list(assessment.failures)
    change = None
    if baseline is not None and checked:
        stored = baseline.baseline.entries.get(where.nodeid)
        change = BaselineChange.of(verdict.label, stored, baseline.shown)
        if change.kind is BaselineKind.REGRESSION and not updating:
            said = f"regressed against the baseline {baseline.shown} ({change.old_label} -> "
            failures.append(Failure("baseline", f"{said}{verdict.label.value})"))
            decision = Decision.FAIL
    result = ClaimResult(
        where=where,
        text=verdict.claim,
        status=ClaimStatus.CHECKED if checked else ClaimStatus.UNCHECKED,
        label=verdict.label if checked else None,
        decision=decision,
        citations=verdict.citations,
        failures=tuple(failures),
        unchecked=unchecked,
        markers=facts.markers,
        topic=facts.topic,
        general=facts.general,
        expect=facts.expect,
        derived=facts.derived,
        problems=verdict.problems,
        unrecorded=verdict.lacks_recording,
        over_budget=bool(verdict.over_budget),
        joint_support=verdict.joint_support,
        misattributed_to=verdict.misattributed_to,
        evidence=verdict.evidence,
        baseline=change,
        answer_span=facts.answer_span,
    )
    return clean(result)


def precision_of(claims: Iterable[ClaimResult]) -> Precision:
    """Citation precision over the citations that count (A2), the unchecked beside them."""
    supported = total = reachable = unchecked = 0
    for claim in claims:
        for citation in claim.citations:
            if not claim.counted(citation):
                unchecked += 1
                continue
            total += 1
            supported += citation.label is Label.SUPPORTED
            reachable += citation.label is not Label.UNREACHABLE
    return Precision(supported, total, reachable, unchecked)


def share_of(claims: Sequence[ClaimResult]) -> Share:
    """The share of fully supported claims among the checked ones that count (004, C7):
    uncited general phrasing is not counted; the unchecked claims are counted apart."""
    counted = [
        claim.label
        for claim in claims
        if claim.label is not None and not (claim.label is Label.UNCITED and claim.general)
    ]
    unchecked = sum(1 for claim in claims if claim.label is None)
    return Share(sum(label is Label.SUPPORTED for label in counted), len(counted), unchecked)


def in_order(claims: Iterable[ClaimResult]) -> tuple[ClaimResult, ...]:
    """A case's claims in file order."""
    return tuple(sorted(claims, key=lambda claim: claim.where.index))


def decide_case(info: CaseInfo, claims: Sequence[ClaimResult], rules: Criteria) -> CaseResult:
    """A case decided from its claims, against ``rules``, the run's criteria with its own
    over them (:meth:`~.result.CaseInfo.rules`, made once per case): a failure wins over
    ``incomplete`` (a claim not checked, a threshold undecided), which wins over ``pass``."""
    ordered = in_order(claims)
    failures = [
        Failure(failure.criterion, f"{claim.where.name} {failure.message}")
        for claim in ordered
        for failure in claim.failures
    ]
    precision, share = precision_of(ordered), share_of(ordered)
    missed, undecided = judge_thresholds(precision, share, rules)
    failures += missed
    unchecked = [claim.where.name for claim in ordered if claim.decision is Decision.INCOMPLETE]
    incomplete = [f"{', '.join(unchecked)} could not be checked"] if unchecked else []
    incomplete += [str(failure) for failure in undecided]
    decision = Decision.FAIL if failures else Decision.INCOMPLETE if incomplete else Decision.PASS
    # The case's own item reports its thresholds; a claim's failure is its own item's.
    item = Decision.FAIL if missed else Decision.INCOMPLETE if undecided else Decision.PASS
    return CaseResult(
        info,
        ordered,
        precision,
        share,
        count_labels(ordered),
        rules,
        decision,
        item,
        tuple(failures),
        tuple(undecided),
        tuple(incomplete),
    )


def undecided_case(info: CaseInfo, claims: Sequence[ClaimResult], rules: Criteria) -> CaseResult:
    """A case whose own item did not run: its claims and figures, and no decision."""
    ordered = in_order(claims)
    return CaseResult(
        info, ordered, precision_of(ordered), share_of(ordered), count_labels(ordered), rules
    )


def case_info(file: str, case: Case) -> CaseInfo:
    """Where a case is and what it asks (``file`` as node ids name it)."""
    return clean(
        CaseInfo(
            file,
            case.id,
            case.line,
            case.question,
            case.answer,
            case.min_precision,
            dict(case.criteria),
            dict(case.retrieved_markers),
        )
    )


def claim_facts(case: Case, claim: Claim) -> ClaimFacts:
    """What a case file says of one of its claims."""
    cited = {case.citations[m]: m for m in reversed(claim.markers) if m in case.citations}
    return ClaimFacts(
        claim.markers,
        claim.topic,
        claim.general,
        claim.expect,
        claim.derived,
        tuple(cited.items()),
        claim.answer_span,
    )


@dataclass(frozen=True)
class FileResult:
    """Every claim (by case id and claim index) and every case (by id) of a case file,
    decided."""

    claims: dict[tuple[str, int], ClaimResult]
    cases: dict[str, CaseResult]


def decide_file(
    file: str,
    cases: Sequence[Case],
    verdicts: Sequence[ClaimVerdict],
    criteria: Criteria,
    baseline: BaselineRef | None = None,
    *,
    updating: bool = False,
    selected: Callable[[str, int], bool] = lambda case, index: True,
) -> FileResult:
    """Decide every claim and case of a case file (``file`` as node ids name it);
    ``verdicts`` are the claims' verdicts in file order. A case is decided over its
    ``selected`` claims (case id, claim index): those the run runs."""
    pairs = [(case, claim) for case in cases for claim in case.claims]
    if len(pairs) != len(verdicts):
        raise ValueError(f"{file}: {len(pairs)} claims but {len(verdicts)} verdicts")
    found = iter(verdicts)
    claims: dict[tuple[str, int], ClaimResult] = {}
    decided: dict[str, CaseResult] = {}
    for case in cases:
        info = case_info(file, case)
        rules = info.rules(criteria)
        for claim in case.claims:
            where = Location(file, case.id, claim.name, claim.line, claim.index)
            claims[(case.id, claim.index)] = decide_claim(
                where, next(found), claim_facts(case, claim), rules, baseline, updating=updating
            )
        ran = [claims[(case.id, c.index)] for c in case.claims if selected(case.id, c.index)]
        decided[case.id] = decide_case(info, ran, rules)
    return FileResult(claims, decided)


__all__ = [
    "BaselineRef",
    "FileResult",
    "case_info",
    "claim_facts",
    "decide_case",
    "decide_claim",
    "decide_file",
    "in_order",
    "precision_of",
    "share_of",
    "undecided_case",
]
