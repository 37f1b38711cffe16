"""The run's results: claim records in, summary lines and the JSON report out. No I/O here
beyond what a caller asks for, and no pytest: records arrive as plain dicts, so results from
xdist workers merge like local ones."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .aggregate import Precision
from .gating.criteria import Share
from .labels import Label, is_unchecked
from .verdicts import Usage

LABEL_ORDER = [label.value for label in Label]
#: Citation labels worth a line in the summary even when nothing fails.
UNVERIFIED = frozenset({Label.NOT_FOUND.value, Label.UNREACHABLE.value})


@dataclass
class CaseRecord:
    """A case and the records of its claims."""

    file: str
    case_id: str
    question: str | None = None
    min_precision: float | None = None
    claims: list[dict[str, Any]] = field(default_factory=list)
    decision: str | None = None
    failures: list[str] = field(default_factory=list)
    #: Why the case could not be decided (claims not checked, thresholds not decided).
    incomplete: list[str] = field(default_factory=list)

    @property
    def key(self) -> str:
        """``file::case`` as in node ids."""
        return f"{self.file}::{self.case_id}"

    @property
    def precision(self) -> Precision:
        """Citation precision over this case's claim–URL pairs."""
        return Precision.of(
            Label(citation["label"]) for claim in self.claims for citation in claim["citations"]
        )

    def label_counts(self) -> dict[str, int]:
        """Claims per claim label."""
        counts = dict.fromkeys(LABEL_ORDER, 0)
        for claim in self.claims:
            counts[claim["label"]] = counts.get(claim["label"], 0) + 1
        return counts

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: the case, its precision and every claim with its verdicts."""
        precision = self.precision
        return {
            "file": self.file,
            "id": self.case_id,
            "question": self.question,
            "min_precision": self.min_precision,
            "citation_precision": precision.citation,
            "reachable_precision": precision.reachable_precision,
            "supported_share": supported_share(self.claims).value,
            "release": {
                "decision": self.decision,
                "failures": self.failures,
                "incomplete": self.incomplete,
            },
            "claims": self.claims,
        }


class RunReport:
    """Accumulates claim records (from this process or from xdist workers)."""

    def __init__(self) -> None:
        self._cases: dict[str, CaseRecord] = {}
        self.usage = Usage()
        #: Case files that could not be verified at all: file → why (first line).
        self.file_errors: dict[str, str] = {}

    def add_file_error(self, record: dict[str, Any]) -> None:
        """A case file whose items could not be verified (a refused token, a damaged
        cassette): the run's decision cannot be pass."""
        self.file_errors.setdefault(str(record["file"]), str(record.get("why") or ""))

    def add_claim(self, record: dict[str, Any]) -> None:
        """Add one claim record (see :func:`claim_record`); a repeat of a node id replaces it."""
        case = self._case(record["file"], record["case"], record.get("question"))
        if record.get("min_precision") is not None:
            case.min_precision = record["min_precision"]
        case.claims = [claim for claim in case.claims if claim["nodeid"] != record["nodeid"]]
        case.claims.append(record)
        case.claims.sort(key=lambda claim: claim["index"])

    def add_case(self, record: dict[str, Any]) -> None:
        """Add a case item's release decision."""
        case = self._case(record["file"], record["case"], None)
        case.decision = record["decision"]
        case.failures = list(record["failures"])
        case.incomplete = list(record.get("incomplete") or [])

    def _case(self, file: str, case_id: str, question: str | None) -> CaseRecord:
        key = f"{file}::{case_id}"
        if key not in self._cases:
            self._cases[key] = CaseRecord(file, case_id, question)
        return self._cases[key]

    @property
    def cases(self) -> list[CaseRecord]:
        """Cases sorted by file, then by their order in the file (the same under xdist)."""
        return sorted(self._cases.values(), key=lambda case: (case.file, _first_line(case)))

    @property
    def claims(self) -> list[dict[str, Any]]:
        """Every claim record, in case order."""
        return [claim for case in self.cases for claim in case.claims]

    @property
    def supported_share(self) -> Share:
        """The suite's share of fully supported claims (004, C7)."""
        return supported_share(self.claims)

    def release_lines(
        self, run_failures: Iterable[str], run_incomplete: Iterable[str] = ()
    ) -> list[str]:
        """The release decision per case and for the run, with the criterion that failed.
        A failure wins over ``incomplete`` (something could not be checked), which wins
        over ``pass``."""
        lines = []
        failed: list[str] = []
        incomplete: list[str] = []
        for case in self.cases:
            if case.decision is None:
                continue
            share = supported_share(case.claims)
            shown = f"{case.key}: fully supported {share.supported} of {share.total}; "
            if case.decision == "fail":
                failed.append(f"{case.key}: {case.failures[0]}")
                lines.append(shown + f"release decision: fail ({case.failures[0]})")
            elif case.decision == "incomplete":
                why = case.incomplete[0] if case.incomplete else "not every citation was checked"
                incomplete.append(f"{case.key}: {why}")
                lines.append(shown + f"release decision: incomplete ({why})")
            else:
                lines.append(shown + "release decision: pass")
        failed += list(run_failures)
        incomplete += [f"{file}: not verified ({why})" for file, why in self.file_errors.items()]
        incomplete += list(run_incomplete)
        for decision, reasons in (("fail", failed), ("incomplete", incomplete)):
            if reasons:
                more = f" and {len(reasons) - 1} more" if len(reasons) > 1 else ""
                lines.append(f"Release decision: {decision} ({reasons[0]}{more})")
                return lines
        if lines:
            lines.append("Release decision: pass")
        return lines

    def unchecked(self) -> tuple[int, int]:
        """(citations, claims) left unchecked, where the run did not allow it: what could
        still change the suite's precision and supported share."""
        open_claims = [claim for claim in self.claims if claim.get("unchecked")]
        citations = sum(
            1
            for claim in open_claims
            for citation in claim["citations"]
            if is_unchecked(citation.get("reason"))
        )
        claims = sum(
            1
            for claim in open_claims
            if not claim.get("failures") and claim["label"] != Label.SUPPORTED.value
        )
        return citations, claims

    def incomplete_claims(self) -> list[str]:
        """Node ids of the claims that could not be checked (and did not fail anyway)."""
        return [c["nodeid"] for c in self.claims if c.get("decision") == "incomplete"]

    @property
    def precision(self) -> Precision:
        """The suite's citation precision."""
        total = Precision(0, 0, 0)
        for case in self._cases.values():
            total = total + case.precision
        return total

    def __bool__(self) -> bool:
        return bool(self._cases) or bool(self.file_errors)

    def unverified(self) -> list[tuple[str, dict[str, Any]]]:
        """(claim node id, citation) for every not_found or unreachable citation."""
        return [
            (claim["nodeid"], citation)
            for case in self._cases.values()
            for claim in case.claims
            for citation in claim["citations"]
            if citation["label"] in UNVERIFIED
        ]

    def table_lines(self) -> list[str]:
        """One row per case: claims, claim labels, precision, reachable precision."""
        header = ["case", "claims", *LABEL_ORDER, "precision", "reachable"]
        rows = [header]
        for case in self.cases:
            precision = case.precision
            counts = case.label_counts()
            rows.append(
                [
                    case.key,
                    str(len(case.claims)),
                    *(str(counts[label]) for label in LABEL_ORDER),
                    _fraction(precision.citation, precision.supported, precision.total),
                    _fraction(
                        precision.reachable_precision, precision.supported, precision.reachable
                    ),
                ]
            )
        widths = [max(len(row[i]) for row in rows) for i in range(len(header))]
        return [
            "  ".join(
                cell.ljust(widths[i]) if i == 0 else cell.rjust(widths[i])
                for i, cell in enumerate(row)
            ).rstrip()
            for row in rows
        ]

    def claims_for_csv(self) -> list[dict[str, Any]]:
        """Claim records with their case key, for the CSV report."""
        return [{**claim, "case_key": case.key} for case in self.cases for claim in case.claims]

    def usage_line(self) -> str:
        """Credits by kind and judge tokens spent by this run (0 on a replay), and what a
        replay saved."""
        usage = self.usage
        kinds = credits_by_kind(usage)
        return (
            f"crawlbase_credits={usage.credits:g} (normal {kinds['normal']:g}, "
            f"javascript {kinds['javascript']:g}, storage {kinds['storage']:g}); "
            f"judge_calls={usage.judge_calls} judge_tokens={usage.judge_tokens}"
            + (
                f"; replayed: {usage.replayed_crawls} crawls ({usage.replayed_credits:g} credits "
                f"saved), {usage.replayed_judge_calls} judge calls "
                f"({usage.replayed_judge_tokens} tokens saved)"
                if usage.replayed_crawls or usage.replayed_judge_calls
                else ""
            )
        )

    def to_dict(self) -> dict[str, Any]:
        """The JSON report: every case with its claims, and a summary."""
        precision = self.precision
        return {
            "summary": {
                "cases": len(self._cases),
                "claims": sum(len(case.claims) for case in self._cases.values()),
                "citations": precision.total,
                "supported": precision.supported,
                "reachable": precision.reachable,
                "citation_precision": precision.citation,
                "reachable_precision": precision.reachable_precision,
                "supported_share": self.supported_share.value,
                "usage": {**self.usage.to_dict(), "credits_by_kind": credits_by_kind(self.usage)},
            },
            "cases": [case.to_dict() for case in self.cases],
        }

    def write_json(self, path: Path) -> None:
        """Write :meth:`to_dict` as indented, key-stable JSON."""
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(self.to_dict(), indent=2, ensure_ascii=False) + "\n", "utf-8")


def _fraction(value: float | None, numerator: int, denominator: int) -> str:
    shown = "n/a" if value is None else f"{value:.4f}"
    return f"{shown} ({numerator}/{denominator})"


def credits_by_kind(usage: Usage) -> dict[str, float]:
    """Crawlbase credits spent per kind: normal 1, JavaScript 2, storage 0.5 a page."""
    return {
        "normal": float(usage.normal_crawls),
        "javascript": 2.0 * usage.javascript_crawls,
        "storage": 0.5 * usage.stored_pages,
    }


def merge_usage(target: Usage, data: dict[str, Any]) -> None:
    """Add a usage dict (as :meth:`Usage.to_dict` gives) to ``target``."""
    fields = {name: data[name] for name in Usage.__dataclass_fields__ if name in data}
    target.add(Usage(**fields))


def supported_share(records: Iterable[dict[str, Any]]) -> Share:
    """Fully supported claims over all claims except uncited general phrasing."""
    counted = [r for r in records if not (r["label"] == Label.UNCITED.value and r.get("general"))]
    return Share(sum(r["label"] == Label.SUPPORTED.value for r in counted), len(counted))


def _first_line(case: CaseRecord) -> int:
    return min((claim.get("line", 0) for claim in case.claims), default=0)
