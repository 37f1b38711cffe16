"""What a case-file item found, handed to the reporter and the status line: the typed result
itself in this process, as JSON from an xdist worker (whose reports are serialised). Kept
out of ``user_properties``, which junitxml prints: those carry flat, readable properties.
Every case item's report also carries where the item is (:func:`attach_where`), so that an
item that did not run, or a case file that could not be collected, is named by its typed
place, never by a node id split back into parts."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from ..gating.result import CaseInfo, CaseResult, ClaimResult, Location
from ..gating.run_result import FileError
from ..gating.serial import claim_from_dict, claim_to_dict, info_from_dict, info_to_dict

#: The report attribute a worker's results travel in.
REPORT_ATTRIBUTE = "citations"
#: The report attribute that says where a case item is.
WHERE_ATTRIBUTE = "citations_where"
#: This process's results, by node id.
RESULTS_KEY = pytest.StashKey[dict[str, "ItemResult"]]()
#: The problems of a case file that could not be collected, each (1-based line or 0,
#: message): kept on its collector, and handed on its report in this attribute.
PROBLEMS_KEY = pytest.StashKey[list[tuple[int, str]]]()
PROBLEMS_ATTRIBUTE = "citations_problems"


@dataclass(frozen=True)
class ItemResult:
    """What a case item found: a claim's result (with its case), a case whose own item ran
    (``decided``), or a case file that could not be verified."""

    case: CaseInfo | None = None
    claim: ClaimResult | None = None
    decided: bool = False
    file_error: FileError | None = None
    #: The case as its own item decided it: in this process only (a worker's claims travel,
    #: and the controller decides the case from them).
    decision: CaseResult | None = None
    #: A claim's share of its file's verification time (None for other items).
    seconds: float | None = None
    #: How long the item waited for its file's verification (the first item to ask): pytest
    #: counts it in the item's setup, the claims' shares stand in for it.
    waited: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        """The JSON form (an xdist worker's report attribute)."""
        found: dict[str, Any] = {"decided": self.decided}
        if self.case is not None:
            found["case"] = info_to_dict(self.case)
        if self.claim is not None:
            found["claim"] = claim_to_dict(self.claim)
        if self.file_error is not None:
            found["file_error"] = self.file_error.to_dict()
        return found

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ItemResult:
        """Inverse of :meth:`to_dict`."""
        case = info_from_dict(data["case"]) if "case" in data else None
        claim = None
        if case is not None and "claim" in data:
            claim = claim_from_dict(data["claim"], case.file, case.case)
        error = data.get("file_error")
        return cls(
            case=case,
            claim=claim,
            decided=bool(data.get("decided")),
            file_error=FileError.from_dict(error) if error else None,
        )


def publish(item: pytest.Item, result: ItemResult) -> None:
    """Hand ``item``'s result to its reports (see :func:`result_of`)."""
    item.config.stash.setdefault(RESULTS_KEY, {})[item.nodeid] = result


def own_time(item: pytest.Item, report: pytest.TestReport) -> None:
    """Make a case item's setup report carry the item's own time: the wait for its file's
    verification (counted in the setup of the item that asked first) taken out, a claim's
    share of that verification put in. pytest's ``--durations`` and ``--junitxml`` then
    show each item's own time."""
    found = item.config.stash.get(RESULTS_KEY, {}).get(item.nodeid)
    if found is not None and report.when == "setup":
        report.duration = max(report.duration - found.waited, 0.0) + (found.seconds or 0.0)


def attach_result(item: pytest.Item, report: pytest.TestReport) -> None:
    """On an xdist worker, put ``item``'s result on its report as JSON: found in setup, told
    by the call's report, or by setup's when it is an error there."""
    if not hasattr(item.config, "workerinput"):
        return
    found = item.config.stash.get(RESULTS_KEY, {}).get(item.nodeid)
    if found is not None and (report.when == "call" or report.failed):
        setattr(report, REPORT_ATTRIBUTE, found.to_dict())


def result_of(report: pytest.TestReport, config: pytest.Config) -> ItemResult | None:
    """What a case-file item found (None for other tests)."""
    found = config.stash.get(RESULTS_KEY, {}).get(report.nodeid)
    if found is not None:
        return found
    raw = getattr(report, REPORT_ATTRIBUTE, None)
    return ItemResult.from_dict(raw) if isinstance(raw, dict) else None


def attach_where(where: Location, report: pytest.TestReport) -> None:
    """Say on a case item's report where the item is (it travels from an xdist worker), and
    make the report's location the case file's own line, 1-based, as a reader of a case
    file counts it: pytest's JUnit XML (``junit_family=xunit1``) writes it as it is."""
    setattr(report, WHERE_ATTRIBUTE, where.to_dict())
    path, _, domain = report.location
    report.location = (path, where.line, domain)


def where_of(report: pytest.TestReport) -> Location | None:
    """Where the case item of ``report`` is (None for other tests)."""
    raw = getattr(report, WHERE_ATTRIBUTE, None)
    return Location.from_dict(raw) if isinstance(raw, dict) else None


def attach_problems(collector: pytest.Collector, report: pytest.CollectReport) -> None:
    """Put the problems of a case file (or one of its cases) that could not be collected on
    its report, as JSON (xdist hands a worker's collection errors to the controller as they
    are), with the case file as node ids name it."""
    problems = collector.stash.get(PROBLEMS_KEY, None)
    file = collector.getparent(pytest.File)  # type: ignore[type-abstract]
    if problems and report.failed and file is not None:
        found = {"file": file.nodeid, "problems": [[line, text] for line, text in problems]}
        setattr(report, PROBLEMS_ATTRIBUTE, found)


def problems_of(report: pytest.CollectReport) -> FileError | None:
    """The case file that :func:`attach_problems` said could not be collected, with each of
    its problems (None for other reports)."""
    raw = getattr(report, PROBLEMS_ATTRIBUTE, None)
    if not isinstance(raw, dict):
        return None
    problems = tuple((int(line), str(text)) for line, text in raw["problems"])
    why = problems[0][1] if problems else "it could not be read"
    return FileError(str(raw["file"]), why, collected=False, problems=problems)
