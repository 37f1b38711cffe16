"""The JSON form of a claim's and a case's results: what an xdist worker hands to the
controller, what the JSON report holds, and what ``pytest-citations merge`` reads back.
Reading checks every value to be one a run writes (a label, a decision, a count); a value of
another kind is a ValueError (or a KeyError for one that is missing) for the reader to name.
Text is freed of control sequences as it is read, as it was when it was made."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..labels import Label
from ..sanitize import clean
from ..verdicts import CitationVerdict, Evidence
from .criteria import Decision, Failure, UncheckedCitation, checked_criteria
from .result import (
    BaselineChange,
    BaselineKind,
    CaseInfo,
    ClaimResult,
    ClaimStatus,
    Location,
)


def claim_to_dict(claim: ClaimResult) -> dict[str, Any]:
    """A claim as the JSON report writes it (its case's fields are the case's)."""
    where = claim.where
    data: dict[str, Any] = {
        "nodeid": where.nodeid,
        "file": where.file,
        "case": where.case,
        "name": where.name,
        "index": where.index,
        "line": where.line,
        "claim": claim.text,
        "status": claim.status.value,
        "label": claim.label.value if claim.label is not None else None,
        "decision": claim.decision.value,
        "failures": [{"criterion": f.criterion, "message": f.message} for f in claim.failures],
        "unchecked": [unchecked.to_dict() for unchecked in claim.unchecked],
        "markers": list(claim.markers),
        "citations": [citation.to_dict() for citation in claim.citations],
        "problems": list(claim.problems),
        "topic": claim.topic,
        "general": claim.general,
        "expect": claim.expect,
        "derived": claim.derived,
        "joint_support": list(claim.joint_support),
        "misattributed_to": list(claim.misattributed_to),
        "evidence": [shown.to_dict() for shown in claim.evidence],
        "unrecorded": claim.unrecorded,
        "over_budget": claim.over_budget,
        "answer_span": list(claim.answer_span) if claim.answer_span is not None else None,
    }
    if claim.baseline is not None:
        data["baseline"] = claim.baseline.to_dict()
    return data


def _baseline(data: Any) -> BaselineChange | None:
    if not data:
        return None
    old = data.get("old_label")
    citations = tuple(
        (
            str(url),
            label if label is None else str(label),
            reason if reason is None else str(reason),
        )
        for url, label, reason in data.get("old_citations") or ()
    )
    return BaselineChange(
        BaselineKind(data["change"]),
        Label(old).value if old is not None else None,
        citations,
        str(data.get("baseline") or ""),
    )


def _names(data: Mapping[str, Any], key: str) -> tuple[str, ...]:
    found = data.get(key) or ()
    if not isinstance(found, list | tuple) or not all(isinstance(item, str) for item in found):
        raise ValueError(f"its {key} is not a list of strings")
    return tuple(found)


def claim_from_dict(data: Mapping[str, Any], file: str, case: str) -> ClaimResult:
    """A claim of the case ``file::case`` read back (see :func:`claim_to_dict`). Its
    decision and status are read as stated: only :func:`~.redecision.redecide` makes them."""
    status = ClaimStatus(data.get("status") or ClaimStatus.CHECKED)
    label = data.get("label")
    index = int(data["index"])
    name = str(data.get("name") or f"claim-{index}")
    where = Location(file, case, name, int(data.get("line") or 0), index)
    # The node id a report writes is built from the claim's place: one that says another
    # case is a claim moved between cases, decided against the wrong criteria.
    said = str(data.get("nodeid") or where.nodeid)
    if data.get("file", file) != file or data.get("case", case) != case or said != where.nodeid:
        raise ValueError(f"the claim {said} is not one of {file}::{case}")
    expect = data.get("expect")
    found = ClaimResult(
        where=where,
        text=str(data["claim"]),
        status=status,
        label=Label(label) if label is not None else None,
        decision=Decision(data.get("decision") or Decision.PASS),
        citations=tuple(CitationVerdict.from_dict(c) for c in data.get("citations") or ()),
        failures=tuple(_failure(f) for f in data.get("failures") or ()),
        unchecked=tuple(_unchecked(u) for u in data.get("unchecked") or ()),
        markers=_names(data, "markers"),
        topic=data.get("topic"),
        general=bool(data.get("general")),
        expect=Label(expect).value if expect is not None else None,
        derived=bool(data.get("derived")),
        problems=_names(data, "problems"),
        unrecorded=bool(data.get("unrecorded")),
        over_budget=bool(data.get("over_budget")),
        joint_support=_names(data, "joint_support"),
        misattributed_to=_names(data, "misattributed_to"),
        evidence=tuple(Evidence.from_dict(item) for item in data.get("evidence") or ()),
        baseline=_baseline(data.get("baseline")),
        answer_span=_span(data.get("answer_span")),
    )
    return clean(found)


def _span(data: Any) -> tuple[int, int] | None:
    """A claim's ``answer_span`` read back: two offsets, the start before the end."""
    if data is None:
        return None
    if (
        not isinstance(data, list | tuple)
        or len(data) != 2
        or not all(type(offset) is int for offset in data)
        or not 0 <= data[0] < data[1]
    ):
        raise ValueError(f"its answer_span {data!r} is not [start, end] of the answer")
    return int(data[0]), int(data[1])


def _failure(data: Any) -> Failure:
    if isinstance(data, str):  # a report of an earlier version: "criterion: message"
        criterion, _, message = data.partition(": ")
        return Failure(criterion, message)
    return Failure(str(data["criterion"]), str(data["message"]))


def _unchecked(data: Any) -> UncheckedCitation:
    if isinstance(data, str):  # a report of an earlier version: the line it showed
        return UncheckedCitation("unchecked", detail=data)
    return UncheckedCitation.from_dict(data)


def info_to_dict(info: CaseInfo) -> dict[str, Any]:
    """A case's own fields, as the JSON report writes them."""
    return {
        "file": info.file,
        "id": info.case,
        "line": info.line,
        "question": info.question,
        "answer": info.answer,
        "min_precision": info.min_precision,
        "criteria": dict(info.criteria),
        "retrieved_markers": dict(info.retrieved_markers),
    }


def info_from_dict(data: Mapping[str, Any]) -> CaseInfo:
    """Inverse of :func:`info_to_dict`; the case's own criteria checked (a threshold that
    is no fraction from 0 to 1 is a ValueError)."""
    own = data.get("criteria") or {}
    if not isinstance(own, Mapping):
        raise ValueError(f"the criteria of {data['file']}::{data['id']} are not an object")
    minimum = checked_criteria({"min_precision": data.get("min_precision")})["min_precision"]
    markers = data.get("retrieved_markers") or {}
    return clean(
        CaseInfo(
            str(data["file"]),
            str(data["id"]),
            int(data.get("line") or 0),
            _text_or_none(data, "question"),
            _text_or_none(data, "answer"),
            minimum,
            checked_criteria(own),
            {str(url): str(marker) for url, marker in markers.items()},
        )
    )


def _text_or_none(data: Mapping[str, Any], key: str) -> str | None:
    """A case's ``question`` or ``answer`` read back: text, or null."""
    value = data.get(key)
    if value is not None and not isinstance(value, str):
        raise ValueError(f"its {key} {value!r:.40} is not text")
    return value


__all__ = ["claim_from_dict", "claim_to_dict", "info_from_dict", "info_to_dict"]
