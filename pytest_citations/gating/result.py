"""What a run concludes of each claim and case, as typed values: a claim's place, whether it
was checked, its label only when it was, its decision with the criteria it missed, and how
it compares with the baseline and the base (:class:`ClaimResult`); a case, its claims, its
precision and supported share over what was checked, and its decision (:class:`CaseResult`).
The run as a whole is :class:`~.run_result.RunResult`, built by
:func:`~.build.build_run`; every output renders these and decides nothing.

**A state is not a label.** A claim is ``unchecked`` when a citation (or a check beyond its
citations) could not be checked and the run does not count it as its label: it has no label
(``label`` is None), its decision is ``incomplete``, and the reasons are typed
(:class:`UncheckedCitation`). With ``--citations-allow-unchecked`` a citation that could not
be checked counts as its label, so its claim is checked by definition, except where nothing
was ever fetched or judged (a request missing from the recording, a document without a URL),
which no run counts. A claim that a checked citation contradicts is checked whatever its
other citations say: one contradiction decides it (A1).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from functools import cached_property
from typing import TYPE_CHECKING, Any

from ..labels import LABEL_RANK, Label, as_judge_label
from ..verdicts import CitationVerdict, ClaimVerdict, Evidence
from .criteria import Criteria, Decision, Failure, UncheckedCitation
from .precision import Precision, Share

if TYPE_CHECKING:
    from .comparison import ClaimDiff

#: The name of a case's own item, which reports the case's decision.
PRECISION_ITEM = "precision"


class ClaimStatus(StrEnum):
    """Whether a claim was checked: only a checked claim has a label."""

    CHECKED = "checked"
    UNCHECKED = "unchecked"


@dataclass(frozen=True, order=True)
class Location:
    """Where an item of a case file is: the case file as node ids name it (relative to the
    rootdir, with ``/``; it may itself hold ``::``), the case's id, the item's name
    (``claim-2``, or ``precision`` for the case's own item), its 1-based line (0: unknown)
    and a claim's index in its case."""

    file: str
    case: str
    name: str
    line: int = 0
    index: int = 0

    @property
    def nodeid(self) -> str:
        """The item's node id, built from its parts (never split back into them)."""
        return f"{self.file}::{self.case}::{self.name}"

    @property
    def case_key(self) -> str:
        """``file::case``, the case's name in the summaries."""
        return f"{self.file}::{self.case}"

    @property
    def in_file(self) -> str:
        """``case::claim-2``: the item's name within its case file."""
        return f"{self.case}::{self.name}"

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready mapping."""
        return {"file": self.file, "case": self.case, "name": self.name, "line": self.line}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Location:
        """Inverse of :meth:`to_dict`."""
        return cls(
            str(data["file"]), str(data["case"]), str(data["name"]), int(data.get("line") or 0)
        )


def stored_location(nodeid: str) -> Location:
    """The place a node id names, for the node ids a file stores with nothing beside them (a
    baseline's entries) or a tool hands over as text (xdist's scheduling). Read from the
    right: a case's id and an item's name never hold ``::`` (they are slugs), a case file's
    name may. A node id of fewer parts names a file."""
    parts = nodeid.rsplit("::", 2)
    if len(parts) < 3:
        return Location(parts[0], "", "")
    file, case, name = parts
    return Location(file, case, name)


class BaselineKind(StrEnum):
    """How a claim's label moved against the stored baseline (004, C4)."""

    REGRESSION = "regression"
    IMPROVEMENT = "improvement"
    UNCHANGED = "unchanged"
    NEW = "new"


@dataclass(frozen=True)
class BaselineChange:
    """A claim against the baseline (``shown``: its name): the label it stored and the
    label, reason and URL of each citation it stored (None for a claim it does not hold)."""

    kind: BaselineKind
    old_label: str | None
    old_citations: tuple[tuple[str, str | None, str | None], ...] = ()
    shown: str = ""

    @classmethod
    def of(cls, label: Label, stored: Mapping[str, Any] | None, shown: str = "") -> BaselineChange:
        """The change from a stored entry (see :func:`~.baseline.entry`) to ``label``."""
        if stored is None:
            return cls(BaselineKind.NEW, None, (), shown)
        old = str(stored["label"])
        citations = tuple(
            (str(c.get("url") or ""), c.get("label"), c.get("reason"))
            for c in stored.get("citations") or ()
        )
        before, after = _rank(old), LABEL_RANK[label]
        kind = BaselineKind.UNCHANGED
        if after != before:
            kind = BaselineKind.REGRESSION if after > before else BaselineKind.IMPROVEMENT
        return cls(kind, old, citations, shown)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready mapping (a claim's ``baseline``)."""
        return {
            "change": self.kind.value,
            "old_label": self.old_label,
            "baseline": self.shown,
            "old_citations": [list(c) for c in self.old_citations],
        }

    def stored(self) -> dict[str, Any] | None:
        """The baseline's entry as it stored the claim's labels (None: a new claim)."""
        if self.old_label is None:
            return None
        citations = [{"url": u, "label": lab, "reason": r} for u, lab, r in self.old_citations]
        return {"label": self.old_label, "citations": citations}


def _rank(label: str) -> int:
    try:
        return LABEL_RANK[Label(label)]
    except ValueError:
        return len(LABEL_RANK)


@dataclass(frozen=True)
class ClaimResult:
    """One claim, decided once: where it is, what its checks found, whether it was checked
    (its ``label`` only if it was), and its decision with the criteria it missed
    (``failures``: the case's criteria, and a regression against the baseline). Its item's
    outcome is a function of ``decision`` alone. ``change`` is how it differs from the base
    a run is compared with (set when the run is decided as a whole). Text that came from
    pages or answers is free of control sequences."""

    where: Location
    text: str
    status: ClaimStatus
    label: Label | None
    decision: Decision
    citations: tuple[CitationVerdict, ...] = ()
    failures: tuple[Failure, ...] = ()
    unchecked: tuple[UncheckedCitation, ...] = ()
    markers: tuple[str, ...] = ()
    topic: str | None = None
    general: bool = False
    expect: str | None = None
    derived: bool = False
    #: Why some citation could not be checked at all, in the checks' own words.
    problems: tuple[str, ...] = ()
    #: A request the claim needed is not in the recording (new since it was made); of
    #: those, one the run's budget kept from being sent.
    unrecorded: bool = False
    over_budget: bool = False
    joint_support: tuple[str, ...] = ()
    misattributed_to: tuple[str, ...] = ()
    evidence: tuple[Evidence, ...] = ()
    baseline: BaselineChange | None = None
    change: ClaimDiff | None = None
    #: Where the claim stands in its case's answer (``CaseInfo.answer``), as offsets
    #: ``(start, end)``; None when the case has no answer or it does not hold the claim.
    answer_span: tuple[int, int] | None = None

    @property
    def nodeid(self) -> str:
        """The claim item's node id."""
        return self.where.nodeid

    @property
    def checked(self) -> bool:
        """True when the claim has a label."""
        return self.status is ClaimStatus.CHECKED

    @cached_property
    def label_shown(self) -> str:
        """The claim's label as every output shows it: its label, or ``unchecked`` for one
        that has none."""
        return self.label.value if self.label is not None else ClaimStatus.UNCHECKED.value

    @cached_property
    def differs_from_human(self) -> bool:
        """The claim has a label and a human one (``expect:``), and the judge's (as one of
        its four) is not the human's: the HTML report's "judge ≠ human" claims."""
        if not self.expect or self.label is None:
            return False
        return as_judge_label(self.label.value) != self.expect

    @cached_property
    def failing(self) -> bool:
        """The claim missed a criterion, or some citation of it could not be checked: the
        HTML report's "failing" claims."""
        return bool(self.failures or self.unchecked or self.problems)

    def counted(self, citation: CitationVerdict) -> bool:
        """Whether a citation counts in precision: it was checked, or the run counts it as
        its label (then its claim has no unchecked citation listed)."""
        return citation.checked or not any(u.url == citation.url for u in self.unchecked)

    @property
    def open_citations(self) -> int:
        """The citations of this claim that count in no precision: they were not checked."""
        return sum(1 for citation in self.citations if not self.counted(citation))

    def shown_label(self, citation: CitationVerdict) -> str:
        """A citation's label as outputs show it: ``unchecked`` when it is not counted."""
        return citation.label.value if self.counted(citation) else ClaimStatus.UNCHECKED.value

    def evidence_of(self, url: str) -> Evidence | None:
        """What the judge saw for one cited URL, if it was judged."""
        return next((shown for shown in self.evidence if shown.url == url), None)

    def verdict(self, label: Label) -> ClaimVerdict:
        """The claim's verdict as its checks found it, under ``label`` (its own, or, for an
        unchecked claim, the label its citations would give)."""
        unrecorded = (self.problems or ("unrecorded",)) if self.unrecorded else ()
        return ClaimVerdict(
            self.text,
            label,
            self.citations,
            self.problems,
            unrecorded=unrecorded,
            over_budget=unrecorded if self.over_budget else (),
            joint_support=self.joint_support,
            misattributed_to=self.misattributed_to,
            evidence=self.evidence,
        )


@dataclass(frozen=True)
class CaseInfo:
    """Where a case is and what it asks, once per case: the case file, the case's id and
    line, its question and answer (when the file has them), and its own criteria (over the
    run's), which its claims and the case itself are decided against."""

    file: str
    case: str
    line: int = 0
    question: str | None = None
    answer: str | None = None
    min_precision: float | None = None
    criteria: Mapping[str, Any] = field(default_factory=dict)
    #: The marker of each retrieved source the case names (``3: https://…``).
    retrieved_markers: Mapping[str, str] = field(default_factory=dict)

    @property
    def key(self) -> str:
        """``file::case``, the case's name in the summaries."""
        return f"{self.file}::{self.case}"

    @property
    def item(self) -> Location:
        """Where the case's own (``precision``) item is: the case's first line."""
        return Location(self.file, self.case, PRECISION_ITEM, self.line)

    @property
    def own_criteria(self) -> dict[str, Any]:
        """The case's ``criteria:`` and ``min_precision:``, which it sets over the run's."""
        overrides = dict(self.criteria)
        if self.min_precision is not None:
            overrides["min_precision"] = self.min_precision
        return overrides

    def rules(self, run: Criteria) -> Criteria:
        """The run's criteria with the case's own over them."""
        return run.merged(self.own_criteria)


@dataclass(frozen=True)
class CaseResult:
    """A case and its claims (in file order), its citation precision and supported share
    over what was checked, its claims per label (``unchecked`` for those that have none,
    see :func:`count_labels`), its criteria, and its decision: ``decision`` is None when
    the case was not decided (its own item did not run); ``item`` is what that item reports
    (``fail`` for a threshold of the case missed, ``incomplete`` for one that unchecked
    citations leave undecided; a claim's failure is its own item's)."""

    info: CaseInfo
    claims: tuple[ClaimResult, ...]
    precision: Precision
    share: Share
    label_counts: Mapping[str, int]
    #: The run's criteria with the case's own over them (:meth:`CaseInfo.rules`), which its
    #: claims and the case were decided against.
    rules: Criteria
    decision: Decision | None = None
    item: Decision | None = None
    failures: tuple[Failure, ...] = ()
    #: Case criteria that unchecked citations leave undecided.
    undecided: tuple[Failure, ...] = ()
    #: Why a decided case is incomplete: the claims not checked, the criteria not decided.
    incomplete: tuple[str, ...] = ()

    @property
    def key(self) -> str:
        """``file::case``."""
        return self.info.key


#: The columns a label count has: every label, then the claims that have none.
COUNTED = (*(label.value for label in Label), ClaimStatus.UNCHECKED.value)


def count_labels(claims: Iterable[ClaimResult]) -> dict[str, int]:
    """Claims per label, and ``unchecked`` for those that have none."""
    counts = dict.fromkeys(COUNTED, 0)
    for claim in claims:
        counts[claim.label_shown] += 1
    return counts


__all__ = [
    "COUNTED",
    "PRECISION_ITEM",
    "BaselineChange",
    "BaselineKind",
    "CaseInfo",
    "CaseResult",
    "ClaimResult",
    "ClaimStatus",
    "Location",
    "UncheckedCitation",
    "count_labels",
    "stored_location",
]
