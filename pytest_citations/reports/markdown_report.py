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
from pathlib import PurePath

from ..gating.criteria import Decision
from ..gating.regression_lines import relaxation_lines
from ..gating.result import CaseResult, ClaimResult, ClaimStatus, Location
from ..gating.run_result import RunResult
from ..labels import Label, counted
from ..network.usage import Usage
from ..verdicts import CitationVerdict
from .info import RunInfo, SourceLinks
from .spending import against_plan_line

#: Entries a list shows before it says how many more there are.
MAX_ENTRIES = 50
#: Characters of a claim's text a line shows.
MAX_CLAIM = 200
#: Characters of a page's quote a failing claim's citation shows.
MAX_QUOTE = 200
#: The most a step's job summary may hold, in bytes of UTF-8 (the runner refuses more).
MAX_SUMMARY_BYTES = 1024 * 1024
_ESCAPED = str.maketrans(
    {c: "\\" + c for c in "\\`*_[]|~"}
    | {
        "&": "&amp;",
        "<": "&lt;",
        ">": "&gt;",
        "@": "@\u200b",
        "\r": " ",
        "\n": " ",
    }
)


def text(value: object, limit: int | None = None) -> str:
    """``value`` as Markdown shows it literally, on one line (cut to ``limit`` characters)."""
    shown = " ".join(str(value).split())
    if limit is not None and len(shown) > limit:
        shown = shown[: limit - 1] + "…"
    return shown.translate(_ESCAPED)


def _row(cells: Iterable[object]) -> str:
    return "| " + " | ".join(str(cell) for cell in cells) + " |"


def _case_row(case: CaseResult) -> str:
    counts = case.label_counts
    decision = case.decision.value if case.decision is not None else "not decided"
    return _row(
        [
            text(case.key),
            len(case.claims),
            counts[Label.SUPPORTED],
            sum(claim.decision is Decision.FAIL for claim in case.claims),
            counts[ClaimStatus.UNCHECKED],
            case.precision.fraction(),
            decision,
        ]
    )


def case_table(result: RunResult) -> list[str]:
    """One row per case: claims, fully supported, failing and unchecked claims, citation
    precision and the case's decision."""
    header = ["case", "claims", "supported", "failed", "unchecked", "precision", "decision"]
    rows = [_case_row(case) for case in result.cases]
    return [_row(header), "| --- | ---: | ---: | ---: | ---: | ---: | --- |", *rows]


def _listed(entries: Sequence[str], where: str = "the JSON and HTML reports") -> list[str]:
    shown = [f"- {entry}" for entry in entries[:MAX_ENTRIES]]
    if len(entries) > MAX_ENTRIES:
        shown.append(f"- … and {len(entries) - MAX_ENTRIES} more ({where} list them all)")
    return shown


def short(value: str, limit: int = MAX_QUOTE) -> str:
    """``value`` on one line, cut to ``limit`` characters at a word's end (with ``…``)."""
    shown = " ".join(value.split())
    if len(shown) <= limit:
        return shown
    cut = shown[: limit - 1]
    space = cut.rfind(" ")
    return (cut[:space] if space > limit // 2 else cut).rstrip() + "…"


def linked(where: Location, links: SourceLinks) -> str:
    """The item's node id linked to its case file's line (the link percent-encoded, so
    nothing in it ends the Markdown link early)."""
    return f"[{text(where.nodeid)}]({links.of(where)}) (line {where.line})"


def _citation(claim: ClaimResult, citation: CitationVerdict) -> str:
    """A failing claim's citation: its URL, its label and a short quote of the page."""
    quote = citation.evidence_quote
    said = f": “{text(short(quote))}”" if quote else ""
    return f"\n  - {text(citation.url)} ({text(claim.shown_label(citation))}){said}"


def _failed(claim: ClaimResult, links: SourceLinks) -> str:
    why = "; ".join(str(failure) for failure in claim.failures)
    cited = "".join(_citation(claim, citation) for citation in claim.citations)
    return (
        f"{linked(claim.where, links)}, {claim.label_shown}: "
        f"“{text(claim.text, MAX_CLAIM)}”: {text(why)}{cited}"
    )


def _unchecked(claim: ClaimResult, links: SourceLinks) -> str:
    """Each citation of ``claim`` that could not be checked and why, in words (or the check
    beyond its citations that could not run), then the claim's notes (a request missing
    from the recording, and the command that records it)."""
    cited = [
        f"{text(u.url)}: {text(u.reason)} ({text(u.meaning)})" for u in claim.unchecked if u.url
    ]
    said = cited or [text(u) for u in claim.unchecked[:1]]
    notes = [f"\n  - {text(problem)}" for problem in claim.problems]
    return f"{linked(claim.where, links)}: {'; '.join(said)}{''.join(notes)}"


def unchecked_entries(result: RunResult, links: SourceLinks) -> list[str]:
    """What could not be checked and why: claims, case files, items that did not run."""
    entries = [_unchecked(claim, links) for claim in result.unchecked_claims]
    entries += [f"{text(error.file)}: {text(error.reason)}" for error in result.file_errors]
    entries += [f"{text(item.nodeid)}: did not run (skipped)" for item in result.skipped]
    return entries


def cost_lines(usage: Usage) -> list[str]:
    """What the run spent (0 on a replay) and what its recordings saved."""
    kinds = usage.credits_by_kind()
    lines = [
        _row(["Crawlbase credits", "normal", "JavaScript", "storage", "judge calls", "tokens"]),
        "| ---: | ---: | ---: | ---: | ---: | ---: |",
        _row(
            [
                f"{usage.credits:g}",
                *(f"{kinds[k]:g}" for k in ("normal", "javascript", "storage")),
                usage.judge_calls,
                usage.judge_tokens,
            ]
        ),
    ]
    if usage.replayed_crawls or usage.replayed_judge_calls:
        lines += [
            "",
            (
                f"Replayed from the recordings: {counted(usage.replayed_crawls, 'crawl')} "
                f"({usage.replayed_credits:g} credits saved), "
                f"{counted(usage.replayed_judge_calls, 'judge call')} "
                f"({usage.replayed_judge_tokens} tokens saved)."
            ),
        ]
    return lines


def _section(title: str, lines: Sequence[str]) -> list[str]:
    return ["", f"### {title}", "", *lines] if lines else []


def _regressions(result: RunResult, links: SourceLinks) -> list[str]:
    """The claims that got worse against the base, and whether each fails the gate."""
    comparison = result.comparison
    if comparison is None:
        return []
    failing = {claim.nodeid for claim in result.claims if claim.decision is Decision.FAIL}
    return [
        f"{linked(change.where, links)}: {text(change.summary)}"
        + ("" if change.fails or change.where.nodeid in failing else " (does not fail the gate)")
        for change in comparison.regressions
    ] + [text(line) for line in relaxation_lines(comparison)]


def render(result: RunResult, info: RunInfo) -> str:
    """The Markdown of the run, within GitHub's limit of a step's summary."""
    release = result.release
    verdict = release.verdict.value if release.verdict is not None else "nothing decided"
    precision = result.precision
    lines = [f"## Citations: {verdict}", ""]
    lines += [f"**{text(release.line)}**"] if release.line else []
    lines += _listed([text(reason) for reason in release.reasons[1:]])
    lines += ["", *case_table(result), ""]
    lines.append(
        f"Citation precision {precision.fraction()} · reachable "
        f"{precision.reachable_fraction()} · fully supported claims {result.share}"
    )
    links = info.links
    failed = [claim for claim in result.claims if claim.decision is Decision.FAIL]
    lines += _section("Claims that fail", _listed([_failed(c, links) for c in failed]))
    lines += _section("Regressions against the base", _listed(_regressions(result, links)))
    lines += _section("Could not be checked", _listed(unchecked_entries(result, links)))
    plan = result.spending.plan
    planned = ["", text(against_plan_line(plan, result.usage))] if plan is not None else []
    lines += _section("Costs", cost_lines(result.usage) + planned)
    html = dict(info.files).get("html")
    if html is not None:
        lines += ["", f"The HTML report, every claim with its evidence: {html_place(html, links)}"]
    return capped("\n".join(lines) + "\n", MAX_SUMMARY_BYTES, whole_run(info))


def html_place(path: str, links: SourceLinks) -> str:
    """Where a reviewer finds the HTML report: the artifact it is uploaded in (and the
    run's page that lists it) when the run names one, else its path as given."""
    if not links.artifact:
        return text(path)
    name = f"{text(PurePath(path).name)} in the artifact {text(links.artifact)}"
    return f"{name} of [this run]({links.run})" if links.run else f"{name} of this run"


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
