"""The run's result, one typed tree: its cases (sorted once) with their claims, the case
files that could not be verified, the items that did not run or that the selection left out,
what the run spent, its own gates (:class:`RunGates`, what its options asked it to meet)
decided, its comparison with the base (:class:`Base`), the judge's agreement, the baseline,
and the release decision (:class:`Release`). Built once by
:func:`~.build.build_run`; the exit status, the terminal summary, every report and the
GitHub output read it and decide nothing."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any

from ..network.usage import Spending, Usage
from ..verdicts import CitationVerdict
from .criteria import Criteria, Decision
from .precision import Precision, Share
from .result import CaseResult, ClaimResult, Location

if TYPE_CHECKING:
    from .baseline import Reconciliation
    from .calibration import Agreement
    from .comparison import CaseState, RunComparison
    from .decisions import RunDecision

PASS, FAIL, INCOMPLETE = Decision.PASS, Decision.FAIL, Decision.INCOMPLETE


@dataclass(frozen=True)
class RunGates:
    """What the run was asked to meet, as its options set it: recorded in the JSON report
    (``run.gates``) so that a merge of shard reports gates the same way."""

    criteria: Criteria = field(default_factory=Criteria)
    calibrate: bool = False
    #: (metric, minimum) of the calibration gate, if set.
    min_agreement: tuple[str, float] | None = None
    #: The base's name as the summary shows it, when the run is compared with one.
    compare: str | None = None
    fail_on_regression: bool = False
    max_precision_drop: float | None = None
    #: ``--citations-update-baseline``: a claim that only regressed against the baseline is
    #: written into it rather than failed.
    update_baseline: bool = False
    #: ``--citations-baseline-fail-unused``: stale baseline entries fail the run.
    baseline_fail_unused: bool = False

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready mapping."""
        return {
            "criteria": self.criteria.to_dict(),
            "calibrate": self.calibrate,
            "min_agreement": list(self.min_agreement) if self.min_agreement else None,
            "compare": self.compare,
            "fail_on_regression": self.fail_on_regression,
            "max_precision_drop": self.max_precision_drop,
            "update_baseline": self.update_baseline,
            "baseline_fail_unused": self.baseline_fail_unused,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> RunGates:
        """Inverse of :meth:`to_dict`; a gate that is no number in its range (a ``nan``
        that every comparison passes) is a ValueError."""
        agreement = data.get("min_agreement")
        drop = data.get("max_precision_drop")
        if agreement:
            metric, minimum = str(agreement[0]), agreement[1]
            if not isinstance(minimum, int | float) or not -1 <= minimum <= 1:
                raise ValueError(f"gate min_agreement is {agreement!r:.40}, not from -1 to 1")
        if drop is not None and (not isinstance(drop, int | float) or not 0 <= drop <= 1):
            raise ValueError(f"gate max_precision_drop is {drop!r:.40}, not from 0 to 1")
        return cls(
            criteria=Criteria.from_dict(data.get("criteria") or {}),
            calibrate=bool(data.get("calibrate")),
            min_agreement=(metric, float(minimum)) if agreement else None,
            compare=data.get("compare"),
            fail_on_regression=bool(data.get("fail_on_regression")),
            max_precision_drop=float(drop) if drop is not None else None,
            update_baseline=bool(data.get("update_baseline")),
            baseline_fail_unused=bool(data.get("baseline_fail_unused")),
        )


@dataclass(frozen=True)
class Base:
    """The cases of the base a run is compared with, its name in the summary, and the
    gates its run was asked to meet (None when it does not say: a baseline file)."""

    cases: tuple[CaseState, ...]
    shown: str
    gates: RunGates | None = None


@dataclass(frozen=True)
class FileError:
    """A case file whose items could not be checked: not collected (each problem at its
    line) or not verified (a damaged cassette, a refused token: ``message`` says it all,
    and ``items`` are the items it left unchecked)."""

    file: str
    why: str
    collected: bool = False
    problems: tuple[tuple[int, str], ...] = ()
    message: str = ""
    items: tuple[Location, ...] = ()

    @property
    def reason(self) -> str:
        """What the summary and the reports say of the file."""
        return self.why if self.collected else f"not collected: {self.why}"

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready mapping (for xdist)."""
        return {
            "file": self.file,
            "why": self.why,
            "collected": self.collected,
            "problems": [list(problem) for problem in self.problems],
            "message": self.message,
            "items": [item.to_dict() for item in self.items],
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> FileError:
        """Inverse of :meth:`to_dict`."""
        return cls(
            str(data["file"]),
            str(data.get("why") or ""),
            bool(data.get("collected")),
            tuple((int(line), str(text)) for line, text in data.get("problems") or ()),
            str(data.get("message") or ""),
            tuple(Location.from_dict(item) for item in data.get("items") or ()),
        )


@dataclass(frozen=True)
class BaselineFacts:
    """The baseline a run was compared with (``name``): the citation precision it stored
    per case (``file::case``), read before an update rewrites it, and the run's claims
    against it (None for a merge of shard reports, which updates nothing)."""

    name: str
    stored: Mapping[str, Precision] = field(default_factory=dict)
    reconciliation: Reconciliation | None = None

    def precision(self, case_keys: Collection[str]) -> Precision | None:
        """The stored precision of these cases, or None when it holds none of them."""
        found = [self.stored[key] for key in set(case_keys) if key in self.stored]
        return sum(found, Precision(0, 0, 0)) if found else None


@dataclass(frozen=True)
class Release:
    """The run's decision, why, and one line per decided case."""

    #: ``pass``, ``fail`` or ``incomplete``; None when nothing was decided.
    verdict: Decision | None
    #: Why the run is ``fail`` or ``incomplete``, each reason once (empty for ``pass``).
    reasons: tuple[str, ...] = ()
    #: (decision, ``file::case: fully supported 1 of 2; release decision: …``) per decided
    #: case.
    cases: tuple[tuple[Decision, str], ...] = ()

    @property
    def failed(self) -> bool:
        """True when the run may not ship: it failed, or something was not checked."""
        return self.verdict in (FAIL, INCOMPLETE)

    @property
    def line(self) -> str | None:
        """``Release decision: fail (first reason and 2 more)``; None when nothing was decided."""
        if self.verdict is None:
            return None
        if not self.reasons:
            return f"Release decision: {self.verdict}"
        more = f" and {len(self.reasons) - 1} more" if len(self.reasons) > 1 else ""
        return f"Release decision: {self.verdict} ({self.reasons[0]}{more})"


@dataclass(frozen=True)
class RunResult:
    """The run, decided once (see the module's docstring)."""

    cases: tuple[CaseResult, ...]
    #: Every claim, in case order.
    claims: tuple[ClaimResult, ...]
    gates: RunGates
    decision: RunDecision
    precision: Precision
    share: Share
    #: Claims per label over the run, and the unchecked ones.
    label_counts: Mapping[str, int]
    release: Release
    file_errors: tuple[FileError, ...] = ()
    skipped: tuple[Location, ...] = ()
    deselected: tuple[Location, ...] = ()
    usage: Usage = field(default_factory=Usage)
    spending: Spending = field(default_factory=Spending)
    cassette_notes: tuple[str, ...] = ()
    comparison: RunComparison | None = None
    agreement: Agreement | None = None
    baseline: BaselineFacts | None = None
    #: The drift check's report as JSON-ready data (``DriftReport.to_dict()``), or
    #: ``{"error": why, "failed": true}`` when it could not run; None without a check.
    drift: Mapping[str, Any] | None = None

    @property
    def failed(self) -> bool:
        """The run may not ship: its release decision, a baseline update that could not be
        written or stale entries it was told to fail on, a drift that fails or could not be
        checked."""
        reconciled = self.baseline.reconciliation if self.baseline is not None else None
        stale = reconciled is not None and reconciled.fails(self.gates.baseline_fail_unused)
        drifted = self.drift is not None and bool(self.drift.get("failed"))
        return self.release.failed or stale or drifted

    def left_out(self) -> tuple[int, int]:
        """(cases, claims) the selection left out entirely: deselected claim items, and the
        cases none of whose claims ran."""
        if not self.deselected:
            return 0, 0
        ran = {case.key for case in self.cases if case.claims}
        claims = {item.nodeid for item in self.deselected if item.index}
        cases = {item.case_key for item in self.deselected} - ran
        return len(cases), len(claims)

    def chosen_by(self) -> list[str]:
        """The embedders that chose the passages the judge was shown (on a replay, those
        of the recordings), sorted."""
        return sorted({e.chosen_by for claim in self.claims for e in claim.evidence if e.chosen_by})

    def disagreements(self) -> list[tuple[ClaimResult, CitationVerdict]]:
        """Every checked citation whose judge votes did not all give one label."""
        return [
            (claim, citation)
            for claim in self.claims
            for citation in claim.citations
            if citation.checked and not citation.agreed
        ]

    @cached_property
    def baseline_precision(self) -> Precision | None:
        """The precision the baseline stored over the run's cases (None without a baseline,
        or one that holds none of them)."""
        if self.baseline is None:
            return None
        return self.baseline.precision([case.key for case in self.cases])

    @cached_property
    def unchecked_claims(self) -> tuple[ClaimResult, ...]:
        """The claims that could not be checked, in case order."""
        return tuple(claim for claim in self.claims if not claim.checked)

    def unrecorded_claims(self, *, over_budget: bool) -> list[ClaimResult]:
        """The claims a request of which is not in the recording: those the run's budget
        kept from being sent (``over_budget``), or the others (new since the recording)."""
        return [c for c in self.claims if c.unrecorded and c.over_budget is over_budget]


__all__ = [
    "FAIL",
    "INCOMPLETE",
    "PASS",
    "Base",
    "BaselineFacts",
    "FileError",
    "Release",
    "RunGates",
    "RunResult",
]
