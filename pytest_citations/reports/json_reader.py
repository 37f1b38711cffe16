"""The JSON report read back (what :mod:`.json_report` wrote) into the typed results it was
written from: the claim records and case decisions of a :class:`RunReport`, with what was
not verified or did not run and what the run spent, and the run's metadata and gates. What
``pytest-citations merge`` decides a run from: the decisions a report states are read only
to be held against those its claims make (:mod:`~pytest_citations.gating.redecision`), and
every value is checked to be one a run writes (labels, counts, criteria)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from ..errors import CitationsError
from ..gating.conclusion import RunGates
from ..gating.criteria import Decision, checked_criteria
from ..gating.records import CaseInfo, CaseOutcome, ClaimRecord
from ..gating.run_report import RunReport
from ..gating.shards import ShardReport
from ..precision import Precision
from ..usage import Spending, SpendPlan, Usage, amounts
from .info import RunInfo


@dataclass(frozen=True)
class ReadReport:
    """One JSON report, read back."""

    name: str
    report: RunReport
    info: RunInfo
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
        gates = info.gates.to_dict()
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
    return Precision.counted(counts["supported"], counts["citations"], counts["reachable"])


def _case_info(data: Mapping[str, Any]) -> CaseInfo:
    """The case as its report names it, its own criteria checked (a claim's copy of them
    is not read: every claim of the case takes this one)."""
    own = data.get("criteria") or {}
    if not isinstance(own, Mapping):
        raise ValueError(f"the criteria of {data['file']}::{data['id']} are not an object")
    minimum = checked_criteria({"min_precision": data.get("min_precision")})["min_precision"]
    return CaseInfo(str(data["file"]), str(data["id"]), data.get("question"), minimum,
                    checked_criteria(own))  # fmt: skip


def _add_case(report: RunReport, data: Mapping[str, Any]) -> None:
    info = _case_info(data)
    for claim in data.get("claims") or ():
        record = replace(ClaimRecord.from_dict(claim), info=info)
        if not record.nodeid.startswith(f"{info.key}::"):
            raise ValueError(f"the claim {record.nodeid} is not one of {info.key}")
        report.add_claim(record)
    release = data.get("release") or {}
    if release.get("decision"):
        report.add_case(CaseOutcome(
            info,
            Decision(release["decision"]),
            _counts(data),
            tuple(release.get("failures") or ()),
            tuple(release.get("incomplete") or ()),
            Decision(data.get("precision_item") or Decision.PASS),
        ))  # fmt: skip


def _run_report(data: Mapping[str, Any]) -> RunReport:
    report = RunReport()
    for case in data["cases"]:
        _add_case(report, case)
    summary = data["summary"]
    report.usage = Usage.from_dict(summary.get("usage") or {})
    for file, why in (summary.get("not_verified") or {}).items():
        report.add_file_error(str(file), str(why))
    for nodeid in summary.get("skipped") or ():
        report.add_skipped(str(nodeid))
    report.deselected.update(str(nodeid) for nodeid in summary.get("deselected") or ())
    report.add_cassette_notes(str(note) for note in summary.get("cassette_notes") or ())
    plan = summary.get("plan")
    budget = summary.get("budget") or {}
    report.spending = Spending(
        budget={str(name): float(value) for name, value in amounts(_Budget, budget).items()},
        record_variables=tuple(str(name) for name in summary.get("record_variables") or ()),
        plan=SpendPlan.from_dict(plan) if plan else None,
        holders=1,
    )
    return report


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
        gates=RunGates.from_dict(run.get("gates") or {}),
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
        f"{case['file']}::{case['id']}": Precision.counted(
            case["baseline"]["supported"],
            case["baseline"]["citations"],
            case["baseline"]["reachable"],
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
    needs = ("gates", "identity")
    if any(key not in data["run"] for key in needs) or any(
        "counts" not in case for case in data["cases"]
    ):
        raise CitationsError(
            f"{shown} was written by a pytest-citations that does not record what a merge "
            "needs (run.gates, run.identity, each case's counts): run the shards again with "
            "this version"
        )
    if data.get("drift") is not None:
        raise CitationsError(
            f"{shown} holds a drift check, which a merge cannot combine: check drift once, "
            "with pytest-citations drift, rather than in each shard"
        )
    try:
        run = data["run"]
        shard = ShardReport.from_dict(shown, run["shard"]) if run.get("shard") else None
        return ReadReport(shown, _run_report(data), _info(run), shard, _baseline(data))
    except (KeyError, TypeError, ValueError, AttributeError, ArithmeticError) as error:
        raise CitationsError(f"{shown} is not a complete pytest-citations JSON report ({error!r})"
                             ) from None  # fmt: skip


__all__ = ["ReadReport", "read_report"]
