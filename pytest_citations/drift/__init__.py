"""Drift watch: which recorded verdicts does the live web no longer back?

Every citation of the case files, cited or listed under ``retrieved:`` (a ``misattributed``
verdict rests on those), is replayed offline from its cassette (the recorded page and
verdict, and the passages its judge was shown), its URL is fetched live once through the
same fetch rules, and the two pages are compared on passages (:mod:`.compare` states the
rule). Each citation gets a :class:`DriftStatus`: one without a cassette, or whose cassette
holds no recording of it, is ``unchecked``, never skipped; a run that checked nothing fails
whatever its policy, and a cassette that cannot be read is an error naming it. Only
citations whose evidence changed are judged again (one judge call each, through the same
guard), and a fetch rule that now decides (a 404, a homepage redirect) gives the new
verdict without one. Nothing is written unless asked: the update mode writes new
recordings for the citations checked again, and only for them (:mod:`.update`). No pytest
here; the plugin and the command call :func:`run_drift`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..lazy import lazy_exports

#: Besides the statuses, a policy may fail on ``flipped``: a citation whose verdict the live
#: page gives another label (supported → contradicted, supported → not_found, …).
FLIPPED = "flipped"
#: What a policy fails on unless told otherwise (:class:`.statuses.DriftPolicy`). Here, not
#: in :mod:`.statuses`, so that the plugin's option table reads its default without loading
#: the drift check.
DEFAULT_FAIL_ON = ("gone", FLIPPED)

if TYPE_CHECKING:
    from .compare import Grounds, classify, compare_pages, evidence_of
    from .report import DriftCosts, DriftPlan, DriftReport
    from .runner import check_drift, run_drift
    from .sources import DriftClaim, DriftSource
    from .statuses import (
        FAIL_ON_CHOICES,
        CitationDrift,
        DriftPolicy,
        DriftStatus,
        Skipped,
    )

#: Where each name is defined: imported on first use (a run without --citations-drift
#: never loads the check).
_EXPORTS = {
    "Grounds": "compare",
    "classify": "compare",
    "compare_pages": "compare",
    "evidence_of": "compare",
    "DriftCosts": "report",
    "DriftPlan": "report",
    "DriftReport": "report",
    "check_drift": "runner",
    "run_drift": "runner",
    "DriftClaim": "sources",
    "DriftSource": "sources",
    "FAIL_ON_CHOICES": "statuses",
    "CitationDrift": "statuses",
    "DriftPolicy": "statuses",
    "DriftStatus": "statuses",
    "Skipped": "statuses",
}


__getattr__ = lazy_exports(__name__, _EXPORTS)


__all__ = [
    "DEFAULT_FAIL_ON",
    "FAIL_ON_CHOICES",
    "FLIPPED",
    "CitationDrift",
    "DriftClaim",
    "DriftCosts",
    "DriftPlan",
    "DriftPolicy",
    "DriftReport",
    "DriftSource",
    "DriftStatus",
    "Grounds",
    "Skipped",
    "check_drift",
    "classify",
    "compare_pages",
    "evidence_of",
    "run_drift",
]
