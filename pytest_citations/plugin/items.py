"""Case files as pytest nodes: a file, a collector per case, an item per claim and one that
reports the case's release decision. Items take their outcome from the session and report
it; they decide nothing themselves."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from ..cases import Case, CaseFileError, Claim, load_cases
from ..sanitize import strip_controls
from .outcomes import CaseResult, ClaimOutcome
from .session import FileNotVerified, session_of

#: The record of a claim item, also put in ``user_properties`` (and so in junitxml).
RECORD_PROPERTY = "citations_claim"
#: The release decision of a case item.
CASE_PROPERTY = "citations_case"
#: A case file that could not be verified at all (a refused token, an unreadable cassette).
FILE_ERROR_PROPERTY = "citations_file_error"


class CitationCheckFailure(Exception):
    """A claim or case that fails its criteria; shown as plain text, no traceback."""


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
            # Every problem of the file, each on its line: fixed in one pass.
            return strip_controls("\n".join(excinfo.value.lines(self.nodeid)))
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
        #: What fails the item: found in setup, raised in runtest.
        self._failure: str | None = None

    @property
    def case_file(self) -> CaseFile:
        node = self.getparent(CaseFile)
        assert node is not None
        return node

    def _outcome_or_failure(self) -> Any:
        """This file's outcome; a file that could not be verified fails the item (and a
        refused account stops the run)."""
        file = self.case_file
        try:
            return session_of(self.config).outcome(file.path, file.nodeid, file.cases)
        except FileNotVerified as error:
            if error.stop:
                self.session.shouldstop = str(error)
            first = str(error).strip().splitlines()[0] if str(error).strip() else ""
            why = json.dumps({"file": file.nodeid, "why": first})
            self.user_properties.append((FILE_ERROR_PROPERTY, why))
            self._failure = str(error)
            return None

    def runtest(self) -> None:
        if self._failure is not None:
            raise CitationCheckFailure(self._failure)

    def repr_failure(
        self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None
    ) -> str | Any:
        if isinstance(excinfo.value, CitationCheckFailure):
            return strip_controls(str(excinfo.value))
        return super().repr_failure(excinfo, style=style)


class ClaimItem(_CaseItem):
    """An error when a citation could not be checked (unless the run allows it); fails when
    the claim misses an acceptance criterion or got worse than its baseline."""

    def __init__(self, *, claim: Claim, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.claim = claim

    def __repr__(self) -> str:
        markers = "".join(f"[{m}]" for m in self.claim.markers) or "uncited"
        return f"<ClaimItem {self.name} {self.claim.text!r} {markers}>"

    def setup(self) -> None:
        """Verify the file (once) and report this claim; a claim that could not be checked
        is an error here, in setup, so that pytest reports ERROR rather than FAILED."""
        outcome = self._outcome_or_failure()
        if outcome is None:
            return
        claim: ClaimOutcome = outcome.claims[(self.case.id, self.claim.index)]
        record = json.dumps(claim.record.to_dict(), ensure_ascii=False)
        self.user_properties.append((RECORD_PROPERTY, record))
        if claim.error is not None:
            pytest.fail(strip_controls(claim.error), pytrace=False)
        self._failure = claim.failure

    def reportinfo(self) -> tuple[Any, int | None, str]:
        return self.path, self.claim.line - 1, f"{self.case.id}::{self.claim.name}"


class PrecisionItem(_CaseItem):
    """The case's release decision: fails when its citation precision or its share of fully
    supported claims is below the threshold (if one is set); an error when only citations
    that could not be checked stand between the case and its threshold."""

    def setup(self) -> None:
        """Report the case's decision; an undecided threshold is an error here, in setup."""
        outcome = self._outcome_or_failure()
        if outcome is None:
            return
        case: CaseResult = outcome.cases[self.case.id]
        self.user_properties.append(("citations_precision", case.precision))
        self.user_properties.append(
            (CASE_PROPERTY, json.dumps(case.outcome.to_dict(), ensure_ascii=False))
        )
        if case.error is not None:
            pytest.fail(strip_controls(case.error), pytrace=False)
        self._failure = case.failure

    def reportinfo(self) -> tuple[Any, int | None, str]:
        return self.path, self.case.line - 1, f"{self.case.id}::precision"
