"""The summary's section on a run against its base (``Regressions against BASE.json: …``),
as lines built from a :class:`~.comparison.RunComparison`; nothing here prints. Every report
imports this module; the comparison itself loads only in a run that has a base, so a change's
kind is read here by its value (:class:`~.comparison.ChangeKind`'s)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from ..labels import counted

if TYPE_CHECKING:
    from .comparison import CaseDiff, ClaimDiff, Relaxation, RunComparison

#: How a claim's change is said, by its kind.
_SAID = {
    "added": "{name} added: {after}{flag}",
    "removed": "{name} removed (was {before})",
    "changed": "{name} changed: {before} -> {after}{flag}",
    "decision": "{name}: {after}, decision changed{flag}",
    "not_compared": "{name} not compared: {before} -> {after}",
    "label": "{name}: {before} -> {after}{flag}",
}
#: The kinds of change whose claim kept its text: it is shown once.
_SAME_TEXT = ("label", "decision", "not_compared")


def headline(comparison: RunComparison) -> str:
    """``Regressions against base.json: 1 claim regressed; cases: 2 changed, …``."""
    statuses = [case.status for case in comparison.cases if case.changed]
    parts = [
        f"{statuses.count(status)} {word}"
        for status, word in (("matched", "changed"), ("added", "added"), ("removed", "removed"))
        if statuses.count(status)
    ]
    said = counted(len(comparison.regressions), "claim") + " regressed"
    open_ = sum(1 for change in comparison.changes if change.kind == "not_compared")
    said += f", {open_} not compared (unchecked)" if open_ else ""
    cases = f"; cases: {', '.join(parts)}" if parts else "; no case changed"
    before, after = comparison.precision_before, comparison.precision_after
    return (
        f"Regressions against {comparison.base}: {said}{cases}; citation_precision "
        f"{before.fraction()} -> {after.fraction()}"
    )


def _change_lines(change: ClaimDiff) -> list[str]:
    flag = " (regressed)" if change.regressed else ""
    said = _SAID[change.kind].format(
        name=change.where.name, before=change.before, after=change.after, flag=flag
    )
    lines = [f"    {said}"]
    if change.kind in _SAME_TEXT:
        lines.append(f"      claim: {change.text_after}")
        return lines
    if change.text_before is not None:
        lines.append(f"      was: {change.text_before}")
    if change.text_after is not None:
        lines.append(f"      now: {change.text_after}")
    return lines


def relaxed_text(relaxed: Iterable[Relaxation]) -> str:
    """The relaxations in one line: ``fail_on lost partial; min_precision 0.8 -> none``."""
    return "; ".join(str(relaxation) for relaxation in relaxed)


def relaxed_line(relaxed: tuple[Relaxation, ...], fails: bool) -> str:
    """``criteria relaxed: fail_on lost partial (fails the run)``, the words every output
    shows a relaxation in."""
    return f"criteria relaxed: {relaxed_text(relaxed)}" + (" (fails the run)" if fails else "")


#: What the comparison says, once, of a base that stores no criteria.
NOT_COMPARED = "criteria not compared: the base stores none (a baseline file stores labels only)"


def relaxation_lines(comparison: RunComparison) -> list[str]:
    """Each relaxation in one line (``CASE: criteria relaxed: …``), the run's first, or that
    the criteria were not compared; for the reports that list them apart from the cases."""
    lines = [f"the run's {relaxed_line(comparison.relaxed, comparison.relaxation_fails)}"]
    lines = lines if comparison.relaxed else []
    lines += [
        f"{case.case}: {relaxed_line(case.relaxed, case.relaxation_fails)}"
        for case in comparison.relaxed_cases
    ]
    return lines + ([NOT_COMPARED] if comparison.criteria_compared is False else [])


def _case_lines(case: CaseDiff) -> list[str]:
    relaxed = [f"    {relaxed_line(case.relaxed, case.relaxation_fails)}"] if case.relaxed else []
    if case.status == "added":
        return [f"  {case.case}: added ({counted(case.claims, 'claim')})", *relaxed]
    if case.status == "removed":
        return [f"  {case.case}: removed ({counted(case.claims, 'claim')})"]
    before, after = case.precision_before, case.precision_after
    assert before is not None
    assert after is not None
    matched = f" (was {case.base_case}, same {case.matched_by})" if case.matched_by != "key" else ""
    head = f"  {case.case}{matched}: citation precision {before.fraction()} -> {after.fraction()}"
    return [head, *relaxed, *(line for change in case.changes for line in _change_lines(change))]


def comparison_lines(comparison: RunComparison) -> list[str]:
    """The headline, the run's relaxed gates (or that criteria were not compared), then
    each case that changed and how its claims did."""
    lines = [headline(comparison)]
    if comparison.relaxed:
        lines.append(f"  the run's {relaxed_line(comparison.relaxed, comparison.relaxation_fails)}")
    if comparison.criteria_compared is False:
        lines.append(f"  {NOT_COMPARED}")
    for case in comparison.cases:
        if case.changed:
            lines += _case_lines(case)
    return lines


__all__ = [
    "NOT_COMPARED",
    "comparison_lines",
    "headline",
    "relaxation_lines",
    "relaxed_line",
    "relaxed_text",
]
