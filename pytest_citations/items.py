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
from .cases import Case, CaseFileError, Claim, load_cases
from .errors import AccountError, CitationsError
from .gating.baseline import side_by_side
from .gating.criteria import ClaimAssessment, decide_case
from .labels import Label
from .runtime import Runtime
from .sanitize import clean, strip_controls
from .verdicts import ClaimVerdict

RUNTIME_KEY = pytest.StashKey[Runtime]()
#: The record of a claim item, also put in ``user_properties`` (and so in junitxml).
RECORD_PROPERTY = "citations_claim"
#: The release decision of a case item.
CASE_PROPERTY = "citations_case"
#: A case file that could not be verified at all (a refused token, an unreadable cassette).
FILE_ERROR_PROPERTY = "citations_file_error"


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
            return strip_controls(f"{where}: {error.message}")
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
        #: Why the file could not be verified at all: the item fails with it in runtest.
        self._error: CitationCheckFailure | None = None
        #: What fails the item, found in setup, raised in runtest.
        self._messages: list[str] = []

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
        except AccountError as error:  # a refused token, an account out of credits
            self.session.shouldstop = str(error)
            raise CitationCheckFailure(str(error)) from None
        except CitationsError as error:
            raise CitationCheckFailure(str(error)) from None

    def _raise_file_error(self) -> None:
        """Fail with why the whole file could not be verified, and tell the summary, so
        that the release decision cannot say pass for a file nobody checked."""
        if self._error is None:
            return
        first = str(self._error).strip().splitlines()[0] if str(self._error).strip() else ""
        self.user_properties.append(
            (FILE_ERROR_PROPERTY, json.dumps({"file": self.case_file.nodeid, "why": first}))
        )
        raise self._error

    def repr_failure(
        self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None
    ) -> str | Any:
        if isinstance(excinfo.value, CitationCheckFailure):
            return strip_controls(str(excinfo.value))
        return super().repr_failure(excinfo, style=style)


class ClaimItem(_CaseItem):
    """An error when a citation could not be checked (unless the run allows it); fails when
    the claim misses an acceptance criterion (a failing label, a forbidden contradicted topic,
    an untraceable figure, an uncited statement) or got worse than its baseline."""

    def __init__(self, *, claim: Claim, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.claim = claim

    def __repr__(self) -> str:
        markers = "".join(f"[{m}]" for m in self.claim.markers) or "uncited"
        return f"<ClaimItem {self.name} {self.claim.text!r} {markers}>"

    def setup(self) -> None:
        """Verify the file (once) and judge this claim; a claim that could not be checked
        is an error here, in setup, so that pytest reports ERROR rather than FAILED."""
        runtime = _runtime(self)
        try:
            verdict = self.results()[(self.case.id, self.claim.index)]
        except CitationCheckFailure as error:
            self._error = error  # the run could not verify the file: runtest fails with it
            return
        assessment = runtime.assess(self.case, self.claim, verdict)
        record = claim_record(self, assessment)
        change = None
        if runtime.baseline and not assessment.incomplete:
            change = runtime.baseline.compare(self.nodeid, record)
        if change is not None:
            record["baseline"] = {"change": change.kind, "old_label": change.old_label}
        self.user_properties.append((RECORD_PROPERTY, json.dumps(record, ensure_ascii=False)))
        self.stash[VERDICT_KEY] = verdict
        explanation = explain(verdict, self.claim.markers) + self._notes(verdict)
        if assessment.incomplete:
            pytest.fail(
                strip_controls(unchecked_message(verdict, assessment.unchecked, explanation)),
                pytrace=False,
            )
        for failure in assessment.failures:
            if failure.criterion == "fail_on":
                fail_on = ", ".join(runtime.options.criteria_for(self.case).fail_on)
                self._messages.append(f"claim is {verdict.label.value} (failing labels: {fail_on})")
            else:
                self._messages.append(f"claim fails {failure}")
        if change is not None and change.kind == "regression":
            self._messages.append(
                f"claim regressed against the baseline {runtime.options.baseline}\n"
                + side_by_side(change)
            )
        if self._messages and assessment.unchecked:
            self._messages.append(
                f"also not checked: {len(assessment.unchecked)} of {len(verdict.citations)} "
                "citations\n" + "\n".join(f"  {line}" for line in assessment.unchecked)
            )
        if self._messages:
            self._messages.append(explanation)

    def runtest(self) -> None:
        self._raise_file_error()
        if self._messages:
            raise CitationCheckFailure("\n".join(self._messages))

    def _notes(self, verdict: ClaimVerdict) -> str:
        extra = ""
        if verdict.joint_support:
            extra += "\n  supported jointly by: " + ", ".join(verdict.joint_support)
        if verdict.misattributed_to:
            markers = self.case.retrieved_markers
            extra += "\n  supported instead by the uncited source: " + ", ".join(
                (f"[{markers[url]}] " if url in markers else "") + url
                for url in verdict.misattributed_to
            )
        return extra

    def reportinfo(self) -> tuple[Any, int | None, str]:
        return self.path, self.claim.line - 1, f"{self.case.id}::{self.claim.name}"


class PrecisionItem(_CaseItem):
    """The case's release decision: fails when its citation precision or its share of fully
    supported claims is below the threshold (if one is set); an error when only citations
    that could not be checked stand between the case and its threshold."""

    def setup(self) -> None:
        """Decide the case; a threshold that unchecked citations could still meet is an
        error here, in setup."""
        runtime = _runtime(self)
        try:
            results = self.results()
        except CitationCheckFailure as error:
            self._error = error  # the run could not verify the file: runtest fails with it
            return
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
                        "decision": decision.decision,
                        "failures": [str(failure) for failure in decision.failures],
                        "incomplete": decision.incomplete_reasons(),
                        "supported_share": [decision.share.supported, decision.share.total],
                    },
                    ensure_ascii=False,
                ),
            )
        )
        case_failures = [
            f for f in decision.failures if f.criterion in ("min_precision", "min_supported_share")
        ]
        if case_failures:
            lines = [f"case {self.case.id!r} fails {failure}" for failure in case_failures]
            if any(f.criterion == "min_precision" for f in case_failures):
                lines += _non_supported(self.case, assessments)
            self._messages = lines
        elif decision.undecided:
            lines = [
                f"case {self.case.id!r} could not be decided: {failure}"
                for failure in decision.undecided
            ]
            lines += _non_supported(self.case, assessments)
            lines.append(ALLOW_UNCHECKED_HINT)
            pytest.fail(strip_controls("\n".join(lines)), pytrace=False)

    def runtest(self) -> None:
        self._raise_file_error()
        if self._messages:
            raise CitationCheckFailure("\n".join(self._messages))

    def reportinfo(self) -> tuple[Any, int | None, str]:
        return self.path, self.case.line - 1, f"{self.case.id}::precision"


def _non_supported(case: Case, assessments: list[ClaimAssessment]) -> list[str]:
    lines = []
    for claim, assessment in zip(case.claims, assessments, strict=True):
        for citation in assessment.verdict.citations:
            if citation.label is not Label.SUPPORTED:
                reason = f" ({citation.reason})" if citation.reason else ""
                lines.append(f"  {claim.name}: {citation.label.value:<12} {citation.url}{reason}")
    return lines


#: The next step after an unchecked citation, in every message that reports one.
ALLOW_UNCHECKED_HINT = (
    "Fix the cause and run again; to count unchecked citations as their labels instead, "
    "pass --citations-allow-unchecked (ini: citations_allow_unchecked = true)."
)


def unchecked_message(verdict: ClaimVerdict, unchecked: Sequence[str], explanation: str) -> str:
    """The message of a claim that could not be checked: which citations and why, the
    verdict as far as it got, and the opt-out."""
    lines = [
        f"claim could not be checked: {len(verdict.unchecked) or len(unchecked)} of "
        f"{len(verdict.citations)} citations unchecked",
        *(f"  {line}" for line in unchecked),
        explanation,
        ALLOW_UNCHECKED_HINT,
    ]
    return "\n".join(lines)


VERDICT_KEY = pytest.StashKey[ClaimVerdict]()


def claim_record(item: ClaimItem, assessment: ClaimAssessment) -> dict[str, Any]:
    """Everything the summary and reports need about one claim, as plain JSON data, with
    terminal control sequences removed from everything a page could have put there."""
    record: dict[str, Any] = clean(_raw_record(item, assessment))
    return record


def _raw_record(item: ClaimItem, assessment: ClaimAssessment) -> dict[str, Any]:
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
        "decision": assessment.decision,
        "unchecked": list(assessment.unchecked),
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


#: How the header names the scheduling that keeps each case file on one xdist worker.
CASE_FILE_SCHEDULING = "loadcasefile"


def case_file_scheduler(config: pytest.Config, log: Any, patterns: Sequence[str]) -> Any:
    """xdist's ``load`` scheduling, except that the items of one case file are one unit of
    work, sent to one worker: a worker verifies the whole file on its first item, so a file
    split across two workers would be fetched and judged twice. Python tests stay
    distributed one by one. Needs pytest-xdist (imported here, only when it runs)."""
    # xdist ships no type information; the subclass overrides one documented method.
    from xdist.scheduler import (  # type: ignore[import-untyped,import-not-found,unused-ignore]
        LoadScopeScheduling,
    )

    root = config.rootpath

    class CaseFileScheduling(LoadScopeScheduling):  # type: ignore[misc]
        def _split_scope(self, nodeid: str) -> str:
            path = nodeid.split("::", 1)[0]
            # Node ids are relative to the rootdir; patterns with a "/" match full paths.
            return path if matches_any(root / path, patterns) else nodeid

    return CaseFileScheduling(config, log)


def looks_like_cassette(text: str) -> bool:
    """A vcrpy cassette: top-level ``interactions:`` and ``version:`` keys."""
    return bool(_CASSETTE_KEY.search(text)) and bool(_VERSION_KEY.search(text))


_CASSETTE_KEY = re.compile(r"^interactions:", re.MULTILINE)
_VERSION_KEY = re.compile(r"^version:", re.MULTILINE)
