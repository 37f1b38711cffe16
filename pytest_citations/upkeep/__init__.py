"""Upkeep of recordings as the package changes, offline: :mod:`.integrity` checks, without a
model, that each cassette replays as the recording it claims to be; :mod:`.upgrade` adds
retrieval's choices to cassettes recorded before they were kept (so that they replay without
a model); :mod:`.check` re-runs retrieval against recorded choices and lists the citations
whose passages would now differ (what a re-record would change); :mod:`.prune` lists the
recordings no case file needs any more (:mod:`.stale` tells them, without a model) and takes
them out. Upgrade and check need the embedding models (the ``record`` extra); none sends a
request, and only prune removes interactions, those no replay uses. No pytest here: the
``pytest-citations cassettes`` command calls them, and the plugin's summary counts what is
stale."""

from __future__ import annotations

from .check import CheckedCassette, Recheck, check_cassettes
from .integrity import SoundCassette, check_integrity
from .owners import CassetteOwner, owners_of
from .prune import Pruned, StaleTally, prune_cassettes, stale_tally
from .upgrade import Upgrade, upgrade_cassettes

__all__ = [
    "CassetteOwner",
    "CheckedCassette",
    "Pruned",
    "Recheck",
    "SoundCassette",
    "StaleTally",
    "Upgrade",
    "check_cassettes",
    "check_integrity",
    "owners_of",
    "prune_cassettes",
    "stale_tally",
    "upgrade_cassettes",
]
