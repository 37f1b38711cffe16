"""A drift run from start to end: replay the recordings offline, fetch each distinct URL
live once, compare, judge again only where the evidence changed, and (update mode) write
the new recordings of the citations checked again. No pytest: the plugin and the command
both call :func:`run_drift` (or :func:`check_drift` from a running event loop)."""

from __future__ import annotations

import asyncio
import os
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from ..labels import Label, Reason, counted
from ..network.usage import Usage
from ..pipeline.backends import Backends
from ..pipeline.settings import Settings
from ..recording import VcrConfig, build_vcr
from ..recording.pages import judge_bodies
from ..recording.signing import TrustedKeys
from ..verdicts import CitationVerdict
from .compare import classify
from .live import LivePage, Rechecked, fetch_live, recheck
from .replay import RecordedCitation, RecordedSource, Replayer, replay_sources
from .report import DriftCosts, DriftPlan, DriftReport
from .sources import DriftSource
from .statuses import CitationDrift, DriftPolicy, DriftStatus
from .update import UpdateOutcome, update_cassette


def _plan(recorded: Sequence[RecordedSource]) -> tuple[DriftPlan, list[str]]:
    """The plan, and the distinct URLs to fetch live, in order."""
    costs: dict[str, tuple[int, float]] = {}
    for source in recorded:
        for citation in source.citations:
            costs.setdefault(citation.url, source.page_costs.get(citation.url, (0, 0.0)))
    bodies = {body for source in recorded for body in judge_bodies(source.interactions)}
    plan = DriftPlan(
        cassettes=sum(1 for source in recorded if source.found),
        citations=sum(len(source.citations) for source in recorded),
        skipped=sum(len(source.skipped) for source in recorded),
        unchecked=sum(len(source.unchecked) for source in recorded),
        urls=len(costs),
        crawls=sum(crawls for crawls, _ in costs.values()),
        credits=sum(credits for _, credits in costs.values()),
        full_rerecord_judge_calls=len(bodies),
    )
    return plan, list(costs)


def _compared(
    citation: RecordedCitation, page: LivePage, cassette: str
) -> tuple[CitationDrift, bool]:
    """One citation's drift before any new verdict, and whether it needs one."""
    base = (citation.nodeid, citation.claim, citation.url, cassette)
    if page.result is None:
        unchecked = CitationDrift(*base, DriftStatus.UNCHECKED, citation.verdict)
        return replace(unchecked, detail=page.problem, retrieved=citation.retrieved), False
    comparison = classify(
        citation.page, page.result, citation.verdict, citation.shown, citation.claim
    )
    drift = CitationDrift(
        *base,
        comparison.status,
        citation.verdict,
        evidence_changed=comparison.evidence_changed,
        detail=comparison.detail,
        diff=comparison.diff,
        missing_evidence=comparison.missing_evidence,
        retrieved=citation.retrieved,
        also=comparison.also,
    )
    return drift, comparison.recheck


def _with_new(drift: CitationDrift, again: bool, rechecked: Rechecked) -> CitationDrift:
    """The drift with its new verdict, when it was checked again."""
    if not again:
        return drift
    new = rechecked.verdicts.get((drift.claim, drift.url))
    if new is None:  # the check did not happen: say so, never pass it
        problem = "; ".join(rechecked.failures) or "it was not checked again"
        new = CitationVerdict(drift.url, Label.NOT_FOUND, reason=Reason.REQUEST_REFUSED)
        return replace(drift, new=new, detail=f"{drift.detail}; {problem}".lstrip("; "))
    return replace(drift, new=new)


async def check_drift(
    sources: Sequence[DriftSource],
    settings: Settings,
    *,
    update: bool = False,
    policy: DriftPolicy | None = None,
    vcr_config: VcrConfig | None = None,
    backends: Backends | None = None,
    root: Path | None = None,
    on_plan: Callable[[DriftPlan], None] | None = None,
    cassette_dir: Path | None = None,
    hint: str = "",
    trust: TrustedKeys | None = None,
) -> DriftReport:
    """Check every recorded citation of ``sources`` against the live web (see
    :func:`run_drift`). A run's budget does not apply: the check's plan says what it will
    spend before it sends anything."""
    settings = settings.without_budgets()
    backends = backends or Backends()
    config = vcr_config or build_vcr(settings.redactor())
    commands = {
        source.cassette: f"pytest --citations {source.name} --citations-record=new_episodes"
        for source in sources
    }
    with tempfile.TemporaryDirectory(prefix="citations-drift-") as folder:
        scratch = Path(folder)
        if settings.embedding_cache_dir is None:
            # One cache for the run: judging again and updating reuse the replay's vectors.
            settings = settings.replace(embedding_cache_dir=scratch / "embeddings")
        async with Replayer(settings, config, backends, commands, root, trust=trust) as replayer:
            recorded = await replay_sources(replayer, sources)
            plan, urls = _plan(recorded)
            if on_plan is not None:
                on_plan(plan)
            pages = await fetch_live(urls, settings, config, backends, scratch)
            compared = [
                [_compared(c, pages[c.url], source.cassette) for c in source.citations]
                for source in recorded
            ]
            targets = [(d.claim, d.url) for found in compared for d, again in found if again]
            rechecked = await recheck(targets, pages, settings, config, backends, scratch)
            drifts = [
                [*(_with_new(d, again, rechecked) for d, again in found), *source.unchecked]
                for source, found in zip(recorded, compared, strict=True)
            ]
            outcomes: list[UpdateOutcome] = []
            if update:
                written = _Written(pages, rechecked, replayer, scratch, settings, config, backends)
                outcomes = await written.update(recorded, drifts)
    every = [drift for found in drifts for drift in found]
    report = _report(recorded, every, pages, rechecked, outcomes, plan, policy or DriftPolicy())
    return replace(report, nothing_checked=nothing_checked(recorded, every, cassette_dir, hint))


@dataclass(frozen=True)
class _Written:
    """What ``--update`` writes a cassette again with: the live pages, the verdicts judged
    again, and the replay's own recordings and settings."""

    pages: Mapping[str, LivePage]
    rechecked: Rechecked
    replayer: Replayer
    scratch: Path
    settings: Settings
    config: VcrConfig
    backends: Backends

    async def update(
        self, recorded: Sequence[RecordedSource], drifts: Sequence[Sequence[CitationDrift]]
    ) -> list[UpdateOutcome]:
        """Each source's cassette written again where its drift says so, in turn."""
        outcomes = []
        for source, found in zip(recorded, drifts, strict=True):
            outcome = await update_cassette(
                source,
                found,
                self.pages,
                self.rechecked,
                self.replayer,
                self.scratch,
                self.settings,
                self.config,
                self.backends,
            )
            if outcome is not None:
                outcomes.append(outcome)
        return outcomes


def _report(
    recorded: Sequence[RecordedSource],
    drifts: Sequence[CitationDrift],
    pages: dict[str, LivePage],
    rechecked: Rechecked,
    outcomes: Sequence[UpdateOutcome],
    plan: DriftPlan,
    policy: DriftPolicy,
) -> DriftReport:
    live = Usage()
    for page in pages.values():
        live.add(page.usage)
    update = Usage()
    for outcome in outcomes:
        update.add(outcome.usage)
    return DriftReport(
        citations=list(drifts),
        skipped=[skip for source in recorded for skip in source.skipped],
        plan=plan,
        costs=DriftCosts.of(live, rechecked.usage, update, plan),
        policy=policy,
        written=[outcome.cassette for outcome in outcomes if outcome.written],
        notes=[f"{o.cassette} left unchanged: {o.note}" for o in outcomes if not o.written],
    )


def nothing_checked(
    recorded: Sequence[RecordedSource],
    citations: Sequence[CitationDrift],
    cassette_dir: Path | None = None,
    hint: str = "",
) -> str:
    """Why the run checked no citation at all (``""`` when it checked one): a run that
    checked nothing never passes, whatever its policy. ``cassette_dir`` is where the
    cassettes were looked for, ``hint`` what to check when none was there."""
    if any(drift.checked for drift in citations):
        return ""
    if not recorded:
        return "no case file to check"
    if not any(source.found for source in recorded):
        folders = [source.source.cassette.resolve().parent for source in recorded]
        folder = cassette_dir.resolve() if cassette_dir else Path(os.path.commonpath(folders))
        files = counted(len(recorded), "case file")
        why = f"none of the {files} has a cassette under {folder}"
        if len(recorded) == 1:
            why = f"the case file has no cassette at {recorded[0].source.cassette.resolve()}"
        return f"{why}: {hint}" if hint else why
    if not citations:
        return "the case files hold no citation to check"
    return f"none of the {counted(len(citations), 'citation')} could be checked"


def run_drift(
    sources: Sequence[DriftSource],
    settings: Settings,
    *,
    update: bool = False,
    policy: DriftPolicy | None = None,
    vcr_config: VcrConfig | None = None,
    backends: Backends | None = None,
    root: Path | None = None,
    on_plan: Callable[[DriftPlan], None] | None = None,
    cassette_dir: Path | None = None,
    hint: str = "",
    trust: TrustedKeys | None = None,
) -> DriftReport:
    """Which recorded verdicts does the live web no longer back? For every citation of
    ``sources`` whose cassette holds it: the recorded page and verdict (replayed offline),
    the live page (one fetch sequence per distinct URL, the same fetch rules), a drift
    status, and a new verdict where the evidence changed (one judge call each, the same
    guard) or a fetch rule now decides. ``update`` writes new recordings for the citations
    checked again, and only for them; ``policy`` decides which statuses fail. Settings must
    name the judge, model and embedder the cassettes were recorded with (as a replay does);
    the live side needs ``CRAWLBASE_TOKEN``, and the judge's key when something is judged.
    ``vcr_config`` is the plugin's VCR configuration (scrubbing, hooks); ``root`` makes
    shown paths relative; ``on_plan`` hears the plan before anything is sent.

    A citation without a cassette, or whose cassette holds no recording of it, is
    ``unchecked``; a run that checked nothing fails whatever the policy, saying why
    (``cassette_dir``, where the cassettes were looked for, and ``hint``, what to check,
    name it); a cassette that cannot be read, or that ``trust`` (the trusted keys) refuses,
    raises :class:`~pytest_citations.recording.UnreadableCassette` before anything is sent."""
    return asyncio.run(
        check_drift(
            sources,
            settings,
            update=update,
            policy=policy,
            vcr_config=vcr_config,
            backends=backends,
            root=root,
            on_plan=on_plan,
            cassette_dir=cassette_dir,
            hint=hint,
            trust=trust,
        )
    )
