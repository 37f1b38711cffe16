"""Upkeep of recordings as the package changes, offline: :mod:`.integrity` checks, without a
model, that each cassette replays as the recording it claims to be; :mod:`.upgrade` adds
retrieval's choices to cassettes recorded before they were kept (so that they replay without
a model); :mod:`.check` re-runs retrieval against recorded choices and lists the citations
whose passages would now differ (what a re-record would change). The last two need the
embedding models (the ``record`` extra); none sends a request or touches a cassette's
interactions. No pytest here: the ``pytest-citations cassettes`` command calls them."""

from __future__ import annotations

from .check import CheckedCassette, Recheck, check_cassettes
from .integrity import SoundCassette, check_integrity
from .owners import CassetteOwner, owners_of
from .upgrade import Upgrade, upgrade_cassettes

__all__ = [
    "CassetteOwner",
    "CheckedCassette",
    "Recheck",
    "SoundCassette",
    "Upgrade",
    "check_cassettes",
    "check_integrity",
    "owners_of",
    "upgrade_cassettes",
]
