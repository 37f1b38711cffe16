"""The run as Markdown: a GitHub job summary (``$GITHUB_STEP_SUMMARY``) or a pull-request
comment (``--citations-markdown``). The release decision and why, one row per case, the
claims that fail, what could not be checked and why, the regressions against the base run
(when a comparison gives them), the costs, and where the HTML report is.

Text from case files and pages is escaped (Markdown and HTML), kept to one line, and no
``@`` in it mentions anyone. The whole takes at most :data:`MAX_SUMMARY_BYTES`, GitHub's limit
of a step's summary (over it, GitHub shows none of it): a longer one is cut at a line, with a
note that says so and where the whole run is.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

from ..atomic import write_atomically
from ..gating.criteria import Decision
from ..gating.decisions import RunDecision
from ..gating.records import ClaimRecord
from ..gating.release import release_of
from ..gating.run_report import CaseRecord, RunReport
from ..labels import Label, is_unchecked, unchecked_meaning
from ..usage import Usage
from .github import Regression, regressions_of
from .info import RunInfo

#: Entries a list shows before it says how many more there are.
MAX_ENTRIES = 50
#: Characters of a claim's text a line shows.
MAX_CLAIM = 200
#: The most a step's job summary may hold, in bytes of UTF-8 (the runner refuses more).
MAX_SUMMARY_BYTES = 1024 * 1024
_ESCAPED = str.maketrans({c: "\\" + c for c in "\\`*_[]|~"} | {
    "&": "&amp;", "<": "&lt;", ">": "&gt;", "@": "@\u200b", "\r": " ", "\n": " ",
})  # fmt: skip


def text(value: object, limit: int | None = None) -> str:
    """``value`` as Markdown shows it literally, on one line (cut to ``limit`` characters)."""
    shown = " ".join(str(value).split())
    if limit is not None and len(shown) > limit:
        shown = shown[: limit - 1] + "…"
    return shown.translate(_ESCAPED)


def _row(cells: Iterable[object]) -> str:
    return "| " + " | ".join(str(cell) for cell in cells) + " |"


def _case_row(case: CaseRecord) -> str:
    claims = case.claims
    decision = case.outcome.decision.value if case.outcome is not None else "not decided"
    return _row([
        text(case.key),
        len(claims),
        sum(claim.label == Label.SUPPORTED.value for claim in claims),
        sum(claim.decision is Decision.FAIL for claim in claims),
        sum(claim.decision is Decision.INCOMPLETE for claim in claims),
        case.precision.fraction(),
        decision,
    ])  # fmt: skip


def case_table(report: RunReport) -> list[str]:
    """One row per case: claims, fully supported, failing and unchecked claims, citation
    precision and the case's decision."""
    header = ["case", "claims", "supported", "failed", "unchecked", "precision", "decision"]
    rows = [_case_row(case) for case in report.cases]
    return [_row(header), "| --- | ---: | ---: | ---: | ---: | ---: | --- |", *rows]


def _listed(entries: Sequence[str], where: str = "the JSON and HTML reports") -> list[str]:
    shown = [f"- {entry}" for entry in entries[:MAX_ENTRIES]]
    if len(entries) > MAX_ENTRIES:
        shown.append(f"- … and {len(entries) - MAX_ENTRIES} more ({where} list them all)")
    return shown


def _failed(claim: ClaimRecord) -> str:
    why = "; ".join(claim.failures) or "it regressed against the baseline"
    return (
        f"{text(claim.nodeid)} (line {claim.line}, {claim.label}): "
        f"“{text(claim.claim, MAX_CLAIM)}”: {text(why)}"
    )


def _unchecked(claim: ClaimRecord) -> str:
    """Each citation of ``claim`` that could not be checked and why, in words, then the
    claim's notes (a request missing from the recording, and the command that records it)."""
    citations = [
        f"{text(c.url)}: {text(c.reason)} ({text(unchecked_meaning(c.reason))})"
        for c in claim.citations
        if is_unchecked(c.reason)
    ]
    if not citations:  # a check beyond its own citations (joint support, misattribution)
        citations = [text(line) for line in claim.unchecked[:1]]
    notes = [f"\n  - {text(problem)}" for problem in claim.problems]
    return f"{text(claim.nodeid)} (line {claim.line}): {'; '.join(citations)}{''.join(notes)}"


def unchecked_entries(report: RunReport) -> list[str]:
    """What could not be checked and why: citations, case files, items that did not run."""
    entries = [_unchecked(c) for c in report.claims if c.decision is Decision.INCOMPLETE]
    entries += [f"{text(file)}: {text(why)}" for file, why in report.file_errors.items()]
    entries += [f"{text(nodeid)}: did not run (skipped)" for nodeid in report.skipped_items]
    return entries


def cost_lines(usage: Usage) -> list[str]:
    """What the run spent (0 on a replay) and what its recordings saved."""
    kinds = usage.credits_by_kind()
    lines = [
        _row(["Crawlbase credits", "normal", "JavaScript", "storage", "judge calls", "tokens"]),
        "| ---: | ---: | ---: | ---: | ---: | ---: |",
        _row([f"{usage.credits:g}", *(f"{kinds[k]:g}" for k in ("normal", "javascript",
             "storage")), usage.judge_calls, usage.judge_tokens]),
    ]  # fmt: skip
    if usage.replayed_crawls or usage.replayed_judge_calls:
        lines += ["", (
            f"Replayed from the recordings: {usage.replayed_crawls} crawls "
            f"({usage.replayed_credits:g} credits saved), {usage.replayed_judge_calls} judge "
            f"calls ({usage.replayed_judge_tokens} tokens saved)."
        )]  # fmt: skip
    return lines


def _section(title: str, lines: Sequence[str]) -> list[str]:
    return ["", f"### {title}", "", *lines] if lines else []


def render(
    report: RunReport,
    decision: RunDecision,
    info: RunInfo,
    *,
    regressions: Sequence[Regression] | None = None,
) -> str:
    """The Markdown of the run. ``regressions`` are the claims that got worse against the
    base run (by default those of the run's comparison; none without one)."""
    if regressions is None:
        regressions = regressions_of(report, info)
    release = release_of(report, decision)
    verdict = release.verdict.value if release.verdict is not None else "nothing decided"
    precision = report.precision
    lines = [f"## Citations: {verdict}", ""]
    lines += [f"**{text(release.line)}**"] if release.line else []
    lines += _listed([text(reason) for reason in release.reasons[1:]])
    lines += ["", *case_table(report), ""]
    lines.append(
        f"Citation precision {precision.fraction()} · reachable "
        f"{precision.reachable_fraction()} · fully supported claims {report.share}"
    )
    failed = [claim for claim in report.claims if claim.decision is Decision.FAIL]
    lines += _section("Claims that fail", _listed([_failed(claim) for claim in failed]))
    lines += _section("Regressions against the base", _listed([
        f"{text(found.nodeid)} (line {found.line}): {text(found.summary)}"
        + ("" if found.fails else " (does not fail the gate)")
        for found in regressions
    ]))  # fmt: skip
    lines += _section("Could not be checked", _listed(unchecked_entries(report)))
    lines += _section("Costs", cost_lines(report.usage))
    html = dict(info.files).get("html")
    if html is not None:
        lines += ["", f"The HTML report, every claim with its evidence: {text(html)}"]
    return capped("\n".join(lines) + "\n", MAX_SUMMARY_BYTES, whole_run(info))


def whole_run(info: RunInfo) -> list[str]:
    """The report files that hold the whole run when a summary is cut (not the Markdown)."""
    return [path for name, path in info.files if name != "markdown"]


def capped(markdown: str, room: int, whole: Sequence[str] = ()) -> str:
    """``markdown`` when it takes at most ``room`` bytes of UTF-8; else cut after a line, with
    a note that says so and where the whole run is (``whole``, the report files; else the
    job's log), the two within ``room``; empty when not even the note fits."""
    data = markdown.encode("utf-8")
    if len(data) <= room:
        return markdown
    where = ", ".join(text(path) for path in whole) if whole else "the job's log"
    note = (
        f"\n_The summary stops here: GitHub shows no job summary of a step over "
        f"{MAX_SUMMARY_BYTES // 1024} KiB. The whole run: {where}._\n"
    )
    budget = room - len(note.encode("utf-8"))
    if budget < 0:
        return ""
    kept = data[:budget].decode("utf-8", errors="ignore")
    return kept[: kept.rfind("\n") + 1] + note


def write(path: Path, report: RunReport, decision: RunDecision, info: RunInfo) -> None:
    """Write the Markdown of the run to ``path``, atomically."""
    write_atomically(path, render(report, decision, info))
