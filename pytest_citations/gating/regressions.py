"""A run against the base branch's result (``--citations-compare BASE.json``), case by case:
claims added, removed and changed, labels that changed, and citation precision before and
after, per case and for the run. Pure functions over the cases as each run saw them
(:class:`CaseState`), giving the values of :mod:`.comparison` (re-exported here); reading
the base is :mod:`.base_report`'s, the lines the summary prints are
:mod:`.regression_lines`'.

Cases are matched by their key (``file::case``), then by their question, then by their id:
a case whose answer was rephrased (every claim new) is still the same case, with changed
claims. Within a matched case, claims are matched by their text, then by their name
(``claim-2``): same text is the same claim (its label may have changed); same name with
another text is a *changed* claim, shown with its old and new text.

A claim **regressed** (what ``--citations-fail-on-regression`` fails; without it a
regression is shown, not failed) when it got worse against the base:

- a claim of both runs (same text, or a changed text in its place) whose label ranks worse
  (supported, partial, misattributed, not_found, uncited, unreachable, contradicted, best
  first, as for baselines), or that fails now with the label it passed with (a new
  criterion);
- a claim added to a case the base had that fails, or that its citations do not fully
  support (uncited general phrasing, ``general: true``, excepted).

A claim unchecked on either side has no label there: it is *not compared* (a kind of its
own, never a change of label) and has not regressed; a claim added unchecked has not
regressed either (the run is incomplete anyway), and neither has a claim of a case the base
did not have: it is new, and fails (or passes) on its own criteria. A baseline file stores
no decisions, so only labels count against one. Citation precision counts checked citations
only: a drop that unchecked citations on either side could still undo, or make, is
undecided. Criteria laxer than the base's are decided by :mod:`.relaxation` and fail under
``--citations-fail-on-regression`` as a regressed claim does.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from ..labels import LABEL_RANK, Label
from .comparison import (
    MATCHED_BY,
    UNCHECKED,
    CaseDiff,
    CaseState,
    ChangeKind,
    ClaimDiff,
    ClaimState,
    RunComparison,
    drops,
    regression_failures,
)
from .criteria import Decision, Failure
from .precision import Precision
from .relaxation import relaxations
from .result import CaseResult, ClaimResult
from .run_result import RunGates


def states_of(cases: Iterable[CaseResult]) -> tuple[CaseState, ...]:
    """The cases of a run, as the comparison reads them."""
    return tuple(
        CaseState(
            case.info.file,
            case.info.case,
            case.info.question,
            tuple(claim_state(claim) for claim in case.claims),
            case.precision,
            case.info.own_criteria,
            case.info.answer,
        )
        for case in cases
    )


def claim_state(claim: ClaimResult) -> ClaimState:
    """A claim of this run, as the comparison reads it."""
    label = claim.label.value if claim.label is not None else None
    return ClaimState(claim.where, claim.text, label, claim.decision, claim.general)


def _norm(text: str | None) -> str:
    return " ".join((text or "").split()).casefold()


def _pair_cases(
    before: Sequence[CaseState], after: Sequence[CaseState]
) -> list[tuple[CaseState | None, CaseState | None, str | None]]:
    """(base case, run case, matched by) for every case of either side."""
    left = {case.key: case for case in before}
    right = {case.key: case for case in after}
    pairs: list[tuple[CaseState | None, CaseState | None, str | None]] = []
    keys: list[Callable[[CaseState], str]] = [
        lambda case: case.key,
        lambda case: _norm(case.question),
        lambda case: case.case,
    ]
    for name, key in zip(MATCHED_BY, keys, strict=True):
        index = _unique(left.values(), key)
        for case in list(right.values()):
            found = index.get(key(case))
            if found is not None and key(case) and _count(right.values(), key, key(case)) == 1:
                pairs.append((found, case, name))
                del left[found.key], right[case.key]
                index.pop(key(case))
    pairs += [(None, case, None) for case in right.values()]
    pairs += [(case, None, None) for case in left.values()]
    return pairs


def _unique(cases: Iterable[CaseState], key: Callable[[CaseState], str]) -> dict[str, CaseState]:
    found: dict[str, list[CaseState]] = {}
    for case in cases:
        found.setdefault(key(case), []).append(case)
    return {value: group[0] for value, group in found.items() if value and len(group) == 1}


def _count(cases: Iterable[CaseState], key: Callable[[CaseState], str], value: str) -> int:
    return sum(1 for case in cases if key(case) == value)


def _regressed(before: ClaimState | None, after: ClaimState) -> bool:
    """Worse than in the base (see the module's docstring); both sides checked."""
    if after.label is None:
        return False
    if before is None:
        holds = after.label == Label.SUPPORTED or (after.label == Label.UNCITED and after.general)
        return after.decision is Decision.FAIL or not holds
    if before.label is None:
        return False
    if _rank(after.label) > _rank(before.label):
        return True
    return after.decision is Decision.FAIL and before.decision not in (None, Decision.FAIL)


def _rank(label: str) -> int:
    try:
        return LABEL_RANK[Label(label)]
    except ValueError:
        return len(LABEL_RANK)


def _kind(old: ClaimState, new: ClaimState, matched: ChangeKind | None) -> ChangeKind | None:
    """How a claim matched in the base differs from it, if it does."""
    if old.label is None or new.label is None:
        return ChangeKind.NOT_COMPARED
    if matched is not None:
        return matched
    if old.label != new.label:
        return ChangeKind.LABEL
    if None not in (old.decision, new.decision) and old.decision != new.decision:
        return ChangeKind.DECISION
    return None


def claim_changes(
    case: str, before: Sequence[ClaimState], after: Sequence[ClaimState], left_out: frozenset[str]
) -> tuple[ClaimDiff, ...]:
    """How the claims of one matched case differ, in the run's order, removed ones last
    (base claims whose node id the run ``left_out`` excepted)."""
    unmatched = list(before)
    found: list[ClaimDiff] = []
    matched: dict[int, tuple[ClaimState, ChangeKind | None]] = {}
    for number, claim in enumerate(after):  # the same text first
        same = next((old for old in unmatched if _norm(old.text) == _norm(claim.text)), None)
        if same is not None:
            unmatched.remove(same)
            matched[number] = (same, None)
    for number, claim in enumerate(after):  # then the same name, another text
        named = next((old for old in unmatched if old.where.name == claim.where.name), None)
        if number not in matched and named is not None:
            unmatched.remove(named)
            matched[number] = (named, ChangeKind.CHANGED)
    for number, claim in enumerate(after):
        if number not in matched:
            found.append(_diff(case, ChangeKind.ADDED, None, claim))
            continue
        old, how = matched[number]
        kind = _kind(old, claim, how)
        if kind is not None:
            found.append(_diff(case, kind, old, claim))
    found += [
        ClaimDiff(case, old.where, ChangeKind.REMOVED, old.shown, None, old.text, None)
        for old in unmatched
        if old.where.nodeid not in left_out
    ]
    return tuple(found)


def _diff(case: str, kind: ChangeKind, old: ClaimState | None, new: ClaimState) -> ClaimDiff:
    compared = kind is not ChangeKind.NOT_COMPARED
    return ClaimDiff(
        case,
        new.where,
        kind,
        old.shown if old is not None else None,
        new.shown,
        old.text if old is not None and kind is ChangeKind.CHANGED else None,
        new.text,
        compared and _regressed(old, new),
    )


def _case_diffs(
    before: Sequence[CaseState],
    after: Sequence[CaseState],
    left_out: frozenset[str],
    fail_on_regression: bool,
) -> tuple[CaseDiff, ...]:
    """Every case of either side against the other, sorted by the run's name of it."""
    diffs: list[CaseDiff] = []
    for old, new, matched_by in _pair_cases(before, after):
        if new is None:
            assert old is not None
            claims = [c for c in old.claims if c.where.nodeid not in left_out]
            if claims:
                diffs.append(
                    CaseDiff(
                        old.key,
                        old.key,
                        None,
                        old.question,
                        old.precision,
                        None,
                        claims=len(claims),
                    )
                )
        elif old is None:
            diffs.append(
                CaseDiff(
                    new.key, None, None, new.question, None, new.precision, claims=len(new.claims)
                )
            )
        else:
            changes = claim_changes(new.key, old.claims, new.claims, left_out)
            if fail_on_regression:
                changes = tuple(_failing(change) for change in changes)
            diffs.append(
                CaseDiff(
                    new.key,
                    old.key,
                    matched_by,
                    new.question,
                    old.precision,
                    new.precision,
                    changes,
                )
            )
    return tuple(sorted(diffs, key=lambda diff: diff.case))


def compare_runs(
    before: Sequence[CaseState],
    after: Sequence[CaseState],
    *,
    base: str,
    in_scope: Callable[[str], bool] = lambda file: True,
    left_out: frozenset[str] = frozenset(),
    fail_on_regression: bool = False,
    max_drop: float | None = None,
    gates: RunGates | None = None,
    base_gates: RunGates | None = None,
) -> RunComparison:
    """This run's cases (``after``) against the base's (``before``), with the gates
    decided: each regression ``fails`` under ``fail_on_regression``, and so does each
    criterion laxer than the base's (the run's ``gates`` against ``base_gates``, each
    case's own: see :mod:`.relaxation`; not looked for without ``gates``); drops beyond
    ``max_drop`` fail or are undecided. Base cases whose file is not ``in_scope`` (another
    shard's, or a file a selection did not run) are left out of the comparison, and so are
    base claims whose node id the run ``left_out`` (deselected)."""
    scoped = [case for case in before if in_scope(case.file)]
    cases = _case_diffs(scoped, after, left_out, fail_on_regression)
    relaxed = None
    if gates is not None:
        relaxed = relaxations(
            cases,
            scoped,
            after,
            gates=gates,
            base_gates=base_gates,
            base=base,
            fail=fail_on_regression,
        )
        cases = relaxed.cases
    precision_before = sum((case.precision for case in scoped), Precision(0, 0, 0))
    precision_after = sum((case.precision for case in after), Precision(0, 0, 0))
    failed: list[Failure] = []
    undecided: list[Failure] = []
    if max_drop is not None:
        matched = tuple(case for case in cases if case.status == "matched")
        failed, undecided = drops(matched, precision_before, precision_after, max_drop, base)
    every = tuple(change for case in cases for change in case.changes)
    loosened = relaxed.failures if relaxed is not None else ()
    return RunComparison(
        base,
        cases,
        precision_before,
        precision_after,
        (*regression_failures(every, base), *loosened, *failed),
        tuple(undecided),
        relaxed=relaxed.run if relaxed is not None else (),
        relaxation_fails=relaxed is not None and bool(relaxed.run) and fail_on_regression,
        criteria_compared=relaxed.compared if relaxed is not None else None,
    )


def _failing(change: ClaimDiff) -> ClaimDiff:
    if not change.regressed:
        return change
    return ClaimDiff(
        change.case,
        change.where,
        change.kind,
        change.before,
        change.after,
        change.text_before,
        change.text_after,
        regressed=True,
        fails=True,
    )


__all__ = [
    "UNCHECKED",
    "CaseDiff",
    "CaseState",
    "ChangeKind",
    "ClaimDiff",
    "ClaimState",
    "RunComparison",
    "claim_changes",
    "claim_state",
    "compare_runs",
    "states_of",
]
