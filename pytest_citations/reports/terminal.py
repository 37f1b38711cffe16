"""The terminal summary as lines, built by a pure function of the run's result
(:func:`summary_lines`): the reporter only prints them (as syrupy's report does)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..gating.criteria import Failure
from ..gating.regression_lines import comparison_lines
from ..gating.result import COUNTED
from ..gating.run_result import FAIL, INCOMPLETE, PASS, RunResult
from ..labels import Label, counted
from ..network.usage import Usage
from .info import RunInfo
from .spending import against_plan_line, pending_lines, plan_line

if TYPE_CHECKING:  # only a run that shards has a plan
    from ..gating.shards import ShardPlan

_COLOURS = {FAIL: "red", INCOMPLETE: "yellow", PASS: "green"}
#: Claim labels worth a note under "claims to look at".
_NOTEWORTHY = frozenset({"contradicted", "uncited", "misattributed", "partial"})
#: Citation labels worth a line in the summary even when nothing fails.
UNVERIFIED = frozenset({Label.NOT_FOUND.value, Label.UNREACHABLE.value})


@dataclass(frozen=True)
class Line:
    """One line of the summary and its colour (None: the terminal's own)."""

    text: str
    colour: str | None = None


def _plain(texts: Iterable[str], colour: str | None = None) -> list[Line]:
    """Lines of one colour (None: the terminal's own)."""
    return [Line(text, colour) for text in texts]


def table_lines(result: RunResult) -> list[str]:
    """One row per case: claims, claims per label and unchecked, precision, reachable
    precision."""
    header = ["case", "claims", *COUNTED, "precision", "reachable"]
    rows = [header]
    for case in result.cases:
        counts = case.label_counts
        rows.append(
            [
                case.key,
                str(len(case.claims)),
                *(str(counts[label]) for label in COUNTED),
                case.precision.fraction(),
                case.precision.reachable_fraction(),
            ]
        )
    widths = [max(len(row[i]) for row in rows) for i in range(len(header))]
    return [
        "  ".join(
            cell.ljust(widths[i]) if i == 0 else cell.rjust(widths[i]) for i, cell in enumerate(row)
        ).rstrip()
        for row in rows
    ]


def usage_line(usage: Usage) -> str:
    """Credits by kind and judge tokens spent by this run (0 on a replay), and what a
    replay saved."""
    kinds = usage.credits_by_kind()
    line = (
        f"crawlbase_credits={usage.credits:g} (normal {kinds['normal']:g}, "
        f"javascript {kinds['javascript']:g}, storage {kinds['storage']:g}); "
        f"judge_calls={usage.judge_calls} judge_tokens={usage.judge_tokens}"
    )
    if usage.replayed_crawls or usage.replayed_judge_calls:
        line += (
            f"; replayed: {counted(usage.replayed_crawls, 'crawl')} "
            f"({usage.replayed_credits:g} credits saved), "
            f"{counted(usage.replayed_judge_calls, 'judge call')} "
            f"({usage.replayed_judge_tokens} tokens saved)"
        )
    return line


def _notes(result: RunResult) -> list[str]:
    notes = []
    for claim in result.claims:
        if claim.label_shown not in _NOTEWORTHY and not claim.joint_support:
            continue
        note = f"  {claim.nodeid}: {claim.label_shown}"
        if claim.misattributed_to:
            note += f" (supported instead by {', '.join(claim.misattributed_to)})"
        if claim.joint_support:
            note += f" (jointly by {', '.join(claim.joint_support)})"
        notes.append(note)
    return notes


def _unverified(result: RunResult) -> list[str]:
    """Every citation not found, unreachable, or not checked, and why."""
    lines = []
    for claim in result.claims:
        for citation in claim.citations:
            shown = claim.shown_label(citation)
            if shown in UNVERIFIED or not claim.counted(citation):
                reason = f" ({citation.reason})" if citation.reason else ""
                lines.append(f"  {claim.nodeid}: {shown}{reason} {citation.url}")
    return lines


def _disagreements(result: RunResult) -> list[Line]:
    """The citations the judge could not agree on with itself: the majority label decided
    them (ties to the stricter label), and a reader should know it was split."""
    split = result.disagreements()
    if not split:
        return []
    lines = [Line(""), Line(f"judge disagreed with itself on {counted(len(split), 'citation')}:")]
    for claim, citation in split:
        votes = ", ".join(vote.value for vote in citation.votes)
        lines.append(
            Line(f"  {claim.nodeid}: {citation.label.value} (votes {votes}) {citation.url}")
        )
    return lines


def _gate_line(failure: Failure, result: RunResult) -> Line:
    minimum = result.gates.criteria.min_precision
    if failure.criterion == "min_precision" and minimum is not None:
        text = (
            f"FAIL Required citation precision of {minimum:g} not reached: "
            f"citation_precision={result.precision.fraction()}"
        )
        return Line(text, "red")
    return Line(f"FAIL {failure}", "red")


def _findings(result: RunResult) -> list[Line]:
    """The per-case table, the citations not verified, the claims to look at, and the
    citations the judge could not agree on with itself."""
    lines = _plain(table_lines(result))
    unverified = _unverified(result)
    if unverified:
        lines += _plain(["", "citations not verified:", *unverified])
    notes = _notes(result)
    if notes:
        lines += _plain(["", "claims to look at:", *notes])
    return lines + _disagreements(result)


def shard_line(plan: ShardPlan) -> str:
    """What a shard ran, and where the rest of the run's decision comes from."""
    return (
        f"shard {plan.shard}: {counted(len(plan.files), 'file')} of {len(plan.assignment)} ran "
        "here; the decision above covers them only (merge the shards' JSON reports with "
        "pytest-citations merge)"
    )


def _measured(result: RunResult) -> list[Line]:
    """The baseline, the comparison with the base and the judge's calibration, when the
    run measured them."""
    lines = []
    baseline = result.baseline.reconciliation if result.baseline is not None else None
    if baseline is not None:
        fail_unused = result.gates.baseline_fail_unused
        lines += _plain(baseline.lines(fail_unused=fail_unused))
    if result.comparison is not None:
        lines += _plain(["", *comparison_lines(result.comparison)])
    if result.agreement is not None:
        lines += _plain(["", *result.agreement.lines()])
    return lines


def summary_lines(result: RunResult, info: RunInfo) -> list[Line]:
    """Every line of the ``citations`` section, in order."""
    lines = _findings(result)
    lines.append(Line(""))
    lines += _plain(result.precision.lines())
    lines.append(Line(f"supported_share={result.share}"))
    lines.append(Line(usage_line(result.usage)))
    plan = result.spending.plan
    if plan is not None:
        lines.append(Line(plan_line(plan, result.spending.budget)))
        lines.append(Line(against_plan_line(plan, result.usage)))
    lines += _measured(result)
    release = result.release
    if release.verdict is not None:
        lines.append(Line(""))
        lines += [Line(text, _COLOURS[verdict]) for verdict, text in release.cases]
        lines.append(Line(release.line or "", _COLOURS[release.verdict]))
    cases, claims = result.left_out()
    if claims or cases:
        lines.append(
            Line(
                f"the selection (-m, -k, --deselect) left out {counted(cases, 'case')} "
                f"({counted(claims, 'claim')}): the decision above does not cover them"
            )
        )
    if info.shard is not None:
        lines.append(Line(shard_line(info.shard)))
    report = dict(info.files).get("json")
    if report is not None:
        lines.append(Line(f"citations report: {report}"))
    lines += [_gate_line(failure, result) for failure in result.decision.failures]
    lines += [Line(f"INCOMPLETE {failure}", "yellow") for failure in result.decision.undecided]
    return lines + _next_steps(result)


def _next_steps(result: RunResult) -> list[Line]:
    """What the run left undone and how to finish it: cassettes it did not write, claims
    its budget kept from being sent or new since the recording, claims not checked."""
    lines = []
    if result.cassette_notes:
        lines += [
            Line(""),
            Line("cassettes not written (nothing of a failed or interrupted run is recorded):"),
            *(Line(f"  {note}", "yellow") for note in result.cassette_notes),
        ]
    pending = pending_lines(result)
    if pending:
        lines += [Line(""), *_plain(pending, "yellow")]
    # Claims that lack a recording have their next step above: the opt-out never counts them.
    unchecked = [c for c in result.unchecked_claims if not c.unrecorded]
    if unchecked:
        count = len(unchecked)
        lines.append(
            Line(
                f"{count} claim{'s' if count != 1 else ''} could not be checked (see the errors "
                "above): fix the cause and run again, or count unchecked citations as their "
                "labels with --citations-allow-unchecked",
                "yellow",
            )
        )
    return lines


__all__ = ["UNVERIFIED", "Line", "summary_lines", "table_lines", "usage_line"]
