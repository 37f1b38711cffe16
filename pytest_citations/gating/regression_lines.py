"""The summary's section on a run against its base (``Regressions against BASE.json: …``),
as lines built from a :class:`~.comparison.RunComparison`; nothing here prints."""

from __future__ import annotations

from .comparison import CaseDiff, ChangeKind, ClaimDiff, RunComparison


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}{'' if count == 1 else 's'}"


def headline(comparison: RunComparison) -> str:
    """``Regressions against base.json: 1 claim regressed; cases: 2 changed, …``."""
    statuses = [case.status for case in comparison.cases if case.changed]
    parts = [
        f"{statuses.count(status)} {word}"
        for status, word in (("matched", "changed"), ("added", "added"), ("removed", "removed"))
        if statuses.count(status)
    ]
    said = _plural(len(comparison.regressions), "claim") + " regressed"
    open_ = sum(1 for change in comparison.changes if change.kind is ChangeKind.NOT_COMPARED)
    said += f", {open_} not compared (unchecked)" if open_ else ""
    cases = f"; cases: {', '.join(parts)}" if parts else "; no case changed"
    before, after = comparison.precision_before, comparison.precision_after
    return (
        f"Regressions against {comparison.base}: {said}{cases}; citation_precision "
        f"{before.fraction()} -> {after.fraction()}"
    )


def _change_lines(change: ClaimDiff) -> list[str]:
    flag = " (regressed)" if change.regressed else ""
    name = change.where.name
    if change.kind is ChangeKind.ADDED:
        lines = [f"    {name} added: {change.after}{flag}"]
    elif change.kind is ChangeKind.REMOVED:
        lines = [f"    {name} removed (was {change.before})"]
    elif change.kind is ChangeKind.CHANGED:
        lines = [f"    {name} changed: {change.before} -> {change.after}{flag}"]
    elif change.kind is ChangeKind.DECISION:
        lines = [f"    {name}: {change.after}, decision changed{flag}"]
    elif change.kind is ChangeKind.NOT_COMPARED:
        lines = [f"    {name} not compared: {change.before} -> {change.after}"]
    else:
        lines = [f"    {name}: {change.before} -> {change.after}{flag}"]
    if change.kind in (ChangeKind.LABEL, ChangeKind.DECISION, ChangeKind.NOT_COMPARED):
        lines.append(f"      claim: {change.text_after}")
        return lines
    if change.text_before is not None:
        lines.append(f"      was: {change.text_before}")
    if change.text_after is not None:
        lines.append(f"      now: {change.text_after}")
    return lines


def _case_lines(case: CaseDiff) -> list[str]:
    if case.status == "added":
        return [f"  {case.case}: added ({_plural(case.claims, 'claim')})"]
    if case.status == "removed":
        return [f"  {case.case}: removed ({_plural(case.claims, 'claim')})"]
    before, after = case.precision_before, case.precision_after
    assert before is not None
    assert after is not None
    matched = f" (was {case.base_case}, same {case.matched_by})" if case.matched_by != "key" else ""
    head = f"  {case.case}{matched}: citation precision {before.fraction()} -> {after.fraction()}"
    return [head, *(line for change in case.changes for line in _change_lines(change))]


def comparison_lines(comparison: RunComparison) -> list[str]:
    """The headline, then each case that changed and how its claims did."""
    lines = [headline(comparison)]
    for case in comparison.cases:
        if case.changed:
            lines += _case_lines(case)
    return lines


__all__ = ["comparison_lines", "headline"]
