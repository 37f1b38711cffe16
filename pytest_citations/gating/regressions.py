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

A claim that could not be checked now has not regressed (the run is incomplete anyway), and
neither has a claim of a case the base did not have: it is new, and fails (or passes) on
its own criteria. A baseline file stores no decisions, so only labels count against one.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from ..labels import LABEL_RANK, Label
from ..precision import Precision
from .comparison import (
    MATCHED_BY,
    CaseDiff,
    CaseState,
    ChangeKind,
    ClaimState,
    Comparison,
    Regression,
    figures,
)
from .criteria import Decision
from .records import ClaimRecord
from .run_report import RunReport


def states_of(report: RunReport) -> tuple[CaseState, ...]:
    """The cases of a run, as the comparison reads them."""
    return tuple(
        CaseState(
            case.file,
            case.case_id,
            case.question,
            tuple(_claim_state(claim) for claim in case.claims),
            case.precision,
        )
        for case in report.cases
    )


def _claim_state(claim: ClaimRecord) -> ClaimState:
    name = claim.nodeid.rsplit("::", 1)[-1]
    return ClaimState(
        claim.nodeid, name, claim.claim, claim.label, claim.decision, claim.line, claim.general
    )


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
    """Worse than in the base (see the module's docstring)."""
    if after.decision is Decision.INCOMPLETE:
        return False
    if before is None:
        holds = after.label == Label.SUPPORTED or (after.label == Label.UNCITED and after.general)
        return after.decision is Decision.FAIL or not holds
    if _rank(after.label) > _rank(before.label):
        return True
    return after.decision is Decision.FAIL and before.decision not in (None, Decision.FAIL)


def _rank(label: str) -> int:
    try:
        return LABEL_RANK[Label(label)]
    except ValueError:
        return len(LABEL_RANK)


def claim_changes(
    case: str, before: Sequence[ClaimState], after: Sequence[ClaimState], left_out: frozenset[str]
) -> tuple[Regression, ...]:
    """How the claims of one matched case differ, in the run's order, removed ones last."""
    unmatched = list(before)
    found: list[Regression] = []
    matched: dict[int, tuple[ClaimState, ChangeKind | None]] = {}
    for number, claim in enumerate(after):  # the same text first
        same = next((old for old in unmatched if _norm(old.text) == _norm(claim.text)), None)
        if same is not None:
            unmatched.remove(same)
            matched[number] = (same, None)
    for number, claim in enumerate(after):  # then the same name, another text
        named = next((old for old in unmatched if old.name == claim.name), None)
        if number not in matched and named is not None:
            unmatched.remove(named)
            matched[number] = (named, ChangeKind.CHANGED)
    for number, claim in enumerate(after):
        old, kind = matched.get(number, (None, ChangeKind.ADDED))
        if kind is None and old is not None:
            kind = ChangeKind.LABEL if old.label != claim.label else None
            if kind is None and None not in (old.decision, claim.decision):
                kind = ChangeKind.DECISION if old.decision != claim.decision else None
        if kind is not None:
            found.append(_change(case, kind, old, claim))
    found += [
        Regression(case, old.name, ChangeKind.REMOVED, old.label, None, old.text, None,
                   old.nodeid, old.line)
        for old in unmatched
        if old.nodeid not in left_out
    ]  # fmt: skip
    return tuple(found)


def _change(case: str, kind: ChangeKind, old: ClaimState | None, new: ClaimState) -> Regression:
    return Regression(
        case,
        new.name,
        kind,
        old.label if old is not None else None,
        new.label,
        old.text if old is not None and kind is ChangeKind.CHANGED else None,
        new.text,
        new.nodeid,
        new.line,
        _regressed(old, new),
    )


def compare_runs(
    before: Sequence[CaseState],
    after: Sequence[CaseState],
    *,
    base: str,
    in_scope: Callable[[str], bool] = lambda file: True,
    left_out: frozenset[str] = frozenset(),
) -> Comparison:
    """This run's cases (``after``) against the base's (``before``). Base cases whose file
    is not ``in_scope`` (another shard's, or a file a selection did not run) are left out
    of the comparison, and so are base claims whose node id the run ``left_out``
    (deselected)."""
    scoped = [case for case in before if in_scope(case.file)]
    diffs: list[CaseDiff] = []
    for old, new, matched_by in _pair_cases(scoped, after):
        if new is None:
            assert old is not None
            claims = [c for c in old.claims if c.nodeid not in left_out]
            if claims:
                diffs.append(CaseDiff(old.key, old.key, None, old.question, old.precision, None,
                                      claims=len(claims)))  # fmt: skip
        elif old is None:
            diffs.append(CaseDiff(new.key, None, None, new.question, None, new.precision,
                                  claims=len(new.claims)))  # fmt: skip
        else:
            changes = claim_changes(new.key, old.claims, new.claims, left_out)
            diffs.append(CaseDiff(new.key, old.key, matched_by, new.question, old.precision,
                                  new.precision, changes))  # fmt: skip
    return Comparison(
        base,
        tuple(sorted(diffs, key=lambda diff: diff.case)),
        sum((case.precision for case in scoped), Precision(0, 0, 0)),
        sum((case.precision for case in after), Precision(0, 0, 0)),
    )


__all__ = [
    "CaseDiff",
    "CaseState",
    "ChangeKind",
    "ClaimState",
    "Comparison",
    "Regression",
    "claim_changes",
    "compare_runs",
    "figures",
    "states_of",
]
