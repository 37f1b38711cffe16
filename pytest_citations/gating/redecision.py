"""A shard's report decided again from its claims (``pytest-citations merge``).

What a claim's checks found is the shard's: it ran them (its label, its citations' labels
and reasons, the evidence the judge was shown, the label the baseline stored). Everything
derived from that is decided here again, with the functions the run decided with
(:func:`redecide`, :func:`~.deciding.decide_case`), against the run's criteria
with each case's own over them, and never read from the report: each claim's status,
decision and failures, each case's decision, precision and precision item. A report whose
stated decisions its claims do not make (edited after its run, or written by another
version) is named, so that editing a derived field can never turn the merged gate green.

A case is decided when its ``precision`` item ran (not left out by the selection, not
skipped), as in the run itself, over the claims the report holds, which are the claims the
run ran; a case of which a claim item did not run is decided from the others, and its
stated decision is not held against it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..pipeline.aggregate import aggregate_verdicts
from .baseline import Baseline
from .build import Findings
from .criteria import ClaimFacts, Criteria, Decision
from .deciding import BaselineRef, decide_case, decide_claim
from .precision import Precision
from .result import PRECISION_ITEM, CaseInfo, ClaimResult, Location
from .run_result import RunGates


@dataclass(frozen=True)
class StatedCase:
    """A case as a report states it: its claims (with the decisions the report gives them)
    and, when its own item ran, its decision, precision and item's decision."""

    info: CaseInfo
    claims: tuple[ClaimResult, ...] = ()
    decision: Decision | None = None
    precision: Precision | None = None
    item: Decision | None = None


def redecide(stated: ClaimResult, rules: Criteria, *, updating: bool = False) -> ClaimResult:
    """A claim decided again from what a report says its checks found (its label, its
    citations' labels and reasons, the evidence, the baseline's stored label): what
    :func:`decide_claim` makes of them, whatever the report states of its decision. A claim
    a report calls unchecked has no label; the label its citations give (A1) stands in for
    it, which decides nothing of a claim that is unchecked."""
    label = stated.label if stated.label is not None else aggregate_verdicts(stated.citations)
    cited = tuple((u.url, u.marker) for u in stated.unchecked if u.url and u.marker)
    facts = ClaimFacts(
        stated.markers,
        stated.topic,
        stated.general,
        stated.expect,
        stated.derived,
        cited,
        stated.answer_span,
    )
    baseline = None
    if stated.baseline is not None:
        stored = stated.baseline.stored()
        entries = {stated.where.nodeid: stored} if stored is not None else {}
        baseline = BaselineRef(Baseline(entries), stated.baseline.shown)
    return decide_claim(
        stated.where, stated.verdict(label), facts, rules, baseline, updating=updating
    )


def _said(claim: ClaimResult, decided: ClaimResult) -> str | None:
    if (claim.decision, claim.status) == (decided.decision, decided.status):
        return None
    if claim.status != decided.status:
        return (
            f"{claim.nodeid} says {claim.status}, its checks decide {decided.status} "
            f"({decided.decision})"
        )
    return f"{claim.nodeid} says {claim.decision}, its label and checks decide {decided.decision}"


def _case(stated: StatedCase, found: Findings, gone: set[Location], gates: RunGates) -> list[str]:
    """One case's claims decided again into ``found``, and what the report says otherwise."""
    info = stated.info
    rules = info.rules(gates.criteria)
    claims = []
    said = []
    for claim in stated.claims:
        decided = redecide(claim, rules, updating=gates.update_baseline)
        said += [line for line in (_said(claim, decided),) if line is not None]
        claims.append(decided)
        found.add_claim(info, decided)
    found.cases.setdefault(info.key, info)
    own = {
        (item.name, item.index) for item in gone if (item.file, item.case) == (info.file, info.case)
    }
    left_out = any(name != PRECISION_ITEM for name, _ in own)
    if any(name == PRECISION_ITEM for name, _ in own):
        if stated.decision is not None:
            said.append(f"{info.key} has a decision, though its precision item did not run")
        return said
    found.add_case(info)
    if not claims and not left_out:
        return [*said, f"{info.key} has a decision but no claim"]
    case = decide_case(info, claims, rules)
    if stated.decision is None:
        said.append(f"{info.key} has no decision, though its precision item ran")
    elif not left_out and (stated.decision, stated.precision, stated.item) != (
        case.decision,
        case.precision,
        case.item,
    ):
        before = stated.precision.fraction() if stated.precision is not None else "n/a"
        said.append(
            f"{info.key} says {stated.decision} ({before}), its claims decide "
            f"{case.decision} ({case.precision.fraction()})"
        )
    return said


def decide_again(cases: Sequence[StatedCase], found: Findings, gates: RunGates) -> tuple[str, ...]:
    """The ``cases`` a shard's report states, decided again into ``found`` (which holds
    what else the report says: the items left out or skipped among it) against the run's
    ``gates``; every stated decision the claims do not make, one line each."""
    gone = {*found.deselected.values(), *found.skipped.values()}
    disagreements: list[str] = []
    for stated in cases:
        disagreements += _case(stated, found, gone, gates)
    return tuple(disagreements)


__all__ = ["StatedCase", "decide_again", "redecide"]
