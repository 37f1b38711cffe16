"""The release decision of each case and of the run, decided once from the typed report
(004, C7): every output (terminal, JSON, HTML) reads this value, and the exit status follows
it. A failure wins over ``incomplete`` (something could not be checked, or did not run),
which wins over ``pass``."""

from __future__ import annotations

from dataclasses import dataclass

from .criteria import Decision
from .decisions import RunDecision
from .run_report import CaseRecord, RunReport

PASS, FAIL, INCOMPLETE = Decision.PASS, Decision.FAIL, Decision.INCOMPLETE


@dataclass(frozen=True)
class Release:
    """The run's decision, why, and one line per decided case."""

    #: ``pass``, ``fail`` or ``incomplete``; None when nothing was decided.
    verdict: Decision | None
    #: Why the run is ``fail`` or ``incomplete``, each reason once (empty for ``pass``).
    reasons: tuple[str, ...] = ()
    #: (decision, ``file::case: fully supported 1 of 2; release decision: …``) per decided
    #: case.
    cases: tuple[tuple[Decision, str], ...] = ()

    @property
    def failed(self) -> bool:
        """True when the run may not ship: it failed, or something was not checked."""
        return self.verdict in (FAIL, INCOMPLETE)

    @property
    def line(self) -> str | None:
        """``Release decision: fail (first reason and 2 more)``; None when nothing was decided."""
        if self.verdict is None:
            return None
        if not self.reasons:
            return f"Release decision: {self.verdict}"
        more = f" and {len(self.reasons) - 1} more" if len(self.reasons) > 1 else ""
        return f"Release decision: {self.verdict} ({self.reasons[0]}{more})"

    def lines(self) -> list[str]:
        """The case lines, then the run's line."""
        return [line for _, line in self.cases] + ([self.line] if self.line else [])


def _case_line(case: CaseRecord) -> tuple[Decision, str | None, str]:
    """(decision, reason, line) of one case that has a decision."""
    assert case.outcome is not None
    outcome = case.outcome
    share = case.share
    shown = f"{case.key}: fully supported {share.supported} of {share.total}; "
    if outcome.decision == FAIL:
        return FAIL, outcome.failures[0], shown + f"release decision: fail ({outcome.failures[0]})"
    if outcome.decision == INCOMPLETE:
        why = outcome.incomplete[0] if outcome.incomplete else "not every citation was checked"
        return INCOMPLETE, why, shown + f"release decision: incomplete ({why})"
    return PASS, None, shown + "release decision: pass"


def release_of(report: RunReport, decision: RunDecision) -> Release:
    """Decide the run: each case's decision, the suite's own gates, the case files that
    could not be verified and the case items that did not run."""
    lines: list[tuple[Decision, str]] = []
    reasons: dict[Decision, list[str]] = {FAIL: [], INCOMPLETE: []}
    for case in report.cases:
        if case.outcome is None:
            continue
        verdict, why, line = _case_line(case)
        lines.append((verdict, line))
        if why is not None:
            reasons[verdict].append(f"{case.key}: {why}")
    reasons[FAIL] += [str(failure) for failure in decision.failures]
    reasons[INCOMPLETE] += [
        f"{file}: not verified ({why})" for file, why in sorted(report.file_errors.items())
    ]
    reasons[INCOMPLETE] += [str(failure) for failure in decision.undecided]
    skipped = report.skipped_items
    if skipped:
        count = f"{len(skipped)} case item{'s' if len(skipped) != 1 else ''}"
        reasons[INCOMPLETE].append(f"{count} did not run ({skipped[0]} was skipped)")
    for verdict in (FAIL, INCOMPLETE):
        if reasons[verdict]:
            return Release(verdict, tuple(reasons[verdict]), tuple(lines))
    return Release(PASS if lines else None, (), tuple(lines))


__all__ = ["FAIL", "INCOMPLETE", "PASS", "Release", "release_of"]
