"""The base a run is compared with (``--citations-compare BASE.json``): the JSON report of the
base branch's run (``--citations-report``, kept as a CI artifact), or a committed baseline
file (``--citations-baseline``, read by :class:`~.baseline.Baseline`), as the cases and
claims :func:`~.regressions.compare_runs` reads, with the gates the base's run was asked to
meet and each case's own criteria. A baseline stores labels only, so its claims carry no
decision, its cases no question and no criteria, and it has no gates."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..errors import CitationsError
from ..labels import Label
from ..network.usage import count_of
from .baseline import Baseline
from .criteria import Decision, checked_criteria
from .precision import Precision
from .regressions import CaseState, ClaimState
from .result import ClaimStatus, Location, stored_location
from .run_result import Base, RunGates


def _precision(labels: list[str]) -> Precision:
    known = {label.value for label in Label}
    return Precision.of(Label(label) for label in labels if label in known)


def _name(data: Mapping[str, Any]) -> str:
    """A claim's name: a report of this version writes it; an older one, its index (claims
    are named ``claim-N`` by it), or only its node id, read from the right."""
    if data.get("name"):
        return str(data["name"])
    if data.get("index") is not None:
        return f"claim-{count_of(data['index'], 'its index')}"
    return stored_location(str(data["nodeid"])).name


def _claim(file: str, case: str, data: Mapping[str, Any]) -> ClaimState:
    """A claim of a report. An older report's claim that could not be checked says
    ``incomplete``: it had no label, whatever it wrote in that field."""
    decision = Decision(data["decision"]) if data.get("decision") else None
    name = _name(data)
    where = Location(file, case, str(name), count_of(data.get("line") or 0, "its line"))
    status = data.get("status")
    checked = status == ClaimStatus.CHECKED if status else decision is not Decision.INCOMPLETE
    label = str(data["label"]) if checked and data.get("label") is not None else None
    return ClaimState(where, str(data["claim"]), label, decision, bool(data.get("general")))


def _report_case(data: Mapping[str, Any]) -> CaseState:
    file, case = str(data["file"]), str(data["id"])
    claims = tuple(_claim(file, case, claim) for claim in data.get("claims") or ())
    counts = data.get("counts")
    if isinstance(counts, Mapping):
        precision = Precision.counted(
            counts["supported"],
            counts["citations"],
            counts["reachable"],
            counts.get("unchecked", 0),
        )
    else:  # a report written before cases carried their counts
        labels = [
            str(c.get("label"))
            for claim in data.get("claims") or ()
            for c in claim.get("citations") or ()
        ]
        precision = _precision(labels)
    return CaseState(file, case, data.get("question"), claims, precision, _own_criteria(data))


def _own_criteria(data: Mapping[str, Any]) -> dict[str, Any] | None:
    """A case's ``criteria:`` and ``min_precision:``, checked; None for a report that does
    not store them."""
    if "criteria" not in data:
        return None
    own = data["criteria"] or {}
    if not isinstance(own, Mapping):
        raise ValueError("its criteria are not an object")
    found = checked_criteria(own)
    if data.get("min_precision") is not None:
        found.update(checked_criteria({"min_precision": data["min_precision"]}))
    return found


def _gates(path: Path, data: Mapping[str, Any]) -> RunGates | None:
    """The gates the base's run was asked to meet; None for a report that does not say."""
    run = data.get("run")
    gates = run.get("gates") if isinstance(run, Mapping) else None
    if gates is None:
        return None
    try:
        if not isinstance(gates, Mapping):
            raise TypeError("not an object")
        return RunGates.from_dict(gates)
    except (TypeError, ValueError, IndexError, KeyError) as error:
        raise CitationsError(
            f"{path} is not a pytest-citations JSON report: its run's gates: {error}"
        ) from None


def _from_report(path: Path, cases: list[Any]) -> tuple[CaseState, ...]:
    found = []
    for number, case in enumerate(cases, start=1):
        try:
            found.append(_report_case(case))
        except KeyError as error:
            raise CitationsError(
                f"{path} is not a pytest-citations JSON report: a case or claim lacks {error}"
            ) from None
        except (TypeError, ValueError, AttributeError, ArithmeticError) as error:
            raise CitationsError(
                f"{path} is not a pytest-citations JSON report: its case {number} "
                f"({_named(case)}): {error}"
            ) from None
    return tuple(found)


def _named(case: Any) -> str:
    """A case of a report as messages name it: ``file::id`` when it says so."""
    if isinstance(case, Mapping) and isinstance(case.get("file"), str):
        return f"{case['file']}::{case.get('id')}"
    return "with no file"


def _from_baseline(path: Path) -> tuple[CaseState, ...]:
    """The claims a baseline stores, by their node ids (a baseline stores nothing else)."""
    entries = Baseline.load(path).entries  # checks every entry, naming the file
    by_case: dict[tuple[str, str], list[tuple[Location, dict[str, Any]]]] = {}
    for nodeid, entry in sorted(entries.items()):
        where = stored_location(nodeid)
        by_case.setdefault((where.file, where.case), []).append((where, entry))
    cases = []
    for (file, case), stored in by_case.items():
        claims = tuple(
            ClaimState(where, str(entry.get("claim") or ""), str(entry["label"]), None)
            for where, entry in stored
        )
        labels = [str(c.get("label")) for _, entry in stored for c in entry.get("citations") or ()]
        cases.append(CaseState(file, case, None, claims, _precision(labels)))
    return tuple(cases)


def load_base(path: Path) -> tuple[CaseState, ...]:
    """The cases of the base at ``path`` (see :func:`read_base`)."""
    return read_base(path, str(path)).cases


def read_base(path: Path, shown: str) -> Base:
    """The base at ``path``, named ``shown`` in the summary. A file that is missing, cannot
    be read or is neither a JSON report nor a baseline is a :class:`CitationsError` naming
    it."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise CitationsError(
            f"the base {path} does not exist (the base branch's --citations-report, or a "
            "baseline file)"
        ) from None
    except (OSError, ValueError, RecursionError) as error:
        raise CitationsError(f"cannot read the base {path}: {error}") from None
    if isinstance(data, dict) and isinstance(data.get("cases"), list):
        return Base(_from_report(path, data["cases"]), shown, _gates(path, data))
    if isinstance(data, dict) and isinstance(data.get("claims"), dict):
        return Base(_from_baseline(path), shown)
    raise CitationsError(
        f"{path} is neither a pytest-citations JSON report (no 'cases') nor a baseline "
        "(no 'claims')"
    )


__all__ = ["load_base", "read_base"]
