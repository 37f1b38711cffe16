"""What a case-file item found, handed to the reporter and the status line: the typed record
itself in this process, as JSON from an xdist worker (whose reports are serialised). Kept
out of ``user_properties``, which junitxml prints: those carry flat, readable properties."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from ..gating.records import CaseOutcome, ClaimRecord

#: The report attribute a worker's results travel in.
REPORT_ATTRIBUTE = "citations"
#: This process's results, by node id.
RESULTS_KEY = pytest.StashKey[dict[str, "ItemResult"]]()
#: The problems of a case file that could not be collected, each (1-based line or 0,
#: message): kept on its collector, and handed on its report in this attribute.
PROBLEMS_KEY = pytest.StashKey[list[tuple[int, str]]]()
PROBLEMS_ATTRIBUTE = "citations_problems"


@dataclass(frozen=True)
class ItemResult:
    """A claim's record, a case's decision, or a file that could not be verified."""

    claim: ClaimRecord | None = None
    case: CaseOutcome | None = None
    #: (the case file's node id, the first line of why) when the file was not verified.
    file_error: tuple[str, str] | None = None
    #: What the item says when it fails or is an error (its message, as pytest prints it).
    message: str | None = None
    #: A claim's share of its file's verification time (None for other items).
    seconds: float | None = None
    #: How long the item waited for its file's verification (the first item to ask): pytest
    #: counts it in the item's setup, the claims' shares stand in for it.
    waited: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        """The JSON form (an xdist worker's report attribute)."""
        found: dict[str, Any] = {
            "message": self.message,
            "seconds": self.seconds,
            "waited": self.waited,
        }
        if self.claim is not None:
            found["claim"] = self.claim.to_dict()
        if self.case is not None:
            found["case"] = self.case.to_dict()
        if self.file_error is not None:
            found["file_error"] = {"file": self.file_error[0], "why": self.file_error[1]}
        return found

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ItemResult:
        """Inverse of :meth:`to_dict`."""
        error = data.get("file_error")
        return cls(
            claim=ClaimRecord.from_dict(data["claim"]) if "claim" in data else None,
            case=CaseOutcome.from_dict(data["case"]) if "case" in data else None,
            file_error=(str(error["file"]), str(error.get("why") or "")) if error else None,
            message=data.get("message"),
            seconds=float(data["seconds"]) if data.get("seconds") is not None else None,
            waited=float(data.get("waited") or 0.0),
        )


def publish(item: pytest.Item, result: ItemResult) -> None:
    """Hand ``item``'s result to its reports (see :func:`result_of`)."""
    item.config.stash.setdefault(RESULTS_KEY, {})[item.nodeid] = result


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


def attach_problems(collector: pytest.Collector, report: pytest.CollectReport) -> None:
    """Put the problems of a case file that could not be collected on its report, as JSON
    (xdist hands a worker's collection errors to the controller as they are)."""
    problems = collector.stash.get(PROBLEMS_KEY, None)
    if problems and report.failed:
        setattr(report, PROBLEMS_ATTRIBUTE, [[line, text] for line, text in problems])


def problems_of(report: pytest.CollectReport) -> list[tuple[int, str]]:
    """The problems :func:`attach_problems` put on a report (none for other reports)."""
    raw = getattr(report, PROBLEMS_ATTRIBUTE, None)
    if not isinstance(raw, list):
        return []
    return [(int(line), str(text)) for line, text in raw]
