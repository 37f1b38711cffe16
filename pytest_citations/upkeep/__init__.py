"""Upkeep of recordings as the package changes, offline: :mod:`.integrity` checks, without a
model, that each cassette replays as the recording it claims to be; :mod:`.upgrade` adds
retrieval's choices to cassettes recorded before they were kept (so that they replay without
a model); :mod:`.check` re-runs retrieval against recorded choices and lists the citations
whose passages would now differ (what a re-record would change); :mod:`.prune` lists the
recordings no case file needs any more (:mod:`.stale` tells them, without a model) and takes
them out. Upgrade and check need the embedding models (the ``record`` extra); none sends a
request, and only prune removes interactions, those no replay uses. No pytest here: the
``pytest-citations cassettes`` command calls them. A run's summary counts what is stale from
what its replay played (:mod:`pytest_citations.recording.unplayed`), by the same rules
(:mod:`pytest_citations.recording.needs`), without this package."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..lazy import lazy_exports

if TYPE_CHECKING:
    from .check import CheckedCassette, Recheck, check_cassettes
    from .integrity import SoundCassette, check_integrity
    from .owners import CassetteOwner, owners_of
    from .prune import Pruned, prune_cassettes
    from .upgrade import Upgrade, upgrade_cassettes

#: Where each name is defined: imported on first use.
_EXPORTS = {
    "CheckedCassette": "check",
    "Recheck": "check",
    "check_cassettes": "check",
    "SoundCassette": "integrity",
    "check_integrity": "integrity",
    "CassetteOwner": "owners",
    "owners_of": "owners",
    "Pruned": "prune",
    "prune_cassettes": "prune",
    "Upgrade": "upgrade",
    "upgrade_cassettes": "upgrade",
}


__getattr__ = lazy_exports(__name__, _EXPORTS)


__all__ = [
    "CassetteOwner",
    "CheckedCassette",
    "Pruned",
    "Recheck",
    "SoundCassette",
    "Upgrade",
    "check_cassettes",
    "check_integrity",
    "owners_of",
    "prune_cassettes",
    "upgrade_cassettes",
]
