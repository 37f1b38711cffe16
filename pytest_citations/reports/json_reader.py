"""The JSON report read back (what :mod:`.json_report` wrote) into the typed values it was
written from: each case as the report states it (its claims, its decision), what was not
verified or did not run and what the run spent (the :class:`~pytest_citations.gating.build.Findings`
besides the cases), and the run's metadata and gates. What ``pytest-citations merge``
decides a run from: the decisions a report states are read only to be held against those
its claims make (:mod:`~pytest_citations.gating.redecision`), and every value is checked to
be one a run writes (labels, counts, criteria). A report of another shape (another
``run.report_version``) is refused, naming the version that wrote it."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import CitationsError
from ..gating.build import Findings
from ..gating.criteria import Decision
from ..gating.precision import Precision
from ..gating.redecision import StatedCase
from ..gating.result import Location
from ..gating.run_result import FileError, RunGates
from ..gating.serial import claim_from_dict, info_from_dict
from ..gating.shards import ShardReport
from ..network.usage import Spending, SpendPlan, Usage, amounts
from .info import RunInfo
from .json_report import REPORT_VERSION


@dataclass(frozen=True)
class ReadReport:
    """One JSON report, read back."""

    name: str
    #: Each case as the report states it.
    cases: tuple[StatedCase, ...]
    #: What else it found: the files not verified, the items skipped or left out, what it
    #: spent, the cassettes it left unwritten.
    found: Findings
    info: RunInfo
    #: What the run was asked to meet (``run.gates``).
    gates: RunGates
    #: ``run.shard`` of a shard's report (None for a run that was not sharded).
    shard: ShardReport | None
    #: The stored precision of each case a baseline held (``cases[].baseline``), and the
    #: baseline's name: None when the run had no baseline.
    baseline: tuple[dict[str, Precision], str] | None

    @property
    def identity(self) -> dict[str, Any]:
        """What must be the same in every shard of one run, by name: how it was made (the
        plugin's version, the judge, model, embedder and record mode), each criterion and
        gate, the baseline, and ``run.identity`` (the case files, the cassettes, the
        settings that change what the checks find)."""
        info = self.info
        gates = self.gates.to_dict()
        return {
            "plugin_version": info.plugin_version,
            "judge": info.judge,
            "model": info.model,
            "embedder": info.embedder,
            "record_mode": info.record_mode,
            **gates.pop("criteria"),
            **gates,
            "baseline": self.baseline[1] if self.baseline else None,
            **info.identity,
        }


@dataclass(frozen=True)
class _Budget:
    """The budgets a report names (``summary.budget``), each an amount."""

    max_judge_calls: float = 0
    max_judge_tokens: float = 0
    max_credits: float = 0


def _counts(data: Mapping[str, Any]) -> Precision:
    counts = data["counts"]
    return Precision.counted(
        counts["supported"], counts["citations"], counts["reachable"], counts["unchecked"]
    )


def _stated(data: Mapping[str, Any]) -> StatedCase:
    """A case as its report states it: its own fields (a claim's copy of them is not read),
    its claims, and its decision."""
    info = info_from_dict(data)
    claims = tuple(claim_from_dict(claim, info.file, info.case) for claim in data["claims"])
    for claim in claims:
        # Every output marks the answer's characters at these offsets: a place no run
        # writes (beyond the answer, or in a case without one) is a forged report.
        if claim.answer_span is not None and claim.answer_span[1] > len(info.answer or ""):
            raise ValueError(f"the place of {claim.nodeid} lies beyond its case's answer")
    release = data.get("release") or {}
    decision = Decision(release["decision"]) if release.get("decision") else None
    item = Decision(data["precision_item"]) if data.get("precision_item") else None
    return StatedCase(info, claims, decision, _counts(data), item)


def _found(summary: Mapping[str, Any]) -> Findings:
    found = Findings(usage=Usage.from_dict(summary.get("usage") or {}))
    for file, why in (summary.get("not_verified") or {}).items():
        collected = not str(why).startswith("not collected: ")
        reason = str(why).removeprefix("not collected: ")
        found.add_file_error(FileError(str(file), reason, collected))
    for item in summary.get("skipped") or ():
        found.add_skipped(Location.from_dict(item))
    found.add_deselected(Location.from_dict(item) for item in summary.get("deselected") or ())
    found.add_cassette_notes(str(note) for note in summary.get("cassette_notes") or ())
    plan = summary.get("plan")
    budget = summary.get("budget") or {}
    found.spending = Spending(
        budget={str(name): float(value) for name, value in amounts(_Budget, budget).items()},
        record_variables=tuple(str(name) for name in summary.get("record_variables") or ()),
        plan=SpendPlan.from_dict(plan) if plan else None,
        holders=1,
    )
    return found


def _info(run: Mapping[str, Any]) -> RunInfo:
    embedder = run.get("embedder") or {}
    return RunInfo(
        plugin_version=str(run.get("plugin_version") or ""),
        judge=str(run.get("judge") or ""),
        model=str(run.get("model") or ""),
        embedder=str(embedder.get("setting") or ""),
        record_mode=str(run.get("record_mode") or ""),
        started=str(run.get("started") or ""),
        run_id=str(run.get("run_id") or ""),
        identity=_identity(run.get("identity")),
    )


def _identity(found: Any) -> dict[str, Any]:
    """``run.identity``: an object of names and plain JSON values."""
    if not isinstance(found, Mapping):
        raise ValueError("its run.identity is not an object")
    return {str(key): value for key, value in found.items()}


def _baseline(data: Mapping[str, Any]) -> tuple[dict[str, Precision], str] | None:
    name = data["summary"].get("baseline_file")
    if name is None:
        return None
    stored = {
        info_from_dict(case).key: Precision.counted(
            case["baseline"]["supported"],
            case["baseline"]["citations"],
            case["baseline"]["reachable"],
            case["baseline"]["unchecked"],
        )
        for case in data["cases"]
        if case.get("baseline")
    }
    return stored, str(name)


def read_report(path: Path, name: str | None = None) -> ReadReport:
    """Read the JSON report at ``path`` (``name``: how messages name it, the path by
    default). A file that cannot be read, or is not a pytest-citations JSON report with
    everything a merge needs, is a :class:`CitationsError` naming it."""
    shown = name or str(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError) as error:
        raise CitationsError(f"cannot read the report {shown}: {error}") from None
    if not (isinstance(data, dict) and isinstance(data.get("cases"), list) and "run" in data):
        raise CitationsError(f"{shown} is not a pytest-citations JSON report (--citations-report)")
    run = data["run"]
    version = run.get("report_version") if isinstance(run, dict) else None
    if version != REPORT_VERSION:
        wrote = run.get("plugin_version") if isinstance(run, dict) else None
        raise CitationsError(
            f"{shown} was written by pytest-citations {wrote or 'of an earlier version'} "
            f"(report version {version or 1}), whose reports this merge cannot read "
            f"(version {REPORT_VERSION}): run the shards again with this version"
        )
    if data.get("drift") is not None:
        raise CitationsError(
            f"{shown} holds a drift check, which a merge cannot combine: check drift once, "
            "with pytest-citations drift, rather than in each shard"
        )
    try:
        shard = ShardReport.from_dict(shown, run["shard"]) if run.get("shard") else None
        cases = tuple(_stated(case) for case in data["cases"])
        found = _found(data["summary"])
        gates = RunGates.from_dict(run.get("gates") or {})
        return ReadReport(shown, cases, found, _info(run), gates, shard, _baseline(data))
    except (KeyError, TypeError, ValueError, AttributeError, ArithmeticError) as error:
        raise CitationsError(
            f"{shown} is not a complete pytest-citations JSON report ({error!r})"
        ) from None


__all__ = ["ReadReport", "read_report"]
