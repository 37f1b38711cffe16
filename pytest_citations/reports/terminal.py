"""The terminal summary as lines, built by pure functions from the typed report and the
run's decision: the reporter only prints them (as syrupy's report does)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..gating.criteria import Failure
from ..gating.decisions import RunDecision
from ..gating.release import FAIL, INCOMPLETE, PASS, release_of
from ..gating.run_report import LABEL_ORDER, RunReport
from ..gating.shards import ShardPlan
from ..usage import Usage
from .spending import pending_lines, plan_line

_COLOURS = {FAIL: "red", INCOMPLETE: "yellow", PASS: "green"}
#: Claim labels worth a note under "claims to look at".
_NOTEWORTHY = frozenset({"contradicted", "uncited", "misattributed", "partial"})


@dataclass(frozen=True)
class Line:
    """One line of the summary and its colour (None: the terminal's own)."""

    text: str
    colour: str | None = None


def table_lines(report: RunReport) -> list[str]:
    """One row per case: claims, claim labels, precision, reachable precision."""
    header = ["case", "claims", *LABEL_ORDER, "precision", "reachable"]
    rows = [header]
    for case in report.cases:
        precision = case.precision
        counts = case.label_counts()
        rows.append(
            [
                case.key,
                str(len(case.claims)),
                *(str(counts[label]) for label in LABEL_ORDER),
                precision.fraction(),
                precision.reachable_fraction(),
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
            f"; replayed: {usage.replayed_crawls} crawls ({usage.replayed_credits:g} credits "
            f"saved), {usage.replayed_judge_calls} judge calls "
            f"({usage.replayed_judge_tokens} tokens saved)"
        )
    return line


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}{'' if number == 1 else 's'}"


def _notes(report: RunReport) -> list[str]:
    notes = []
    for claim in report.claims:
        if claim.label not in _NOTEWORTHY and not claim.joint_support:
            continue
        note = f"  {claim.nodeid}: {claim.label}"
        if claim.misattributed_to:
            note += f" (supported instead by {', '.join(claim.misattributed_to)})"
        if claim.joint_support:
            note += f" (jointly by {', '.join(claim.joint_support)})"
        notes.append(note)
    return notes


def _disagreements(report: RunReport) -> list[Line]:
    """The citations the judge could not agree on with itself: the majority label decided
    them (ties to the stricter label), and a reader should know it was split."""
    split = report.disagreements()
    if not split:
        return []
    lines = [Line(""), Line(f"judge disagreed with itself on {_count(len(split), 'citation')}:")]
    for nodeid, citation in split:
        votes = ", ".join(vote.value for vote in citation.votes)
        lines.append(Line(f"  {nodeid}: {citation.label.value} (votes {votes}) {citation.url}"))
    return lines


def _gate_line(failure: Failure, min_precision: float | None, report: RunReport) -> Line:
    if failure.criterion == "min_precision" and min_precision is not None:
        text = (
            f"FAIL Required citation precision of {min_precision:g} not reached: "
            f"citation_precision={report.precision.fraction()}"
        )
        return Line(text, "red")
    return Line(f"FAIL {failure}", "red")


def _findings(report: RunReport) -> list[Line]:
    """The per-case table, the citations not verified, the claims to look at, and the
    citations the judge could not agree on with itself."""
    lines = [Line(text) for text in table_lines(report)]
    unverified = report.unverified()
    if unverified:
        lines += [Line(""), Line("citations not verified:")]
        for nodeid, citation in unverified:
            reason = f" ({citation.reason})" if citation.reason else ""
            lines.append(Line(f"  {nodeid}: {citation.label.value}{reason} {citation.url}"))
    notes = _notes(report)
    if notes:
        lines += [Line(""), Line("claims to look at:"), *(Line(note) for note in notes)]
    return lines + _disagreements(report)


def shard_line(plan: ShardPlan) -> str:
    """What a shard ran, and where the rest of the run's decision comes from."""
    return (
        f"shard {plan.shard}: {_count(len(plan.files), 'file')} of {len(plan.assignment)} ran "
        "here; the decision above covers them only (merge the shards' JSON reports with "
        "pytest-citations merge)"
    )


def summary_lines(
    report: RunReport,
    decision: RunDecision,
    *,
    baseline: Sequence[str] = (),
    comparison: Sequence[str] = (),
    calibration: Sequence[str] = (),
    report_path: str | None = None,
    min_precision: float | None = None,
    shard: ShardPlan | None = None,
) -> list[Line]:
    """Every line of the ``citations`` section, in order."""
    lines = _findings(report)
    lines.append(Line(""))
    lines += [Line(text) for text in report.precision.lines()]
    lines.append(Line(f"supported_share={report.share}"))
    lines.append(Line(usage_line(report.usage)))
    plan = report.spending.plan
    if plan is not None:
        lines.append(Line(plan_line(plan, report.spending.budget)))
    lines += [Line(text) for text in baseline]
    if comparison:
        lines += [Line(""), *(Line(text) for text in comparison)]
    if calibration:
        lines += [Line(""), *(Line(text) for text in calibration)]
    release = release_of(report, decision)
    if release.verdict is not None:
        lines.append(Line(""))
        lines += [Line(text, _COLOURS[verdict]) for verdict, text in release.cases]
        lines.append(Line(release.line or "", _COLOURS[release.verdict]))
    cases, claims = report.left_out()
    if claims or cases:
        lines.append(Line(
            f"the selection (-m, -k, --deselect) left out {_count(cases, 'case')} "
            f"({_count(claims, 'claim')}): the decision above does not cover them"
        ))  # fmt: skip
    if shard is not None:
        lines.append(Line(shard_line(shard)))
    if report_path is not None:
        lines.append(Line(f"citations report: {report_path}"))
    lines += [_gate_line(failure, min_precision, report) for failure in decision.failures]
    lines += [Line(f"INCOMPLETE {failure}", "yellow") for failure in decision.undecided]
    return lines + _next_steps(report)


def _next_steps(report: RunReport) -> list[Line]:
    """What the run left undone and how to finish it: cassettes it did not write, claims
    its budget kept from being sent or new since the recording, claims not checked."""
    lines = []
    if report.cassette_notes:
        lines += [
            Line(""),
            Line("cassettes not written (nothing of a failed or interrupted run is recorded):"),
            *(Line(f"  {note}", "yellow") for note in report.cassette_notes),
        ]
    pending = pending_lines(report)
    if pending:
        lines += [Line(""), *(Line(text, "yellow") for text in pending)]
    unrecorded = {claim.nodeid for claim in report.claims if claim.unrecorded}
    # Claims that lack a recording have their next step above: the opt-out never counts them.
    incomplete = [nodeid for nodeid in report.incomplete_claims() if nodeid not in unrecorded]
    if incomplete:
        count = len(incomplete)
        lines.append(
            Line(
                f"{count} claim{'s' if count != 1 else ''} could not be checked (see the errors "
                "above): fix the cause and run again, or count unchecked citations as their "
                "labels with --citations-allow-unchecked",
                "yellow",
            )
        )
    return lines


__all__ = ["Line", "summary_lines", "table_lines"]
