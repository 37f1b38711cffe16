"""The drift statuses, the policy that decides which of them fail a run, and the typed
result of one citation."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from ..errors import ConfigurationError
from ..labels import LABEL_RANK
from ..verdicts import CitationVerdict
from . import DEFAULT_FAIL_ON, FLIPPED


class DriftStatus(StrEnum):
    """What became of one recorded citation on the live web."""

    #: The page says what it said (digits in passages the verdict does not use aside).
    UNCHANGED = "unchanged"
    #: The page changed, but not the passages the verdict rests on: the verdict stands.
    EDITED = "edited"
    #: A passage the verdict used, or its quote, is gone or different: judged again.
    EVIDENCE_CHANGED = "evidence_changed"
    #: The final URL changed (a homepage redirect included).
    MOVED = "moved"
    #: 404/410, a soft 404, a crawl that fails, a page behind a wall.
    GONE = "gone"
    #: Recorded without a browser, readable only with JavaScript now.
    NOW_NEEDS_JS = "now_needs_js"
    #: The URL leads to a PDF now.
    NOW_PDF = "now_pdf"
    #: The drift check itself could not run for this citation (no cassette, a cassette
    #: without its recording, the Crawling API or the judge failed for good): not a pass.
    UNCHECKED = "unchecked"

    def __str__(self) -> str:
        return self.value


FAIL_ON_CHOICES = (*(status.value for status in DriftStatus), FLIPPED)


@dataclass(frozen=True)
class DriftPolicy:
    """Which statuses fail a drift run (default ``gone,flipped``). A citation the check
    could not run for (``unchecked``) fails the run too unless ``allow_unchecked``: a check
    that could not run is not a pass."""

    fail_on: frozenset[str] = frozenset(DEFAULT_FAIL_ON)
    allow_unchecked: bool = False

    @classmethod
    def parse(
        cls, fail_on: str | Iterable[str] | None = None, *, allow_unchecked: bool = False
    ) -> DriftPolicy:
        """A policy from ``"gone,flipped"`` (or a list); None or empty gives the default.
        An unknown name is a :class:`~pytest_citations.errors.ConfigurationError` naming
        the choices."""
        if fail_on is None:
            names: list[str] = list(DEFAULT_FAIL_ON)
        else:
            raw = fail_on.split(",") if isinstance(fail_on, str) else list(fail_on)
            names = [name.strip().lower() for name in raw if name.strip()]
        unknown = [name for name in names if name not in FAIL_ON_CHOICES]
        if unknown:
            raise ConfigurationError(
                f"unknown drift status {', '.join(map(repr, unknown))} in fail_on; "
                f"choose from {', '.join(FAIL_ON_CHOICES)}"
            )
        return cls(frozenset(names), allow_unchecked)

    def reasons(self, drift: CitationDrift) -> list[str]:
        """The names in ``fail_on`` (and ``unchecked`` unless allowed) this citation meets:
        its status, the rule findings its evidence change took precedence over, a flip."""
        met = [drift.status.value, *(status.value for status in drift.also)]
        met += [FLIPPED] if drift.flipped else []
        found = list(dict.fromkeys(name for name in met if name in self.fail_on))
        if not drift.checked and not self.allow_unchecked and "unchecked" not in found:
            found.append("unchecked")
        return found

    def describe(self) -> str:
        """``gone,flipped`` in the order of :data:`FAIL_ON_CHOICES`."""
        return ",".join(name for name in FAIL_ON_CHOICES if name in self.fail_on) or "nothing"


@dataclass(frozen=True)
class CitationDrift:
    """One citation (a claim–URL pair of a case file) checked against the live web: a URL
    the claim cites, or one its case lists under ``retrieved:`` (004, C3)."""

    #: The claim's item (``cases/a.yaml::case::claim-1``), its text, the URL.
    nodeid: str
    claim: str
    url: str
    #: The cassette the recorded verdict came from, as the user knows it.
    cassette: str
    status: DriftStatus
    #: The recorded verdict, replayed offline.
    old: CitationVerdict
    #: The verdict the live page gives, when it was checked again (judged once more, or
    #: decided by a fetch rule); None when the recorded verdict stands.
    new: CitationVerdict | None = None
    #: The passages the verdict rests on (or its quote) are gone or different.
    evidence_changed: bool = False
    #: What changed, in a line (``final URL a → b``, ``now unreachable (http_404)``).
    detail: str = ""
    #: Passage-level diff of the page (``- old paragraph`` / ``+ new paragraph``), digits
    #: aside; the evidence paragraphs that are gone, verbatim.
    diff: tuple[str, ...] = ()
    missing_evidence: tuple[str, ...] = ()
    #: The URL is one the answer retrieved without citing it (``retrieved:``), on which a
    #: ``misattributed`` verdict rests.
    retrieved: bool = False
    #: Findings of the fetch rules (``moved``, ``now_needs_js``, ``now_pdf``) that the status
    #: ``evidence_changed`` took precedence over: kept, and a policy failing on them fails.
    also: tuple[DriftStatus, ...] = ()

    @property
    def flipped(self) -> bool:
        """The live verdict carries another label than the recorded one."""
        return self.new is not None and self.new.checked and self.new.label != self.old.label

    @property
    def worse(self) -> bool:
        """A flip towards a worse label (supported → partial → … → contradicted)."""
        if not self.flipped or self.new is None:
            return False
        return LABEL_RANK.get(self.new.label, 0) > LABEL_RANK.get(self.old.label, 0)

    @property
    def checked(self) -> bool:
        """False when the drift check could not run, live or in judging again."""
        return self.status is not DriftStatus.UNCHECKED and (self.new is None or self.new.checked)

    def labels(self) -> str:
        """Old and new label side by side: ``supported → partial`` (or ``supported``); a
        verdict that is no check shows its reason (``not_found (request_refused)``)."""
        old = self.old.label.value + ("" if self.old.checked else f" ({self.old.reason})")
        if self.new is None:
            return old
        new = self.new.label.value + (f" ({self.new.reason})" if self.new.reason else "")
        return f"{old} → {new}"

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready mapping."""
        return {
            "nodeid": self.nodeid,
            "claim": self.claim,
            "url": self.url,
            "retrieved": self.retrieved,
            "cassette": self.cassette,
            "status": self.status.value,
            "also": [status.value for status in self.also],
            "flipped": self.flipped,
            "worse": self.worse,
            "evidence_changed": self.evidence_changed,
            "old": self.old.to_dict(),
            "new": self.new.to_dict() if self.new is not None else None,
            "detail": self.detail,
            "diff": list(self.diff),
            "missing_evidence": list(self.missing_evidence),
        }


@dataclass(frozen=True)
class Skipped:
    """A URL the drift check leaves out by design, and why: one the case retrieved but whose
    claim the recorded verification settled without consulting it, so that no verdict rests
    on it and no recording of it was made. A missing recording is never a skip: it is an
    ``unchecked`` citation."""

    nodeid: str
    url: str
    cassette: str
    reason: str
    retrieved: bool = True

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready mapping."""
        return {
            "nodeid": self.nodeid,
            "url": self.url,
            "retrieved": self.retrieved,
            "cassette": self.cassette,
            "reason": self.reason,
        }
