"""Upkeep of recordings as the package changes, offline: :mod:`.upgrade` adds retrieval's
choices to cassettes recorded before they were kept (so that they replay without a model),
:mod:`.check` re-runs retrieval against recorded choices and lists the citations whose
passages would now differ (what a re-record would change). Both need the embedding models
(the ``record`` extra); neither sends a request nor touches a cassette's interactions. No
pytest here: the ``pytest-citations cassettes`` command calls them."""

from __future__ import annotations

from .check import CheckedCassette, Recheck, check_cassettes
from .owners import CassetteOwner, owners_of
from .upgrade import Upgrade, upgrade_cassettes

__all__ = [
    "CassetteOwner",
    "CheckedCassette",
    "Recheck",
    "Upgrade",
    "check_cassettes",
    "owners_of",
    "upgrade_cassettes",
]
