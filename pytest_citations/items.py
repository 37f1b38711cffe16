"""Case files as pytest nodes: a file, a collector per case, an item per claim and one that
checks the case's citation precision. Each item delegates to the shared runtime."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import pytest

from .aggregate import Precision
from .assertions import explain
from .cases import Case, CaseFileError, Claim, load_cases
from .errors import AuthenticationError, CitationsError
from .labels import Label
from .runtime import Runtime
from .verdicts import ClaimVerdict

RUNTIME_KEY = pytest.StashKey[Runtime]()
#: The record of a claim item, also put in ``user_properties`` (and so in junitxml).
RECORD_PROPERTY = "citations_claim"


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
    """Passes unless the claim's label is one the run fails on, or it could not be checked."""

    def __init__(self, *, claim: Claim, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.claim = claim

    def runtest(self) -> None:
        verdict = self.results()[(self.case.id, self.claim.index)]
        record = claim_record(self, verdict)
        self.user_properties.append((RECORD_PROPERTY, json.dumps(record, ensure_ascii=False)))
        self.stash[VERDICT_KEY] = verdict
        explanation = explain(verdict, self.claim.markers)
        if verdict.problems:
            raise CitationCheckFailure(f"claim could not be checked\n{explanation}")
        fail_on = _runtime(self).options.fail_on
        if verdict.label.value in fail_on:
            raise CitationCheckFailure(
                f"claim is {verdict.label.value} (failing labels: {', '.join(fail_on)})\n"
                f"{explanation}"
            )

    def reportinfo(self) -> tuple[Any, int | None, str]:
        return self.path, self.claim.line - 1, f"{self.case.id}::{self.claim.name}"


class PrecisionItem(_CaseItem):
    """Fails when the case's citation precision is below its threshold (if one is set)."""

    def runtest(self) -> None:
        results = self.results()
        verdicts = [results[(self.case.id, claim.index)] for claim in self.case.claims]
        precision = Precision.of(c.label for v in verdicts for c in v.citations)
        threshold = self.case.min_precision
        if threshold is None:
            threshold = _runtime(self).options.min_precision
        self.user_properties.append(
            ("citations_precision", f"{precision.supported}/{precision.total}")
        )
        if threshold is None:
            return
        value = precision.citation
        if value is None or value < threshold:
            shown = "n/a" if value is None else f"{value:.4f}"
            lines = [
                f"citation precision {shown} ({precision.supported}/{precision.total}) of case "
                f"{self.case.id!r} is below the minimum {threshold:.4f}"
            ]
            for claim, verdict in zip(self.case.claims, verdicts, strict=True):
                for citation in verdict.citations:
                    if citation.label is not Label.SUPPORTED:
                        reason = f" ({citation.reason})" if citation.reason else ""
                        lines.append(
                            f"  {claim.name}: {citation.label.value:<12} {citation.url}{reason}"
                        )
            raise CitationCheckFailure("\n".join(lines))

    def reportinfo(self) -> tuple[Any, int | None, str]:
        return self.path, self.case.line - 1, f"{self.case.id}::precision"


VERDICT_KEY = pytest.StashKey[ClaimVerdict]()


def claim_record(item: ClaimItem, verdict: ClaimVerdict) -> dict[str, Any]:
    """Everything the summary and reports need about one claim, as plain JSON data."""
    case = item.case
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
    }


def looks_like_cassette(text: str) -> bool:
    """A vcrpy cassette: top-level ``interactions:`` and ``version:`` keys."""
    return bool(_CASSETTE_KEY.search(text)) and bool(_VERSION_KEY.search(text))


_CASSETTE_KEY = re.compile(r"^interactions:", re.MULTILINE)
_VERSION_KEY = re.compile(r"^version:", re.MULTILINE)
