"""A drift run's report: per-status counts, each drifted citation with its passage diff,
what the run cost against a full re-record, and the decision of the policy. ``lines()``
for a terminal, ``to_dict()`` for JSON (the HTML and CSV reports read the same fields)."""

from __future__ import annotations

import textwrap
from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from ..labels import counted
from ..network.usage import Usage
from ..sanitize import clean
from . import FLIPPED
from .statuses import CitationDrift, DriftPolicy, DriftStatus, Skipped

#: Diff lines shown per citation in the terminal, and characters per line.
SHOWN_DIFF_LINES = 6
SHOWN_CHARS = 160
#: A node id or URL is never shortened below this many characters to fit a line.
MIN_PART = 24


@dataclass(frozen=True)
class DriftPlan:
    """What a run is about to cost, known before anything is sent: the recordings say how
    many crawls and credits each page took, and how many judge calls a full re-record
    (``--citations-record=all``) would make."""

    cassettes: int
    citations: int
    skipped: int
    #: Distinct URLs fetched live (one fetch sequence each; a PDF needs no request).
    urls: int
    crawls: int
    credits: float
    full_rerecord_judge_calls: int
    #: Citations that cannot be checked: no cassette, or no recording of them in it.
    unchecked: int = 0

    def line(self) -> str:
        """The plan in one line, for the terminal before the run."""
        unchecked = (
            f" ({counted(self.unchecked, 'citation')} without a recording: unchecked)"
            if self.unchecked
            else ""
        )
        return (
            f"drift: {counted(self.citations, 'citation')} in "
            f"{counted(self.cassettes, 'cassette')}{unchecked}; "
            f"{counted(self.urls, 'URL')} to fetch live "
            f"(about {counted(self.crawls, 'crawl')}, {self.credits:g} credits, as recorded); "
            "only citations whose evidence changed are judged again (a full re-record: "
            f"{counted(self.full_rerecord_judge_calls, 'judge call')})"
        )


@dataclass(frozen=True)
class DriftCosts:
    """What the run spent, and what a full re-record of the same cassettes would have."""

    crawls: int
    credits: float
    credits_by_kind: dict[str, float]
    #: Judge calls made to judge citations whose evidence changed, and their tokens.
    judge_calls: int
    judge_tokens: int
    #: Judge calls the update mode made beyond those (joint checks, passages that moved).
    update_judge_calls: int
    #: What ``--citations-record=all`` would spend on the same cassettes: the same crawls,
    #: and every judge call the cassettes hold.
    full_rerecord_crawls: int
    full_rerecord_credits: float
    full_rerecord_judge_calls: int

    @classmethod
    def of(cls, live: Usage, judged: Usage, update: Usage, plan: DriftPlan) -> DriftCosts:
        """From the usage of the live fetches, the new verdicts and the update."""
        return cls(
            crawls=live.crawl_requests,
            credits=live.credits,
            credits_by_kind=live.credits_by_kind(),
            judge_calls=judged.judge_calls,
            judge_tokens=judged.judge_tokens,
            update_judge_calls=update.judge_calls,
            # A re-record fetches the same pages through the same rules: the same crawls.
            full_rerecord_crawls=live.crawl_requests,
            full_rerecord_credits=live.credits,
            full_rerecord_judge_calls=plan.full_rerecord_judge_calls,
        )

    def line(self) -> str:
        """Spent against a full re-record, in one line."""
        kinds = ", ".join(f"{kind} {value:g}" for kind, value in self.credits_by_kind.items())
        update = f" (+{self.update_judge_calls} to update)" if self.update_judge_calls else ""
        return (
            f"drift cost: {counted(self.crawls, 'crawl')}, {self.credits:g} credits ({kinds}); "
            f"{counted(self.judge_calls, 'judge call')}{update}, {self.judge_tokens} tokens (a "
            "full re-record: the same crawls and "
            f"{counted(self.full_rerecord_judge_calls, 'judge call')})"
        )


def _cut(text: str, width: int = SHOWN_CHARS) -> str:
    """``text`` cut at its end to ``width`` (page text: its start says what it is)."""
    return text if len(text) <= width else text[: width - 1] + "…"


def _middle(text: str, width: int) -> str:
    """``text`` cut in its middle to ``width``: a node id keeps its file and its claim, a
    URL its host and its last segment, a detail its start and its end."""
    if len(text) <= width:
        return text
    if width < 3:
        return text[:width]
    tail = (width - 1) // 2
    return text[: width - 1 - tail] + "…" + text[len(text) - tail :]


def _wrapped(indent: str, text: str, more: str | None = None) -> list[str]:
    """``text`` wrapped in lines of :data:`SHOWN_CHARS` after ``indent`` (``more`` on the
    lines after the first), nothing cut: a URL longer than a line stays whole."""
    return textwrap.wrap(
        text,
        SHOWN_CHARS,
        initial_indent=indent,
        subsequent_indent=more or indent,
        break_long_words=False,
        break_on_hyphens=False,
    )


def _fitted(indent: str, parts: Sequence[str], suffix: str, width: int = SHOWN_CHARS) -> str:
    """``indent`` + ``parts`` (joined by spaces) + ``suffix`` in ``width`` characters,
    shortening only the parts, each in its middle, the longest first (down to
    :data:`MIN_PART` characters): the status before them and the verdicts after them are
    never cut."""
    room = width - len(indent) - len(suffix) - (len(parts) - 1)
    cap = max(len(part) for part in parts)
    while cap > MIN_PART and sum(min(len(part), cap) for part in parts) > room:
        cap -= 1
    return indent + " ".join(_middle(part, cap) for part in parts) + suffix


@dataclass
class DriftReport:
    """Every citation checked, those left out, the plan, the costs and the policy."""

    citations: list[CitationDrift]
    skipped: list[Skipped]
    plan: DriftPlan
    costs: DriftCosts
    policy: DriftPolicy = field(default_factory=DriftPolicy)
    #: Cassettes the update mode wrote, and those it left as they were (``path: why``).
    written: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    #: Why the run checked no citation at all (``""`` when it checked one): such a run
    #: fails whatever the policy.
    nothing_checked: str = ""

    def counts(self) -> dict[str, int]:
        """Citations per status (every status, zero included), plus ``flipped``."""
        found = Counter(drift.status.value for drift in self.citations)
        counts = {status.value: found.get(status.value, 0) for status in DriftStatus}
        counts[FLIPPED] = sum(1 for drift in self.citations if drift.flipped)
        return counts

    def failures(self) -> list[tuple[CitationDrift, list[str]]]:
        """The citations that fail the policy, each with what it fails on."""
        found = [(drift, self.policy.reasons(drift)) for drift in self.citations]
        return [(drift, reasons) for drift, reasons in found if reasons]

    @property
    def complete(self) -> bool:
        """Every citation was checked (none ``unchecked``, no new verdict unchecked)."""
        return all(drift.checked for drift in self.citations)

    @property
    def failed(self) -> bool:
        """The run fails its policy, or checked nothing (the exit status follows this)."""
        return bool(self.nothing_checked) or bool(self.failures())

    def decision(self) -> str:
        """``pass``, or ``fail (gone 2, flipped 1)`` (``fail (nothing checked, …)``)."""
        failing = Counter(reason for _, reasons in self.failures() for reason in reasons)
        named = ["nothing checked"] if self.nothing_checked else []
        named += [f"{name} {count}" for name, count in failing.items()]
        return f"fail ({', '.join(named)})" if named else "pass"

    def _citation_lines(self, drift: CitationDrift) -> list[str]:
        flip = " FLIPPED" if drift.flipped else ""
        url = f"{drift.url} (retrieved)" if drift.retrieved else drift.url
        status = drift.status.value.upper()
        lines = [_fitted(f"  {status} ", [drift.nodeid, url], f": {drift.labels()}{flip}")]
        if drift.detail:  # lines of its own, wrapped: what changed is never cut off
            lines += _wrapped("      ", drift.detail)
        shown = list(drift.diff[:SHOWN_DIFF_LINES])
        more = len(drift.diff) - len(shown)
        lines += [f"      {_cut(line, SHOWN_CHARS - 6)}" for line in shown]
        if more > 0:
            lines.append(f"      … {more} more diff lines")
        return lines

    def lines(self) -> list[str]:
        """The terminal summary: counts, each drifted citation, skips, notes, costs, and
        the decision. Page text is cleaned of terminal controls."""
        counts = self.counts()
        lines = [
            f"drift: {counted(len(self.citations), 'citation')} in "
            f"{counted(self.plan.cassettes, 'cassette')}, {counted(self.plan.urls, 'URL')} "
            f"fetched live; fail_on {self.policy.describe()}",
            "  " + ", ".join(f"{name} {count}" for name, count in counts.items()),
        ]
        for drift in self.citations:
            if drift.status is not DriftStatus.UNCHANGED or drift.flipped:
                lines += self._citation_lines(drift)
        if self.skipped:
            lines.append(f"  skipped {counted(len(self.skipped), 'retrieved URL')}:")
            for skip in self.skipped:
                lines += _wrapped("    ", f"{skip.nodeid} {skip.url}: {skip.reason}", "      ")
        lines += [f"  updated {path}" for path in self.written]
        lines += [f"  {note}" for note in self.notes]
        if self.nothing_checked:
            lines.append(f"  nothing checked: {self.nothing_checked}")
        lines += [self.costs.line(), f"drift decision: {self.decision()}"]
        return [clean(line) for line in lines]

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready mapping: policy, counts, decision, plan, costs, every citation (its
        old and new verdict, diff), skips, written cassettes and notes."""
        data = {
            "policy": {
                "fail_on": sorted(self.policy.fail_on),
                "allow_unchecked": self.policy.allow_unchecked,
            },
            "counts": self.counts(),
            "decision": self.decision(),
            "failed": self.failed,
            "complete": self.complete,
            "nothing_checked": self.nothing_checked or None,
            "plan": asdict(self.plan),
            "costs": asdict(self.costs),
            "citations": [drift.to_dict() for drift in self.citations],
            "failures": [
                {"nodeid": drift.nodeid, "url": drift.url, "reasons": reasons}
                for drift, reasons in self.failures()
            ],
            "skipped": [skip.to_dict() for skip in self.skipped],
            "written": list(self.written),
            "notes": list(self.notes),
        }
        cleaned: dict[str, Any] = clean(data)
        return cleaned
