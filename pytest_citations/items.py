"""Case files as pytest nodes: a file, a collector per case, an item per claim and one that
checks the case's citation precision. Each item delegates to the shared runtime."""

from __future__ import annotations

import fnmatch
import json
import os
import re
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from .assertions import explain
from .baseline import side_by_side
from .cases import Case, CaseFileError, Claim, load_cases
from .errors import AuthenticationError, CitationsError
from .labels import Label
from .release import ClaimAssessment, decide_case
from .runtime import Runtime
from .verdicts import ClaimVerdict

RUNTIME_KEY = pytest.StashKey[Runtime]()
#: The record of a claim item, also put in ``user_properties`` (and so in junitxml).
RECORD_PROPERTY = "citations_claim"
#: The release decision of a case item.
CASE_PROPERTY = "citations_case"


class CitationCheckFailure(Exception):
    """A claim or case that fails its criteria; shown as plain text, no traceback."""


def _runtime(node: pytest.Item) -> Runtime:
    return node.config.stash[RUNTIME_KEY]


class CaseFile(pytest.File):
    """A YAML case file; parsing errors are collection errors naming file and line."""

    cases: list[Case]

    def collect(self) -> Iterator[pytest.Item | pytest.Collector]:
        self.cases = load_cases(self.path)
        for case in self.cases:
            yield CaseNode.from_parent(self, name=case.id, case=case)

    def repr_failure(  # type: ignore[override]
        self, excinfo: pytest.ExceptionInfo[BaseException]
    ) -> str | Any:
        if isinstance(excinfo.value, CaseFileError):
            error = excinfo.value
            where = self.nodeid + (f":{error.line}" if error.line else "")
            return f"{where}: {error.message}"
        return super().repr_failure(excinfo)


class CaseNode(pytest.Collector):
    """One case: its claims, then its precision check."""

    def __init__(self, *, case: Case, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.case = case

    def collect(self) -> Iterator[pytest.Item]:
        for claim in self.case.claims:
            yield ClaimItem.from_parent(self, name=claim.name, case=self.case, claim=claim)
        yield PrecisionItem.from_parent(self, name="precision", case=self.case)


class _CaseItem(pytest.Item):
    def __init__(self, *, case: Case, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.case = case

    @property
    def case_file(self) -> CaseFile:
        node = self.getparent(CaseFile)
        assert node is not None
        return node

    def results(self) -> dict[tuple[str, int], ClaimVerdict]:
        """Every verdict of this item's file (verified together on first use)."""
        runtime = _runtime(self)
        try:
            return runtime.file_results(self.case_file.path, self.case_file.cases)
        except AuthenticationError as error:
            self.session.shouldstop = str(error)
            raise CitationCheckFailure(str(error)) from None
        except CitationsError as error:
            raise CitationCheckFailure(str(error)) from None

    def repr_failure(
        self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None
    ) -> str | Any:
        if isinstance(excinfo.value, CitationCheckFailure):
            return str(excinfo.value)
        return super().repr_failure(excinfo, style=style)


class ClaimItem(_CaseItem):
    """Fails when the claim could not be checked, misses an acceptance criterion (a failing
    label, a forbidden contradicted topic, an untraceable figure, an uncited statement), or
    got worse than its baseline."""

    def __init__(self, *, claim: Claim, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.claim = claim

    def __repr__(self) -> str:
        markers = "".join(f"[{m}]" for m in self.claim.markers) or "uncited"
        return f"<ClaimItem {self.name} {self.claim.text!r} {markers}>"

    def runtest(self) -> None:
        runtime = _runtime(self)
        verdict = self.results()[(self.case.id, self.claim.index)]
        assessment = runtime.assess(self.case, self.claim, verdict)
        record = claim_record(self, assessment)
        change = runtime.baseline.compare(self.nodeid, record) if runtime.baseline else None
        if change is not None:
            record["baseline"] = {"change": change.kind, "old_label": change.old_label}
        self.user_properties.append((RECORD_PROPERTY, json.dumps(record, ensure_ascii=False)))
        self.stash[VERDICT_KEY] = verdict
        explanation = explain(verdict, self.claim.markers)
        extra = ""
        if verdict.joint_support:
            extra += "\n  supported jointly by: " + ", ".join(verdict.joint_support)
        if verdict.misattributed_to:
            markers = self.case.retrieved_markers
            extra += "\n  supported instead by the uncited source: " + ", ".join(
                (f"[{markers[url]}] " if url in markers else "") + url
                for url in verdict.misattributed_to
            )
        if verdict.problems:
            raise CitationCheckFailure(f"claim could not be checked\n{explanation}{extra}")
        messages = []
        for failure in assessment.failures:
            if failure.criterion == "fail_on":
                fail_on = ", ".join(runtime.options.criteria_for(self.case).fail_on)
                messages.append(f"claim is {verdict.label.value} (failing labels: {fail_on})")
            else:
                messages.append(f"claim fails {failure}")
        if change is not None and change.kind == "regression":
            messages.append(
                f"claim regressed against the baseline {runtime.options.baseline}\n"
                + side_by_side(change)
            )
        if messages:
            raise CitationCheckFailure("\n".join(messages) + f"\n{explanation}{extra}")

    def reportinfo(self) -> tuple[Any, int | None, str]:
        return self.path, self.claim.line - 1, f"{self.case.id}::{self.claim.name}"


class PrecisionItem(_CaseItem):
    """The case's release decision: fails when its citation precision or its share of fully
    supported claims is below the threshold (if one is set)."""

    def runtest(self) -> None:
        runtime = _runtime(self)
        results = self.results()
        assessments = [
            runtime.assess(self.case, claim, results[(self.case.id, claim.index)])
            for claim in self.case.claims
        ]
        criteria = runtime.options.criteria_for(self.case)
        decision = decide_case(
            assessments,
            [claim.name for claim in self.case.claims],
            [claim.general for claim in self.case.claims],
            criteria,
        )
        precision = decision.precision
        self.user_properties.append(
            ("citations_precision", f"{precision.supported}/{precision.total}")
        )
        self.user_properties.append(
            (
                CASE_PROPERTY,
                json.dumps(
                    {
                        "file": self.case_file.nodeid,
                        "case": self.case.id,
                        "decision": "pass" if decision.passed else "fail",
                        "failures": [str(failure) for failure in decision.failures],
                        "supported_share": [decision.share.supported, decision.share.total],
                    },
                    ensure_ascii=False,
                ),
            )
        )
        case_failures = [
            f for f in decision.failures if f.criterion in ("min_precision", "min_supported_share")
        ]
        if not case_failures:
            return
        lines = [f"case {self.case.id!r} fails {failure}" for failure in case_failures]
        if any(f.criterion == "min_precision" for f in case_failures):
            for claim, assessment in zip(self.case.claims, assessments, strict=True):
                for citation in assessment.verdict.citations:
                    if citation.label is not Label.SUPPORTED:
                        reason = f" ({citation.reason})" if citation.reason else ""
                        lines.append(
                            f"  {claim.name}: {citation.label.value:<12} {citation.url}{reason}"
                        )
        raise CitationCheckFailure("\n".join(lines))

    def reportinfo(self) -> tuple[Any, int | None, str]:
        return self.path, self.case.line - 1, f"{self.case.id}::precision"


VERDICT_KEY = pytest.StashKey[ClaimVerdict]()


def claim_record(item: ClaimItem, assessment: ClaimAssessment) -> dict[str, Any]:
    """Everything the summary and reports need about one claim, as plain JSON data."""
    case = item.case
    verdict = assessment.verdict
    claim = item.claim
    return {
        "nodeid": item.nodeid,
        "file": item.case_file.nodeid,
        "case": case.id,
        "question": case.question,
        "min_precision": case.min_precision,
        "index": item.claim.index,
        "line": item.claim.line,
        "claim": verdict.claim,
        "label": verdict.label.value,
        "markers": list(item.claim.markers),
        "citations": [citation.to_dict() for citation in verdict.citations],
        "problems": list(verdict.problems),
        "failures": [str(failure) for failure in assessment.failures],
        "topic": claim.topic,
        "general": claim.general,
        "expect": claim.expect,
        "derived": claim.derived,
        "joint_support": list(verdict.joint_support),
        "misattributed_to": list(verdict.misattributed_to),
        # The passages the judge saw, for reports that show a quote inside its passage.
        "evidence": [
            {"url": url, "passages": list(passages)} for url, passages in verdict.evidence
        ],
    }


#: The default of the ``citations_files`` ini key, as ``python_files`` is for modules.
DEFAULT_CASE_GLOBS = ("*.yaml", "*.yml")


def matches_any(path: Path, patterns: Sequence[str]) -> bool:
    """``python_files`` matching: a pattern without a ``/`` matches the file name, one with
    a ``/`` matches the end of the path."""
    for pattern in patterns:
        if "/" in pattern or os.sep in pattern:
            pattern = pattern if os.path.isabs(pattern) else f"*{os.sep}{pattern}"
            if fnmatch.fnmatch(str(path), pattern.replace("/", os.sep)):
                return True
        elif fnmatch.fnmatch(path.name, pattern):
            return True
    return False


class CollectionErrors:
    """Lets the run go on after collection errors only when every one came from a case
    file, so that ``--citations`` never changes how a broken Python module is handled."""

    def __init__(self) -> None:
        self.case_files: set[str] = set()
        self.other_errors = 0

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        """Count a collection error that no case file caused."""
        if report.failed and not self._in_case_file(report.nodeid):
            self.other_errors += 1

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtestloop(self, session: pytest.Session) -> None:
        """Before pytest decides to stop on collection errors: go on if all were ours."""
        if session.testsfailed and not self.other_errors:
            session.config.option.continue_on_collection_errors = True

    def _in_case_file(self, nodeid: str) -> bool:
        return nodeid in self.case_files or nodeid.split("::", 1)[0] in self.case_files


def looks_like_cassette(text: str) -> bool:
    """A vcrpy cassette: top-level ``interactions:`` and ``version:`` keys."""
    return bool(_CASSETTE_KEY.search(text)) and bool(_VERSION_KEY.search(text))


_CASSETTE_KEY = re.compile(r"^interactions:", re.MULTILINE)
_VERSION_KEY = re.compile(r"^version:", re.MULTILINE)
