"""The base a run is compared with (``--citations-compare BASE.json``): the JSON report of the
base branch's run (``--citations-report``, kept as a CI artifact), or a committed baseline
file (``--citations-baseline``, read by :class:`~.baseline.Baseline`), as the cases and
claims :func:`~.regressions.compare_runs` reads. A baseline stores labels only, so its
claims carry no decision and its cases no question."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..errors import CitationsError
from ..labels import Label
from ..precision import Precision, count_of
from .baseline import Baseline
from .criteria import Decision
from .regressions import CaseState, ClaimState


def _precision(labels: list[str]) -> Precision:
    known = {label.value for label in Label}
    return Precision.of(Label(label) for label in labels if label in known)


def _claim(data: Mapping[str, Any]) -> ClaimState:
    nodeid = str(data["nodeid"])
    decision = data.get("decision")
    return ClaimState(
        nodeid,
        nodeid.rsplit("::", 1)[-1],
        str(data["claim"]),
        str(data["label"]),
        Decision(decision) if decision else None,
        count_of(data.get("line") or 0, "its line"),
        bool(data.get("general")),
    )


def _report_case(data: Mapping[str, Any]) -> CaseState:
    claims = tuple(_claim(claim) for claim in data.get("claims") or ())
    counts = data.get("counts")
    if isinstance(counts, Mapping):
        precision = Precision.counted(counts["supported"], counts["citations"], counts["reachable"])
    else:  # a report written before cases carried their counts
        labels = [str(c.get("label")) for claim in data.get("claims") or () for c in
                  claim.get("citations") or ()]  # fmt: skip
        precision = _precision(labels)
    return CaseState(str(data["file"]), str(data["id"]), data.get("question"), claims, precision)


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
    entries = Baseline.load(path).entries  # checks every entry, naming the file
    by_case: dict[str, list[tuple[str, dict[str, Any]]]] = {}
    for nodeid, entry in sorted(entries.items()):
        by_case.setdefault(nodeid.rsplit("::", 1)[0], []).append((nodeid, entry))
    cases = []
    for key, stored in by_case.items():
        file, _, case = key.rpartition("::")
        claims = tuple(
            ClaimState(nodeid, nodeid.rsplit("::", 1)[-1], str(entry.get("claim") or ""),
                       str(entry["label"]), None)
            for nodeid, entry in stored
        )  # fmt: skip
        labels = [str(c.get("label")) for _, entry in stored for c in entry.get("citations") or ()]
        cases.append(CaseState(file, case, None, claims, _precision(labels)))
    return tuple(cases)


def load_base(path: Path) -> tuple[CaseState, ...]:
    """The cases of the base at ``path``. A file that is missing, cannot be read or is
    neither a JSON report nor a baseline is a :class:`CitationsError` naming it."""
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
        return _from_report(path, data["cases"])
    if isinstance(data, dict) and isinstance(data.get("claims"), dict):
        return _from_baseline(path)
    raise CitationsError(
        f"{path} is neither a pytest-citations JSON report (no 'cases') nor a baseline "
        "(no 'claims')"
    )


__all__ = ["load_base"]
