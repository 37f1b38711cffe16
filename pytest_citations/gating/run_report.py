"""The run's results gathered for every output (the terminal summary, JSON, HTML, CSV and
JUnit): the records of each case, from this process or from xdist workers, and the figures
of the run derived from them once."""

from __future__ import annotations

import bisect
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from ..labels import Label, is_unchecked
from ..precision import Precision, Share
from ..usage import Spending, Usage
from ..verdicts import CitationVerdict
from .criteria import Decision
from .records import CaseInfo, CaseOutcome, ClaimRecord

LABEL_ORDER = tuple(label.value for label in Label)
#: Citation labels worth a line in the summary even when nothing fails.
UNVERIFIED = frozenset({Label.NOT_FOUND.value, Label.UNREACHABLE.value})


@dataclass
class CaseRecord:
    """A case, the records of its claims, and its release decision."""

    info: CaseInfo
    claims: list[ClaimRecord] = field(default_factory=list)
    outcome: CaseOutcome | None = None

    @property
    def file(self) -> str:
        """The case file."""
        return self.info.file

    @property
    def case_id(self) -> str:
        """The case's id."""
        return self.info.case

    @property
    def question(self) -> str | None:
        """The question the answer replies to."""
        return self.info.question

    @property
    def min_precision(self) -> float | None:
        """The case's own minimum citation precision, if it sets one."""
        return self.info.min_precision

    @property
    def key(self) -> str:
        """``file::case`` as in node ids."""
        return self.info.key

    @property
    def precision(self) -> Precision:
        """Citation precision over this case's claim–URL pairs: as assessment decided it, or
        over the claims that ran when the case was not decided (a selection)."""
        if self.outcome is not None:
            return self.outcome.precision
        return Precision.of(citation.label for claim in self.claims for citation in claim.citations)

    @property
    def share(self) -> Share:
        """This case's share of fully supported claims."""
        return Share.of((Label(claim.label), claim.general) for claim in self.claims)

    def label_counts(self) -> dict[str, int]:
        """Claims per claim label."""
        counts = dict.fromkeys(LABEL_ORDER, 0)
        for claim in self.claims:
            counts[claim.label] = counts.get(claim.label, 0) + 1
        return counts


class RunReport:
    """Accumulates claim records and case decisions, usage, cassette notes and case files
    that could not be verified; derives the suite's figures from them."""

    def __init__(self) -> None:
        self._cases: dict[str, CaseRecord] = {}
        self.usage = Usage()
        #: Case files that could not be verified at all: file → why (first line).
        self.file_errors: dict[str, str] = {}
        #: Cassettes this run left as they were, and why.
        self.cassette_notes: list[str] = []
        #: Node ids of case items that did not run (a skip mark, ``pytest.skip``): a check
        #: that did not run is not a pass.
        self.skipped_items: list[str] = []
        #: Node ids of case items the user's own selection (``-m``, ``-k``, ``--deselect``)
        #: left out: theirs to leave out, and said in the summary.
        self.deselected: set[str] = set()
        #: The drift check's report as JSON-ready data (``DriftReport.to_dict()``), or
        #: ``{"error": why}`` when it could not run; None without ``--citations-drift``.
        self.drift: dict[str, Any] | None = None
        #: The run's budget, what a recording needs, and the plan made before it spent.
        self.spending = Spending()

    def add_claim(self, record: ClaimRecord) -> None:
        """Add one claim record; a repeat of a node id replaces it."""
        case = self._case(record.info)
        case.claims = [claim for claim in case.claims if claim.nodeid != record.nodeid]
        case.claims.append(record)
        case.claims.sort(key=lambda claim: claim.index)

    def add_case(self, outcome: CaseOutcome) -> None:
        """Add a case's release decision."""
        self._case(outcome.info).outcome = outcome

    def replace_case(
        self, info: CaseInfo, claims: list[ClaimRecord], outcome: CaseOutcome | None
    ) -> None:
        """A case's claim records and decision, all of them at once (decided again from a
        shard's report): what the case held before is gone."""
        case = self._case(info)
        case.claims = sorted(claims, key=lambda claim: claim.index)
        case.outcome = outcome

    def add_file_error(self, file: str, why: str) -> None:
        """A case file whose items could not be verified (a refused token, a damaged
        cassette): the run's decision cannot be pass."""
        self.file_errors.setdefault(file, why)

    def add_skipped(self, nodeid: str) -> None:
        """A case item that did not run (kept sorted: the same order from xdist workers,
        and from the shards a merge reads)."""
        if nodeid not in self.skipped_items:
            bisect.insort(self.skipped_items, nodeid)

    def left_out(self) -> tuple[int, int]:
        """(cases, claims) the selection left out entirely: deselected claim items, and the
        cases none of whose claims ran."""
        ran = {case.key for case in self.cases if case.claims}
        claims = {nodeid for nodeid in self.deselected if not nodeid.endswith("::precision")}
        cases = {nodeid.rsplit("::", 1)[0] for nodeid in self.deselected} - ran
        return len(cases), len(claims)

    def add_cassette_notes(self, notes: Iterable[str]) -> None:
        """Add the cassette notes of one process (this one or an xdist worker)."""
        self.cassette_notes += [note for note in notes if note not in self.cassette_notes]

    def absorb(self, other: RunReport) -> None:
        """Add everything of another run's report (a shard's, whose case files this one
        does not hold): its claims and case decisions, the files it could not verify, the
        items that did not run or were deselected, its cassette notes and its spending."""
        for case in other.cases:
            for claim in case.claims:
                self.add_claim(claim)
            if case.outcome is not None:
                self.add_case(case.outcome)
        for file, why in other.file_errors.items():
            self.add_file_error(file, why)
        for nodeid in other.skipped_items:
            self.add_skipped(nodeid)
        self.deselected |= other.deselected
        self.add_cassette_notes(other.cassette_notes)
        self.usage.add(other.usage)
        self.spending = self.spending.joined(other.spending)

    def _case(self, info: CaseInfo) -> CaseRecord:
        if info.key not in self._cases:
            self._cases[info.key] = CaseRecord(info)
        return self._cases[info.key]

    def __bool__(self) -> bool:
        return (
            bool(self._cases)
            or bool(self.file_errors)
            or bool(self.skipped_items)
            or self.drift is not None
        )

    @property
    def cases(self) -> list[CaseRecord]:
        """Cases sorted by file, then by their order in the file (the same under xdist)."""
        return sorted(self._cases.values(), key=lambda case: (case.file, _first_line(case)))

    @property
    def claims(self) -> list[ClaimRecord]:
        """Every claim record, in case order."""
        return [claim for case in self.cases for claim in case.claims]

    @property
    def precision(self) -> Precision:
        """The suite's citation precision."""
        return Precision.of(c.label for claim in self.claims for c in claim.citations)

    @property
    def share(self) -> Share:
        """The suite's share of fully supported claims (004, C7)."""
        return Share.of((Label(claim.label), claim.general) for claim in self.claims)

    def unchecked(self) -> tuple[int, int]:
        """(citations, claims) left unchecked where the run did not allow it: what could
        still change the suite's precision and supported share."""
        open_claims = [claim for claim in self.claims if claim.unchecked]
        citations = sum(
            1 for claim in open_claims for c in claim.citations if is_unchecked(c.reason)
        )
        claims = sum(1 for c in open_claims if not c.failures and c.label != Label.SUPPORTED.value)
        return citations, claims

    def chosen_by(self) -> list[str]:
        """The embedders that chose the passages the judge was shown in this run (on a
        replay, those of the recordings), sorted."""
        return sorted({e.chosen_by for claim in self.claims for e in claim.evidence if e.chosen_by})

    def label_counts(self) -> dict[str, int]:
        """Claims per claim label, over the run."""
        counts = dict.fromkeys(LABEL_ORDER, 0)
        for case in self.cases:
            for label, count in case.label_counts().items():
                counts[label] = counts.get(label, 0) + count
        return counts

    def incomplete_claims(self) -> list[str]:
        """Node ids of the claims that could not be checked (and did not fail anyway)."""
        return [claim.nodeid for claim in self.claims if claim.decision is Decision.INCOMPLETE]

    def unrecorded_claims(self, *, over_budget: bool) -> list[ClaimRecord]:
        """The claims a request of which is not in the recording: those the run's budget
        kept from being sent (``over_budget``), or the others (new since the recording)."""
        return [c for c in self.claims if c.unrecorded and c.over_budget is over_budget]

    def disagreements(self) -> list[tuple[str, CitationVerdict]]:
        """(claim node id, citation) for every checked citation whose judge votes did not
        all give one label (``--citations-judge-votes``)."""
        return [
            (claim.nodeid, citation)
            for claim in self.claims
            for citation in claim.citations
            if citation.checked and not citation.agreed
        ]

    def unverified(self) -> list[tuple[str, CitationVerdict]]:
        """(claim node id, citation) for every not_found or unreachable citation."""
        return [
            (claim.nodeid, citation)
            for claim in self.claims
            for citation in claim.citations
            if citation.label.value in UNVERIFIED
        ]


def _first_line(case: CaseRecord) -> int:
    return min((claim.line for claim in case.claims), default=0)
