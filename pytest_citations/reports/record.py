"""The run's results as typed records: one :class:`ClaimRecord` per claim, one
:class:`CaseRecord` per case, and the :class:`RunReport` that gathers them (from this process
or from xdist workers) for every output: the terminal summary, JSON, HTML, CSV and JUnit.

Records travel between processes as JSON (``to_dict``/``from_dict``); nothing here does I/O.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..aggregate import Precision, Share
from ..labels import Label, is_unchecked
from ..verdicts import CitationVerdict, Usage

LABEL_ORDER = tuple(label.value for label in Label)
#: Citation labels worth a line in the summary even when nothing fails.
UNVERIFIED = frozenset({Label.NOT_FOUND.value, Label.UNREACHABLE.value})


@dataclass(frozen=True)
class BaselineChange:
    """How a claim's label moved against the stored baseline (004, C4)."""

    kind: str  # "regression", "improvement", "unchanged" or "new"
    old_label: str | None


@dataclass(frozen=True)
class ClaimRecord:
    """Everything the outputs need about one claim: where it is, its verdict, and how it
    fared against the acceptance criteria. Page-derived text is already free of control
    sequences (see :mod:`pytest_citations.sanitize`)."""

    nodeid: str
    file: str
    case: str
    index: int
    line: int
    claim: str
    label: str
    citations: tuple[CitationVerdict, ...] = ()
    question: str | None = None
    min_precision: float | None = None
    markers: tuple[str, ...] = ()
    problems: tuple[str, ...] = ()
    failures: tuple[str, ...] = ()
    #: ``pass``, ``fail`` or ``incomplete`` (a citation could not be checked).
    decision: str = "pass"
    unchecked: tuple[str, ...] = ()
    topic: str | None = None
    general: bool = False
    expect: str | None = None
    derived: bool = False
    joint_support: tuple[str, ...] = ()
    misattributed_to: tuple[str, ...] = ()
    #: (url, passages the judge saw) per judged citation, for quotes shown in context.
    evidence: tuple[tuple[str, tuple[str, ...]], ...] = ()
    baseline: BaselineChange | None = None

    def passages(self, url: str) -> tuple[str, ...]:
        """The passages the judge saw for one cited URL."""
        return next((passages for seen, passages in self.evidence if seen == url), ())

    def to_dict(self) -> dict[str, Any]:
        """The JSON form (the JSON report's claim objects)."""
        data: dict[str, Any] = {
            "nodeid": self.nodeid,
            "file": self.file,
            "case": self.case,
            "question": self.question,
            "min_precision": self.min_precision,
            "index": self.index,
            "line": self.line,
            "claim": self.claim,
            "label": self.label,
            "markers": list(self.markers),
            "citations": [citation.to_dict() for citation in self.citations],
            "problems": list(self.problems),
            "failures": list(self.failures),
            "decision": self.decision,
            "unchecked": list(self.unchecked),
            "topic": self.topic,
            "general": self.general,
            "expect": self.expect,
            "derived": self.derived,
            "joint_support": list(self.joint_support),
            "misattributed_to": list(self.misattributed_to),
            "evidence": [{"url": url, "passages": list(p)} for url, p in self.evidence],
        }
        if self.baseline is not None:
            data["baseline"] = {"change": self.baseline.kind, "old_label": self.baseline.old_label}
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ClaimRecord:
        """Inverse of :meth:`to_dict`."""
        baseline = data.get("baseline")
        return cls(
            nodeid=str(data["nodeid"]),
            file=str(data["file"]),
            case=str(data["case"]),
            index=int(data["index"]),
            line=int(data.get("line") or 0),
            claim=str(data["claim"]),
            label=str(data["label"]),
            citations=tuple(CitationVerdict.from_dict(c) for c in data.get("citations", [])),
            question=data.get("question"),
            min_precision=data.get("min_precision"),
            markers=tuple(data.get("markers", ())),
            problems=tuple(data.get("problems", ())),
            failures=tuple(data.get("failures", ())),
            decision=str(data.get("decision") or "pass"),
            unchecked=tuple(data.get("unchecked", ())),
            topic=data.get("topic"),
            general=bool(data.get("general")),
            expect=data.get("expect"),
            derived=bool(data.get("derived")),
            joint_support=tuple(data.get("joint_support", ())),
            misattributed_to=tuple(data.get("misattributed_to", ())),
            evidence=tuple(
                (str(item["url"]), tuple(item["passages"])) for item in data.get("evidence", [])
            ),
            baseline=BaselineChange(baseline["change"], baseline.get("old_label"))
            if baseline
            else None,
        )


@dataclass(frozen=True)
class CaseOutcome:
    """A case's release decision, as its precision item decided it."""

    file: str
    case: str
    decision: str
    failures: tuple[str, ...] = ()
    incomplete: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """The JSON form (for xdist)."""
        return {
            "file": self.file,
            "case": self.case,
            "decision": self.decision,
            "failures": list(self.failures),
            "incomplete": list(self.incomplete),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> CaseOutcome:
        """Inverse of :meth:`to_dict`."""
        return cls(
            str(data["file"]),
            str(data["case"]),
            str(data["decision"]),
            tuple(data.get("failures", ())),
            tuple(data.get("incomplete", ())),
        )


@dataclass
class CaseRecord:
    """A case, the records of its claims, and its release decision."""

    file: str
    case_id: str
    question: str | None = None
    min_precision: float | None = None
    claims: list[ClaimRecord] = field(default_factory=list)
    outcome: CaseOutcome | None = None

    @property
    def key(self) -> str:
        """``file::case`` as in node ids."""
        return f"{self.file}::{self.case_id}"

    @property
    def precision(self) -> Precision:
        """Citation precision over this case's claim–URL pairs."""
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

    def add_claim(self, record: ClaimRecord) -> None:
        """Add one claim record; a repeat of a node id replaces it."""
        case = self._case(record.file, record.case, record.question)
        if record.min_precision is not None:
            case.min_precision = record.min_precision
        case.claims = [claim for claim in case.claims if claim.nodeid != record.nodeid]
        case.claims.append(record)
        case.claims.sort(key=lambda claim: claim.index)

    def add_case(self, outcome: CaseOutcome) -> None:
        """Add a case's release decision."""
        self._case(outcome.file, outcome.case, None).outcome = outcome

    def add_file_error(self, file: str, why: str) -> None:
        """A case file whose items could not be verified (a refused token, a damaged
        cassette): the run's decision cannot be pass."""
        self.file_errors.setdefault(file, why)

    def add_skipped(self, nodeid: str) -> None:
        """A case item that did not run."""
        if nodeid not in self.skipped_items:
            self.skipped_items.append(nodeid)

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

    def _case(self, file: str, case_id: str, question: str | None) -> CaseRecord:
        key = f"{file}::{case_id}"
        if key not in self._cases:
            self._cases[key] = CaseRecord(file, case_id, question)
        return self._cases[key]

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

    def incomplete_claims(self) -> list[str]:
        """Node ids of the claims that could not be checked (and did not fail anyway)."""
        return [claim.nodeid for claim in self.claims if claim.decision == "incomplete"]

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
