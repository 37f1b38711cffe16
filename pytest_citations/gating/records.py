"""What assessment makes of a claim and of a case, as typed records: one :class:`ClaimRecord`
per claim (its verdict and how it fared against the criteria), one :class:`CaseOutcome` per
case (its release decision), both pointing at their case's :class:`CaseInfo`. Built once, in
:mod:`.assessment`, with page-derived text already free of control sequences; every output
reads them as they are.

Records travel between processes (xdist workers) as JSON (``to_dict``/``from_dict``);
nothing here does I/O.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..labels import Label
from ..precision import Precision
from ..verdicts import CitationVerdict, Evidence
from .criteria import Criteria, Decision


@dataclass(frozen=True)
class BaselineChange:
    """How a claim's label moved against the stored baseline (004, C4)."""

    kind: str  # "regression", "improvement", "unchanged" or "new"
    old_label: str | None


@dataclass(frozen=True)
class CaseInfo:
    """Where a case is and what it asks, once per case: every record of the case points here."""

    file: str
    case: str
    question: str | None = None
    min_precision: float | None = None
    #: The case's own ``criteria:``, as its file sets them (over the run's): what a merge of
    #: shard reports decides the case's claims against again.
    criteria: Mapping[str, Any] = field(default_factory=dict)

    @property
    def key(self) -> str:
        """``file::case`` as in node ids."""
        return f"{self.file}::{self.case}"

    def rules(self, run: Criteria) -> Criteria:
        """The run's criteria with the case's ``criteria:`` and ``min_precision:`` over
        them: what its claims and the case itself are decided against."""
        overrides = dict(self.criteria)
        if self.min_precision is not None:
            overrides["min_precision"] = self.min_precision
        return run.merged(overrides)


@dataclass(frozen=True)
class ClaimRecord:
    """Everything the outputs need about one claim: where it is, its verdict, and how it
    fared against the acceptance criteria. Page-derived text is already free of control
    sequences (see :mod:`pytest_citations.sanitize`)."""

    nodeid: str
    info: CaseInfo
    index: int
    line: int
    claim: str
    label: str
    citations: tuple[CitationVerdict, ...] = ()
    markers: tuple[str, ...] = ()
    problems: tuple[str, ...] = ()
    failures: tuple[str, ...] = ()
    #: ``pass``, ``fail`` or ``incomplete`` (a citation could not be checked).
    decision: Decision = Decision.PASS
    unchecked: tuple[str, ...] = ()
    topic: str | None = None
    general: bool = False
    expect: str | None = None
    derived: bool = False
    joint_support: tuple[str, ...] = ()
    misattributed_to: tuple[str, ...] = ()
    #: What the judge saw per judged citation, for quotes shown in context.
    evidence: tuple[Evidence, ...] = ()
    baseline: BaselineChange | None = None
    #: A request the claim needed is not in the recording (new since it was made), and
    #: of those, one the run's budget kept from being sent.
    unrecorded: bool = False
    over_budget: bool = False

    @property
    def file(self) -> str:
        """The case file, as node ids name it."""
        return self.info.file

    @property
    def case(self) -> str:
        """The case's id."""
        return self.info.case

    def passages(self, url: str) -> tuple[str, ...]:
        """The passages the judge saw for one cited URL."""
        return next((shown.passages for shown in self.evidence if shown.url == url), ())

    def evidence_of(self, url: str) -> Evidence | None:
        """What the judge saw for one cited URL, if it was judged."""
        return next((shown for shown in self.evidence if shown.url == url), None)

    def to_dict(self) -> dict[str, Any]:
        """The JSON form (the JSON report's claim objects)."""
        data: dict[str, Any] = {
            "nodeid": self.nodeid,
            "file": self.file,
            "case": self.case,
            "question": self.info.question,
            "min_precision": self.info.min_precision,
            "criteria": dict(self.info.criteria),
            "index": self.index,
            "line": self.line,
            "claim": self.claim,
            "label": self.label,
            "markers": list(self.markers),
            "citations": [citation.to_dict() for citation in self.citations],
            "problems": list(self.problems),
            "failures": list(self.failures),
            "decision": self.decision.value,
            "unchecked": list(self.unchecked),
            "topic": self.topic,
            "general": self.general,
            "expect": self.expect,
            "derived": self.derived,
            "joint_support": list(self.joint_support),
            "misattributed_to": list(self.misattributed_to),
            "evidence": [shown.to_dict() for shown in self.evidence],
            "unrecorded": self.unrecorded,
            "over_budget": self.over_budget,
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
            info=_info(data),
            index=int(data["index"]),
            line=int(data.get("line") or 0),
            claim=str(data["claim"]),
            label=Label(data["label"]).value,
            citations=tuple(CitationVerdict.from_dict(c) for c in data.get("citations", [])),
            markers=tuple(data.get("markers", ())),
            problems=tuple(data.get("problems", ())),
            failures=tuple(data.get("failures", ())),
            decision=Decision(data.get("decision") or Decision.PASS),
            unchecked=tuple(data.get("unchecked", ())),
            topic=data.get("topic"),
            general=bool(data.get("general")),
            expect=Label(data["expect"]).value if data.get("expect") is not None else None,
            derived=bool(data.get("derived")),
            joint_support=tuple(data.get("joint_support", ())),
            misattributed_to=tuple(data.get("misattributed_to", ())),
            evidence=tuple(Evidence.from_dict(item) for item in data.get("evidence", [])),
            baseline=BaselineChange(baseline["change"], baseline.get("old_label"))
            if baseline
            else None,
            unrecorded=bool(data.get("unrecorded")),
            over_budget=bool(data.get("over_budget")),
        )


@dataclass(frozen=True)
class CaseOutcome:
    """A case's release decision and its citation precision, as assessment decided them."""

    info: CaseInfo
    decision: Decision
    precision: Precision
    failures: tuple[str, ...] = ()
    incomplete: tuple[str, ...] = ()
    #: What the case's ``precision`` item reports: ``fail`` when the case missed a
    #: threshold of its own, ``incomplete`` when unchecked citations leave one undecided
    #: (a claim's failure fails the claim's item, not this one).
    item: Decision = Decision.PASS

    @property
    def file(self) -> str:
        """The case file."""
        return self.info.file

    @property
    def case(self) -> str:
        """The case's id."""
        return self.info.case

    def to_dict(self) -> dict[str, Any]:
        """The JSON form (for xdist)."""
        precision = self.precision
        return {
            "file": self.info.file,
            "case": self.info.case,
            "question": self.info.question,
            "min_precision": self.info.min_precision,
            "criteria": dict(self.info.criteria),
            "decision": self.decision.value,
            "precision": [precision.supported, precision.total, precision.reachable],
            "failures": list(self.failures),
            "incomplete": list(self.incomplete),
            "item": self.item.value,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> CaseOutcome:
        """Inverse of :meth:`to_dict`."""
        supported, total, reachable = data["precision"]
        return cls(
            _info(data),
            Decision(data["decision"]),
            Precision(int(supported), int(total), int(reachable)),
            tuple(data.get("failures", ())),
            tuple(data.get("incomplete", ())),
            Decision(data.get("item") or Decision.PASS),
        )


def _info(data: Mapping[str, Any]) -> CaseInfo:
    """The case info a record's JSON form carries."""
    return CaseInfo(
        str(data["file"]),
        str(data["case"]),
        data.get("question"),
        data.get("min_precision"),
        dict(data.get("criteria") or {}),
    )
