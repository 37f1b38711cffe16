"""What a replay of a case file asks its cassette for, told by name, and which cassette of
the folder no case file records into: the rules ``pytest-citations cassettes prune`` lists
stale recordings by (:mod:`pytest_citations.upkeep.stale`), and by which a run's summary
counts what its replay left unplayed (:mod:`.unplayed`). One definition for both, so that
the summary's figure is the listing's.

- a **retrieval choice** is needed while its claim cites (or its case retrieved) its URL;
- a **fetch** is needed while some claim cites or retrieved its URL, in the form the
  fetcher requests it; a **stored page read** while a needed fetch stored that page;
- a **judge call** names its claim in its user message: one for a claim the file no longer
  holds is never sent. Which calls of a held claim that dropped a URL are still sent takes
  the recorded pages (:mod:`pytest_citations.upkeep.stale`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import parse_qsl, urlsplit

from ..fetchers.crawlbase import rid_from_storage_url
from ..fetchers.urls import request_url
from ..judges.prompt import CLAIM_HEADER, PASSAGES_HEADER, neutralize_fences
from ..paths import shown
from ..pipeline.claimwork import ClaimRequest
from ..pipeline.recall import ChoiceKey
from .files import Interaction
from .pages import crawl_target

_OPENING, _PASSAGES = f"{CLAIM_HEADER}\n", f"\n\n{PASSAGES_HEADER}\n"
#: A file named after a test (``test_x``, ``TestX.test_x``, ``test_x[param]``).
_TEST_NAME = re.compile(r"^(?:[A-Za-z_]\w*\.)*test", re.IGNORECASE)


def requested(url: str) -> str:
    """A URL in the form the fetcher requests it."""
    return request_url(url) or url.strip()


@dataclass(frozen=True)
class CaseNeeds:
    """What a replay of a case file asks its cassette for."""

    #: (claim, URL): each citation, and each URL its case retrieved, as the verifier keys it.
    pairs: frozenset[tuple[str, str]]
    #: The claims as their judge's user message holds them (fences made inert).
    claims: frozenset[str]
    #: The URLs as the fetcher requests them.
    targets: frozenset[str]
    #: Each claim and the URLs it cites, in order (a joint call numbers them so).
    cited: tuple[tuple[str, tuple[str, ...]], ...] = ()

    @classmethod
    def of(cls, requests: Iterable[ClaimRequest]) -> CaseNeeds:
        """The needs of a case file's claims, as the verifier is asked them."""
        listed = list(requests)
        pairs = {(r.claim, url) for r in listed for url in (*r.urls, *r.retrieved)}
        claims = {neutralize_fences(request.claim) for request in listed}
        urls = dict.fromkeys(url for r in listed for url in (*r.urls, *r.retrieved))
        cited = tuple((request.claim, request.urls) for request in listed)
        return cls(frozenset(pairs), frozenset(claims), frozenset(map(requested, urls)), cited)

    def needs_choice(self, key: ChoiceKey) -> bool:
        """Whether a replay can look this choice up."""
        return (key.claim, key.url) in self.pairs

    def drops(self, target: str) -> bool:
        """Whether no claim cites or retrieved a crawl's target any more."""
        return target not in self.targets and requested(target) not in self.targets


def judge_message(strings: Iterable[str]) -> tuple[str, str] | None:
    """A judge call's user message and the claim it names (fences made inert), from the
    strings of its body; None when none names a claim."""
    for text in strings:
        if text.startswith(_OPENING) and _PASSAGES in text:
            return text, text[len(_OPENING) : text.index(_PASSAGES)]
    return None


def stored_read(interaction: Interaction) -> str | None:
    """The rid a Storage API read asked for (None: it is not one)."""
    request = interaction[0]
    if request.method != "GET" or crawl_target(request) is not None:
        return None
    query = dict(parse_qsl(urlsplit(request.uri).query, keep_blank_values=True))
    return query.get("rid") or None


def stored_pages(
    interactions: Sequence[Interaction], needs: CaseNeeds
) -> dict[str, tuple[str, bool]]:
    """Each rid the cassette's fetches stored: the URL of the last fetch that stored it, and
    whether a needed fetch stored it."""
    stored: dict[str, tuple[str, bool]] = {}
    for request, response in interactions:
        target = crawl_target(request)
        if target is None:
            continue
        for value in response.get("headers", {}).get("storage_url", []) or []:
            rid = rid_from_storage_url(str(value))
            if rid:
                kept = stored.get(rid, (target, False))[1] or not needs.drops(target)
                stored[rid] = (target, kept)
    return stored


def tests_module(cassette: Path, cassette_dir: Path, root: Path) -> str | None:
    """The test module whose cassette a file of the folder without a case file may be
    (None: it cannot be a test's, and is stale whole). The fixture's layout mirrors the
    test module's path (``cassettes/tests/test_app/…`` for ``tests/test_app.py``) and names
    the file after the test."""
    relative = cassette.resolve().relative_to(cassette_dir.resolve())
    # A file at the folder's top mirrors no module (and "." has no name to suffix).
    if relative.parent != Path("."):
        module = root / relative.parent.with_suffix(".py")
        if module.is_file():
            return shown(module, root)
    return "a test module" if _TEST_NAME.match(relative.name) else None
