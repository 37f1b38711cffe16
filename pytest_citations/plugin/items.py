"""Case files as pytest nodes: a file, a collector per case, an item per claim and one that
reports the case's release decision. Items take their result from the session, report it,
and end as its decision says (a pure function of it: ``fail`` fails the item,
``incomplete`` is an error in setup, ``pass`` passes); they decide nothing themselves."""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from typing import Any

import pytest

from ..cases import Case, CaseFileError, Claim, load_cases
from ..cases.tags import refused_tag
from ..gating.criteria import Decision
from ..gating.deciding import FileResult
from ..gating.messages import case_message, claim_message
from ..gating.result import PRECISION_ITEM, Location
from ..gating.run_result import FileError
from ..reports.junit_report import case_properties, claim_properties
from ..sanitize import strip_controls
from .printing import printed
from .results import PROBLEMS_KEY, ItemResult, publish
from .session import FileNotVerified, session_of

#: The marker of every case-file item (``-m citations`` / ``-m "not citations"``).
CASE_MARKER = "citations"
#: How many ``markers`` lines the ini file declared: every line after them was registered by
#: code (a plugin or a conftest), and such a mark may act on an item.
DECLARED_MARKS_KEY = pytest.StashKey[int]()


def note_declared_marks(config: pytest.Config) -> None:
    """Remember the ini file's own ``markers`` (call before any plugin registers one)."""
    config.stash[DECLARED_MARKS_KEY] = len(config.getini("markers"))


def registered_marks(config: pytest.Config) -> frozenset[str]:
    """The marks that plugins and conftests registered (ours excepted)."""
    lines = config.getini("markers")[config.stash.get(DECLARED_MARKS_KEY, 0) :]
    names = {str(line).split(":", 1)[0].split("(", 1)[0].strip() for line in lines}
    return frozenset(names - {CASE_MARKER})


class CitationCheckFailure(Exception):
    """A claim or case that fails its criteria; shown as plain text, no traceback."""


class CaseFile(pytest.File):
    """A YAML case file, read once (``data``: its bytes, as collection read them to tell it
    is a case file); parsing errors are collection errors naming file and line."""

    cases: list[Case]

    def __init__(self, *, data: bytes | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.data = data

    def _text(self) -> str | None:
        """The file's text (None: it could not be read, which reading it again reports)."""
        try:
            return self.data.decode("utf-8") if self.data is not None else None
        except UnicodeDecodeError as error:
            raise CaseFileError(self.path, 0, f"cannot read the file: {error}") from None

    def collect(self) -> Iterator[pytest.Item | pytest.Collector]:
        try:
            self.cases = load_cases(self.path, self._text())
            self.data = None  # read: the cases hold what the run needs of it
            for case in self.cases:
                yield CaseNode.from_parent(self, name=case.id, case=case)
        except CaseFileError as error:  # each problem at its line, for the annotations
            self.stash[PROBLEMS_KEY] = [
                (line, strip_controls(text)) for line, text in error.problems
            ]
            raise
        except Exception as error:  # still a case file that was not collected: never a pass
            self.stash[PROBLEMS_KEY] = [(0, strip_controls(f"{type(error).__name__}: {error}"))]
            raise

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
        self.add_marker(CASE_MARKER)
        for tag in case.tags:
            self._tag(tag)

    def _tag(self, tag: str) -> None:
        """A tag becomes a marker as ``@pytest.mark.<tag>`` would: unknown under
        ``--strict-markers`` fails with pytest's message, otherwise a warning that points at
        the case file (not here). A mark with behaviour (pytest's own, or one that a plugin
        or conftest registered) is refused: a case never skips or excuses its own checks."""
        refused = refused_tag(tag, registered_marks(self.config))
        if refused is not None:
            raise CaseFileError(self.path, self.case.tags_line or self.case.line, refused)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", pytest.PytestUnknownMarkWarning)
            try:
                marker = getattr(pytest.mark, tag)
            except AttributeError as error:  # "_private": pytest refuses such a name
                raise CaseFileError(self.path, self.case.line, f"tag {tag!r}: {error}") from None
        if any(issubclass(w.category, pytest.PytestUnknownMarkWarning) for w in caught):
            warning = pytest.PytestUnknownMarkWarning(
                printed(
                    f"unknown tag {tag!r} of the case {self.case.id!r}: declare it under "
                    "'markers' in the ini file (it is a pytest marker; -m selects it)"
                )
            )
            warnings.warn_explicit(warning, None, str(self.path), self.case.line)
        self.add_marker(marker)

    def collect(self) -> Iterator[pytest.Item]:
        try:
            for claim in self.case.claims:
                yield ClaimItem.from_parent(self, name=claim.name, case=self.case, claim=claim)
            yield PrecisionItem.from_parent(self, name=PRECISION_ITEM, case=self.case)
        except Exception as error:  # its case file was not collected whole: never a pass
            said = strip_controls(f"{type(error).__name__}: {error}")
            self.stash[PROBLEMS_KEY] = [(self.case.line, said)]
            raise


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

    @property
    def where(self) -> Location:
        """Where this item is: its case file as node ids name it, its case, its name, line."""
        return Location(self.case_file.nodeid, self.case.id, self.name, self.case.line)

    def _decided(self) -> FileResult | None:
        """This file's results; a file that could not be verified is an error of the item
        (and a refused account stops the run)."""
        file = self.case_file
        try:
            return session_of(self.config).file_result(file.path, file.nodeid, file.cases)
        except FileNotVerified as error:
            if error.stop:
                self.session.shouldstop = printed(str(error))
            said = strip_controls(str(error))
            first = said.strip().splitlines()[0] if said.strip() else ""
            found = FileError(file.nodeid, first, True, message=said, items=(self.where,))
            publish(self, ItemResult(file_error=found))
            self._failure = str(error)
            return None

    def _end(self, decision: Decision | None, message: str | None) -> None:
        """End as ``decision`` (one that is not a pass) says: an error here, in setup, when it
        is ``incomplete`` (so that pytest reports ERROR rather than FAILED), a failure in
        runtest when it is ``fail``."""
        if decision is Decision.INCOMPLETE:
            pytest.fail(strip_controls(message or "could not be decided"), pytrace=False)
        if decision is Decision.FAIL:
            self._failure = message or "failed"

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

    @property
    def where(self) -> Location:
        """Where this claim is: its case file, case, name, line and index."""
        claim = self.claim
        return Location(self.case_file.nodeid, self.case.id, claim.name, claim.line, claim.index)

    def setup(self) -> None:
        """Verify the file (once) and report this claim, ending as its decision says."""
        decided = self._decided()
        if decided is None:
            return
        claim = decided.claims[(self.case.id, self.claim.index)]
        case = decided.cases[self.case.id]
        session = session_of(self.config)
        path = self.case_file.path
        found = ItemResult(
            case=case.info,
            claim=claim,
            seconds=session.claim_seconds(path, self.case.id, self.claim.index),
            waited=session.take_wait(path),
        )
        publish(self, found)
        self.user_properties += claim_properties(claim)
        if claim.decision is not Decision.PASS:  # a passing item has nothing to say
            self._end(claim.decision, claim_message(claim, case))

    def reportinfo(self) -> tuple[Any, int | None, str]:
        return self.path, self.claim.line - 1, f"{self.case.id}::{self.claim.name}"


class PrecisionItem(_CaseItem):
    """The case's release decision: fails when its citation precision or its share of fully
    supported claims is below the threshold (if one is set); an error when only citations
    that could not be checked stand between the case and its threshold."""

    def setup(self) -> None:
        """Report the case's decision; an undecided threshold is an error here, in setup."""
        decided = self._decided()
        if decided is None:
            return
        case = decided.cases[self.case.id]
        waited = session_of(self.config).take_wait(self.case_file.path)
        publish(self, ItemResult(case=case.info, decided=True, waited=waited, decision=case))
        self.user_properties += case_properties(case)
        if case.item is not Decision.PASS:  # a passing item has nothing to say
            self._end(case.item, case_message(case))

    def reportinfo(self) -> tuple[Any, int | None, str]:
        return self.path, self.case.line - 1, f"{self.case.id}::{PRECISION_ITEM}"
