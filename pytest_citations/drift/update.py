"""The update mode: new recordings for the citations a drift run checked again, and only
for them. A cassette without such a citation is never written; in one with such citations,
every other interaction keeps its bytes.

For each cassette holding re-checked citations:

1. each re-checked page's crawls are replaced, where they stood, by the live ones this run
   captured, and the judge calls made for them are added;
2. the claims that cite or retrieved those pages (and each retrieved page alone, as the
   drift check replays it) are verified over the result (mode ``new_episodes``): what they
   still lack (a joint check of 004 C2, a judge call for a claim whose passages
   the new page shifted) is sent live and kept;
3. the result is replayed offline, as CI will replay it: it must replay completely and give
   the new verdicts, or the cassette is left as it was, with a note saying why;
4. interactions the old replay used and the new one does not (the stale crawls and judge
   calls) are dropped, and so are new ones the replay does not use; then the file is
   written atomically (:func:`~pytest_citations.recording.write_cassette`) with retrieval's
   choices: the recorded ones of the pages it keeps, the new ones of the re-fetched pages
   (:func:`kept_choices`), so that its replay needs no model either.

Failures (401/402/403, 429, 5xx, timeouts) are never kept: a cassette that depended on one
is left as it was.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..fetchers.urls import request_url
from ..network.usage import Usage
from ..pipeline.backends import Backends
from ..pipeline.recall import ChoiceKey
from ..pipeline.settings import Settings
from ..recording import VcrConfig, write_cassette
from ..recording.choices import choices_document
from ..recording.files import Interaction
from ..recording.pages import crawl_target
from ..retrieval.selection import Selection
from .live import LivePage, Rechecked, verify_recorded
from .replay import RecordedSource, Replayer
from .statuses import CitationDrift

#: An interaction with its position in the old file (None: new).
Entry = tuple[int | None, Interaction]


@dataclass
class UpdateOutcome:
    """What the update did to one cassette: written, or left as it was and why."""

    cassette: str
    written: bool
    note: str = ""
    usage: Usage = field(default_factory=Usage)


def splice(
    interactions: Sequence[Interaction], replaced: Mapping[str, Sequence[Interaction]]
) -> list[Entry]:
    """``interactions`` with the crawls of each page in ``replaced`` (by the target a crawl
    names) swapped for the new ones, where the first old one stood."""
    entries: list[Entry] = []
    placed: set[str] = set()
    for position, interaction in enumerate(interactions):
        target = crawl_target(interaction[0])
        if target is not None and target in replaced:
            if target not in placed:
                placed.add(target)
                entries += [(None, new) for new in replaced[target]]
            continue
        entries.append((position, interaction))
    for target, news in replaced.items():
        if target not in placed:
            entries += [(None, new) for new in news]
    return entries


def prune(
    entries: Sequence[Entry], played: frozenset[int] | None, used_before: frozenset[int] | None
) -> list[Interaction]:
    """Keep what the new replay uses, and old interactions the old replay did not use
    either (not this run's to judge); with no record of what was used, keep everything."""
    if played is None:
        return [interaction for _, interaction in entries]
    return [
        interaction
        for position, (origin, interaction) in enumerate(entries)
        if position in played
        or (origin is not None and (used_before is None or origin not in used_before))
    ]


def _needed(recorded: RecordedSource) -> list[bool]:
    """Per check of the source: does a verdict rest on it? Every claim does; a retrieved URL
    alone only when the recorded verification consulted it (a drift check holds it)."""
    consulted = {(c.nodeid, c.url) for c in recorded.citations if c.retrieved}
    return [
        not check.retrieved or (check.nodeid, check.request.urls[0]) in consulted
        for check in recorded.source.checks
    ]


def kept_choices(
    recorded: RecordedSource,
    changed: Sequence[CitationDrift],
    pages: Mapping[str, LivePage],
    *made: Mapping[ChoiceKey, Selection],
) -> dict[ChoiceKey, Selection]:
    """Retrieval's choices for the new cassette: the recorded ones, then those ``made`` now
    (the later win), for the claims and URLs of its case file, of pages it still holds: a
    re-fetched page's old choices go with its old crawls."""
    fresh = {
        drift.url: page.digest for drift in changed if (page := pages[drift.url].result) is not None
    }
    pairs = {
        (check.request.claim, url)
        for check in recorded.source.checks
        for url in (*check.request.urls, *check.request.retrieved)
    }
    merged = dict(recorded.choices)
    for choices in made:
        merged.update(choices)
    return {
        key: selection
        for key, selection in merged.items()
        if (key.claim, key.url) in pairs and fresh.get(key.url, key.page) == key.page
    }


async def _validate(
    replayer: Replayer,
    recorded: RecordedSource,
    changed: Sequence[CitationDrift],
    entries: Sequence[Entry],
    path: Path,
    choices: Mapping[ChoiceKey, Selection],
) -> tuple[str, frozenset[int] | None]:
    """Replay the new cassette offline, from its choices as CI will: a problem (or ``""``)
    and what the replay used."""
    write_cassette(path, [interaction for _, interaction in entries], choices_document(choices))
    checks = recorded.source.checks
    requests = [check.request for check in checks]
    verdicts, played = await replayer.verify(path, requests, len(entries))
    needed = _needed(recorded)
    for position, (check, verdict) in enumerate(zip(checks, verdicts, strict=True)):
        if not verdict.complete and needed[position] and position not in recorded.incomplete:
            why = verdict.problems[0] if verdict.problems else "a citation could not be checked"
            return f"the new recording would not replay {check.nodeid} ({why})", None
    found = {
        (check.nodeid, citation.url): citation
        for check, verdict in zip(checks, verdicts, strict=True)
        for citation in verdict.citations
    }
    for drift in changed:
        got, new = found.get((drift.nodeid, drift.url)), drift.new
        if new is not None and (got is None or (got.label, got.reason) != (new.label, new.reason)):
            shown = f"{got.label}" if got is not None else "nothing"
            return f"the new recording replays {drift.nodeid} as {shown}, not {new.label}", None
    return "", played


async def update_cassette(
    recorded: RecordedSource,
    drifts: Sequence[CitationDrift],
    pages: Mapping[str, LivePage],
    rechecked: Rechecked,
    replayer: Replayer,
    scratch: Path,
    settings: Settings,
    config: VcrConfig,
    backends: Backends,
) -> UpdateOutcome | None:
    """Write the new recordings of one cassette's re-checked citations (None: it has none,
    and is left alone)."""
    changed = [drift for drift in drifts if drift.new is not None]
    if not changed:
        return None
    shown = recorded.cassette
    if any(not drift.checked for drift in changed):
        return UpdateOutcome(shown, False, "a check it depends on could not run")
    replaced = {request_url(d.url) or d.url: pages[d.url].interactions for d in changed}
    entries = splice(recorded.interactions, replaced)
    entries += [(None, interaction) for interaction in rechecked.interactions]
    urls = {drift.url for drift in changed}
    claims = [
        check.request
        for check, wanted in zip(recorded.source.checks, _needed(recorded), strict=True)
        if wanted and urls & {*check.request.urls, *check.request.retrieved}
    ]
    serial = abs(hash(shown))
    _, done = await verify_recorded(
        claims,
        [i for _, i in entries],
        settings,
        config,
        backends,
        scratch / f"u{serial}.yaml",
        kept_choices(recorded, changed, pages),
    )
    if done.failures:
        return UpdateOutcome(
            shown, False, f"a request failed ({'; '.join(done.failures)})", done.usage
        )
    entries += [(None, interaction) for interaction in done.interactions]
    choices = kept_choices(recorded, changed, pages, rechecked.choices, done.choices)
    problem, played = await _validate(
        replayer, recorded, changed, entries, scratch / f"v{serial}.yaml", choices
    )
    if problem:
        return UpdateOutcome(shown, False, problem, done.usage)
    kept = prune(entries, played, recorded.used)
    write_cassette(recorded.source.cassette, kept, choices_document(choices))
    return UpdateOutcome(shown, True, usage=done.usage)
