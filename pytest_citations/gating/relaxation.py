"""Criteria laxer than the base's. What a pull request can edit (a case file's ``criteria:``
and ``min_precision:``, the ini file's gates) must never turn the gate green by itself: the
comparison with the base names every criterion the run relaxed against it, and
``--citations-fail-on-regression`` fails the run on it as on a regressed claim (without that
gate it is shown and fails nothing).

A criterion is relaxed when

- ``fail_on`` or ``forbid_contradicted_topics`` lost a name;
- ``numbers_traceable`` was on and is off, ``uncited_allowed`` (or, for the run,
  ``allow_unchecked``) was off and is on;
- a threshold (``min_precision``, ``min_supported_share``) was set and is lower, or unset;
- the run's calibration gate (``min_agreement``) was set and is lower, unset, or measures
  another metric (which cannot be ranked against the first);
- a claim of the same text and the same label failed in the base and passes now: what let it
  pass is no evidence but its own keys (a ``topic:`` moved off a forbidden topic, ``general:
  true`` added to an uncited claim), named ``claim-2 (contradicted) fail -> pass`` when no
  relaxed criterion of its case or of the run already names the cause;
- a claim that failed in the base was removed from ``claims:`` while the case's answer still
  says it: the answer asserts it unchecked, named ``claim-3 (contradicted) fail -> removed,
  still in the answer``. (A claim removed with its sentence is the answer's change, and shown
  as removed.)

A stricter change is no relaxation. A case's criteria are its own over the run's, so a case
is compared on the run's gates with its own criteria before and after: a gate relaxed for
the whole run is named once, for the run, and a case file's edit once, for its case. A case
the base did not have is compared with the run's gates (what it would meet with no criteria
of its own), so that a case renamed out of its match does not relax unseen. A base that
stores no gates (a baseline file, or the empty report of a base branch that could not be
replayed) compares no criteria at all, nor does a case whose base stores none, and the
comparison says so (``criteria_compared``) rather than guessing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from ..cases.answer_spans import find_span
from .comparison import CaseDiff, CaseState, ChangeKind, ClaimState, Relaxation
from .criteria import Criteria, Decision, Failure
from .regression_lines import relaxed_text
from .run_result import RunGates

_LISTS = ("fail_on", "forbid_contradicted_topics")
#: Each flag and its strict value.
_FLAGS = (("numbers_traceable", True), ("uncited_allowed", False), ("allow_unchecked", False))
_THRESHOLDS = ("min_precision", "min_supported_share")


def relaxed_criteria(before: Criteria, after: Criteria) -> tuple[Relaxation, ...]:
    """Every criterion of ``after`` laxer than in ``before`` (see the module's docstring)."""
    found: list[Relaxation] = []
    for key in _LISTS:
        old, new = getattr(before, key), getattr(after, key)
        lost = tuple(name for name in old if name not in new)
        if lost:
            found.append(Relaxation(key, tuple(old), tuple(new), lost))
    for key, strict in _FLAGS:
        old, new = getattr(before, key), getattr(after, key)
        if old is strict and new is not strict:
            found.append(Relaxation(key, old, new))
    for key in _THRESHOLDS:
        old, new = getattr(before, key), getattr(after, key)
        if old is not None and (new is None or new < old):
            found.append(Relaxation(key, old, new))
    return tuple(found)


def passing_unchanged(
    before: Sequence[ClaimState], after: Sequence[ClaimState]
) -> tuple[Relaxation, ...]:
    """The claims of ``after`` that pass with the text and the label a claim of ``before``
    failed with: their gate, not their evidence, changed."""
    failed = {
        (" ".join(claim.text.split()).casefold(), claim.label): claim
        for claim in before
        if claim.decision is Decision.FAIL and claim.label is not None
    }
    return tuple(
        Relaxation(f"{claim.where.name} ({claim.label})", "fail", "pass")
        for claim in after
        if claim.decision is Decision.PASS
        and (" ".join(claim.text.split()).casefold(), claim.label) in failed
    )


def removed_but_said(
    diff: CaseDiff, base_case: CaseState, answer: str | None
) -> tuple[Relaxation, ...]:
    """The claims removed from a case that failed in the base while its ``answer`` still
    says them."""
    if not answer:
        return ()
    failed = {c.where.nodeid for c in base_case.claims if c.decision is Decision.FAIL}
    return tuple(
        Relaxation(f"{change.where.name} ({change.before})", "fail", "removed, still in the answer")
        for change in diff.changes
        if change.kind is ChangeKind.REMOVED
        and change.where.nodeid in failed
        and change.text_before is not None
        and find_span(answer, change.text_before) is not None
    )


def relaxed_gates(before: RunGates, after: RunGates) -> tuple[Relaxation, ...]:
    """The run's own gates (its criteria, its calibration gate) laxer than the base run's."""
    found = list(relaxed_criteria(before.criteria, after.criteria))
    old, new = before.min_agreement, after.min_agreement
    if old is not None and (new is None or new[0] != old[0] or new[1] < old[1]):
        found.append(Relaxation("min_agreement", _agreement(old), _agreement(new)))
    return tuple(found)


def _agreement(gate: tuple[str, float] | None) -> str | None:
    return f"{gate[0]} {gate[1]:g}" if gate is not None else None


@dataclass(frozen=True)
class Relaxed:
    """The relaxations of one comparison, decided: the cases with theirs on them, the run's
    gates', whether the base's criteria could be compared, and what fails the run."""

    cases: tuple[CaseDiff, ...]
    run: tuple[Relaxation, ...]
    compared: bool
    failures: tuple[Failure, ...]


def relaxations(
    cases: Sequence[CaseDiff],
    before: Sequence[CaseState],
    after: Sequence[CaseState],
    *,
    gates: RunGates,
    base_gates: RunGates | None,
    base: str,
    fail: bool,
) -> Relaxed:
    """The relaxations of the run (``after``, with its ``gates``) against the base
    (``before``, with ``base_gates``, None when it does not store them), each case's on its
    :class:`CaseDiff`; ``fail`` (``--citations-fail-on-regression``) makes each fail."""
    if base_gates is None:  # a baseline file, or a report of no run: nothing to compare
        return Relaxed(tuple(cases), (), False, ())
    old = {case.key: case for case in before}
    new = {case.key: case for case in after}
    run = relaxed_gates(base_gates, gates)
    compared = True
    found: list[CaseDiff] = []
    failures: list[Failure] = []
    for diff in cases:
        state = new.get(diff.case) if diff.precision_after is not None else None
        base_case = old.get(diff.base_case) if diff.base_case is not None else None
        own: Mapping[str, Any] | None = {} if base_case is None else base_case.criteria
        if state is None or state.criteria is None or own is None:
            compared = compared and state is None  # a removed case has nothing to compare
            found.append(diff)
            continue
        relaxed = relaxed_criteria(
            gates.criteria.merged(own), gates.criteria.merged(state.criteria)
        )
        if base_case is not None and not relaxed and not run:  # else those name the cause
            relaxed = passing_unchanged(base_case.claims, state.claims)
        if base_case is not None:
            relaxed += removed_but_said(diff, base_case, state.answer)
        found.append(replace(diff, relaxed=relaxed, relaxation_fails=fail and bool(relaxed)))
        if relaxed and fail:
            failures.append(_failure(diff.case, relaxed, base, new_case=base_case is None))
    if run and fail:
        failures.append(_failure("the run", run, base, new_case=False))
    return Relaxed(tuple(found), run, compared, tuple(failures))


def _failure(where: str, relaxed: tuple[Relaxation, ...], base: str, *, new_case: bool) -> Failure:
    """``CASE relaxed its criteria against BASE: fail_on lost contradicted, …``."""
    said = "its gates" if where == "the run" else "its criteria"
    said = f"relaxed {said} against {base}"
    if new_case:
        said = "is new, with criteria laxer than the run's"
    return Failure("fail_on_regression", f"{where} {said}: {relaxed_text(relaxed)}")


__all__ = [
    "Relaxed",
    "passing_unchanged",
    "relaxations",
    "relaxed_criteria",
    "relaxed_gates",
]
