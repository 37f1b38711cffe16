"""Assertion helpers with pytest-quality messages, and the explanation of a claim's verdict
that failing items and helpers share. No pytest import: they raise ``AssertionError``."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from contextvars import ContextVar
from typing import Protocol

from .gating.precision import Precision
from .labels import DEFAULT_FAILING_LABELS, Label
from .sanitize import strip_controls
from .verdicts import CitationVerdict, ClaimVerdict


class Verifies(Protocol):
    """Anything that verifies a claim synchronously (the ``citation_verifier`` fixture)."""

    def verify(self, claim: str, urls: Sequence[str]) -> ClaimVerdict:
        """Verify one claim against its cited URLs."""
        ...


#: The verifier of the running test, set by the ``citation_verifier`` fixture.
active_verifier: ContextVar[Verifies | None] = ContextVar("citations_verifier", default=None)


def explain(
    verdict: ClaimVerdict,
    markers: Sequence[str] = (),
    *,
    state: str | None = None,
    shown: Callable[[CitationVerdict], str] | None = None,
) -> str:
    """The claim, its label, and per URL: label, reason, final URL, status and quote. A claim
    that has no label says its ``state`` instead (``status: unchecked``), and ``shown`` names
    each citation's label (``unchecked`` for one that was not checked)."""
    lines = [f"claim: {verdict.claim}", state or f"label: {verdict.label.value}"]
    for position, citation in enumerate(verdict.citations):
        marker = f"[{markers[position]}] " if position < len(markers) else ""
        lines.append(f"  {marker}{citation.url}")
        detail = f"      {shown(citation) if shown is not None else citation.label.value}"
        if citation.reason:
            detail += f" ({citation.reason})"
        detail += f", confidence {citation.confidence:.2f}"
        lines.append(detail)
        if citation.final_url and citation.final_url != citation.url:
            lines.append(f"      final URL: {citation.final_url}")
        status = citation.original_status
        lines.append(
            f"      origin status: {status if status is not None else '-'}"
            f", rid: {citation.rid or '-'}"
        )
        if citation.evidence_quote:
            lines.append(f'      quote: "{" ".join(citation.evidence_quote.split())}"')
        lines += [f"      warning: {warning}" for warning in citation.warnings]
    for problem in verdict.problems:
        lines.append(f"  not checked: {problem}")
    # Page text (quotes) and URLs can hold terminal control sequences: never print them.
    return strip_controls("\n".join(lines))


#: How a claim that could not be checked says so where its label would stand.
UNCHECKED_STATE = "status: unchecked (no label)"


def explain_unchecked(verdict: ClaimVerdict, markers: Sequence[str] = ()) -> str:
    """A verdict that could not be checked, explained: no label for the claim (it has none),
    ``unchecked`` for each citation that was not checked."""
    return explain(
        verdict,
        markers,
        state=UNCHECKED_STATE,
        shown=lambda citation: citation.label.value if citation.checked else "unchecked",
    )


def _explained(verdict: ClaimVerdict) -> str:
    """A verdict as a failing helper explains it: its label, or that it has none."""
    return explain(verdict) if verdict.complete else explain_unchecked(verdict)


def _verifier(verifier: Verifies | None) -> Verifies:
    __tracebackhide__ = True  # failures point at the test, not here
    chosen = verifier or active_verifier.get()
    if chosen is None:
        raise RuntimeError(
            "no citation verifier is active: request the 'citation_verifier' fixture in this "
            "test, or pass verifier="
        )
    return chosen


def assert_supported(
    claim: str, urls: Sequence[str] | str, *, verifier: Verifies | None = None
) -> ClaimVerdict:
    """Fail unless the claim comes out ``supported`` (at least one citation supports it and
    none contradicts it, A1). Returns the verdict for further checks."""
    __tracebackhide__ = True  # failures point at the test, not here
    verdict = _verifier(verifier).verify(claim, [urls] if isinstance(urls, str) else urls)
    if verdict.label is not Label.SUPPORTED or verdict.problems:
        raise AssertionError(f"claim is not supported by its citations\n{_explained(verdict)}")
    return verdict


def assert_not_contradicted(
    claim: str, urls: Sequence[str] | str, *, verifier: Verifies | None = None
) -> ClaimVerdict:
    """Fail when any cited page contradicts the claim (or could not be checked)."""
    __tracebackhide__ = True  # failures point at the test, not here
    verdict = _verifier(verifier).verify(claim, [urls] if isinstance(urls, str) else urls)
    if verdict.label is Label.CONTRADICTED or verdict.problems:
        raise AssertionError(f"claim is contradicted by a cited page\n{_explained(verdict)}")
    return verdict


def assert_answer(
    verdicts: Iterable[ClaimVerdict], fail_on: Iterable[Label | str] = DEFAULT_FAILING_LABELS
) -> list[ClaimVerdict]:
    """Fail when a claim of an answer has a failing label (``fail_on``, default
    :data:`~pytest_citations.labels.DEFAULT_FAILING_LABELS`: every label but supported and
    uncited) or could not be checked; the message explains every failing claim as
    :func:`assert_supported` explains one. Takes the verdicts ``check_answer`` returns."""
    __tracebackhide__ = True  # failures point at the test, not here
    listed = list(verdicts)
    failing = {Label(label) for label in fail_on}
    bad = [(n, v) for n, v in enumerate(listed, 1) if v.label in failing or v.problems]
    if bad:
        labels = ", ".join(sorted(label.value for label in failing))
        lines = [
            f"{len(bad)} of {len(listed)} claims of the answer fail (failing labels: {labels})"
        ]
        for number, verdict in bad:
            why = verdict.label.value if verdict.label in failing else "could not be checked"
            lines += [f"claim {number}: {why}", _explained(verdict)]
        raise AssertionError("\n".join(lines))
    return listed


def _citations(verdicts: Iterable[ClaimVerdict | CitationVerdict]) -> list[CitationVerdict]:
    found: list[CitationVerdict] = []
    for verdict in verdicts:
        if isinstance(verdict, ClaimVerdict):
            found.extend(verdict.citations)
        else:
            found.append(verdict)
    return found


def assert_precision(
    verdicts: Iterable[ClaimVerdict | CitationVerdict] | ClaimVerdict, minimum: float
) -> Precision:
    """Fail when citation precision (supported / all claim–URL pairs, A2) is below
    ``minimum``. Accepts claim verdicts, citation verdicts, or one claim verdict."""
    __tracebackhide__ = True  # failures point at the test, not here
    if not 0 <= minimum <= 1:
        raise ValueError("minimum must be between 0 and 1")
    items = [verdicts] if isinstance(verdicts, ClaimVerdict) else list(verdicts)
    citations = _citations(items)
    precision = Precision.of(citation.label for citation in citations)
    value = precision.citation
    if value is None or value < minimum:
        shown = "n/a" if value is None else f"{value:.4f}"
        lines = [
            f"citation precision {shown} ({precision.supported}/{precision.total}) "
            f"is below the minimum {minimum:.4f}"
        ]
        lines += [
            f"  {c.label.value:<12} {c.url}" + (f" ({c.reason})" if c.reason else "")
            for c in citations
            if c.label is not Label.SUPPORTED
        ]
        raise AssertionError("\n".join(lines))
    return precision
