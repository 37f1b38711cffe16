"""Building a run's result for the tests of its outputs, the way the run builds it: each claim
decided from a verdict (:func:`~pytest_citations.gating.deciding.decide_claim`), the run from
what it found (:func:`~pytest_citations.gating.build.build_run`). No pytest run, no
emulator; this module holds no test."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from pytest_citations.gating.build import Findings, build_run
from pytest_citations.gating.criteria import ClaimFacts, Criteria
from pytest_citations.gating.deciding import BaselineRef, decide_claim
from pytest_citations.gating.result import CaseInfo, ClaimResult, Location
from pytest_citations.gating.run_result import Base, BaselineFacts, RunGates, RunResult
from pytest_citations.labels import Label
from pytest_citations.pipeline.aggregate import aggregate_verdicts
from pytest_citations.verdicts import CitationVerdict, ClaimVerdict

#: The gate most output tests are written for: only a contradicted claim fails.
LENIENT = Criteria(fail_on=("contradicted",))


def cited(url: str, label: Label, reason: str | None = None, **more: Any) -> CitationVerdict:
    """One citation's verdict."""
    return CitationVerdict(url, label, confidence=more.pop("confidence", 0.9), reason=reason,
                           **more)  # fmt: skip


def claim(
    info: CaseInfo,
    index: int,
    text: str,
    *citations: CitationVerdict,
    label: Label | None = None,
    rules: Criteria = LENIENT,
    baseline: BaselineRef | None = None,
    line: int | None = None,
    expect: str | None = None,
    **verdict: Any,
) -> ClaimResult:
    """Claim ``index`` of the case ``info`` (line ``4 + 2 * index`` unless given), decided
    from its citations' verdicts (its label the one they give, A1, unless ``label``)."""
    found = label or (aggregate_verdicts(citations) if citations else Label.UNCITED)
    where = Location(info.file, info.case, f"claim-{index}", line or 4 + 2 * index, index)
    markers = tuple(str(n) for n in range(1, len(citations) + 1))
    cites = tuple(zip((c.url for c in citations), markers, strict=True))
    facts = ClaimFacts(markers, general=found is Label.UNCITED, expect=expect, cited=cites)
    return decide_claim(where, ClaimVerdict(text, found, citations, **verdict), facts,
                        info.rules(rules), baseline)  # fmt: skip


def run_of(
    claims: Iterable[tuple[CaseInfo, ClaimResult]] = (),
    *,
    decided: Sequence[CaseInfo] | None = None,
    rules: Criteria = LENIENT,
    base: Base | None = None,
    baseline: BaselineFacts | None = None,
    found: Findings | None = None,
    **gates: Any,
) -> RunResult:
    """The run of these claims (each with its case), decided as the run decides it; every
    case of a claim is decided (its own item ran) unless ``decided`` names the ones that
    were."""
    found = found if found is not None else Findings()
    infos: dict[str, CaseInfo] = {}
    for info, result in claims:
        found.add_claim(info, result)
        infos[info.key] = info
    for info in decided if decided is not None else infos.values():
        found.add_case(info)
    return build_run(found, RunGates(rules, **gates), base=base, baseline=baseline)


__all__ = ["LENIENT", "cited", "claim", "run_of"]
