"""What the verifier keeps for one claim while it checks it: the request, the notes and
evidence it collects, and how far each citation's check got when something stopped it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from ..errors import OverBudget, RequestRefused
from ..judges.guard import Guarded
from ..labels import Label, Reason
from ..network.requester import TransientError
from ..retrieval.selection import Selection
from ..verdicts import CitationVerdict, Evidence


@dataclass(frozen=True)
class ClaimRequest:
    """A claim, the URLs cited for it, and URLs the answer had but did not cite (004, C3)."""

    claim: str
    urls: tuple[str, ...]
    retrieved: tuple[str, ...] = ()
    #: Cited documents without a URL (``Title, pages 3-4``): nothing to fetch, so each is a
    #: citation that could not be checked.
    documents: tuple[str, ...] = ()

    @classmethod
    def of(
        cls,
        claim: str,
        urls: Sequence[str],
        retrieved: Sequence[str] = (),
        documents: Sequence[str] = (),
    ) -> ClaimRequest:
        """Build one, dropping repeated URLs (a claim–URL pair is one citation)."""
        cited = tuple(dict.fromkeys(url.strip() for url in urls))
        others = tuple(
            url for url in dict.fromkeys(u.strip() for u in retrieved) if url not in cited
        )
        return cls(claim, cited, others, tuple(dict.fromkeys(documents)))


def document_verdict(document: str) -> CitationVerdict:
    """The verdict of a cited document without a URL: not checked (nothing to fetch)."""
    return CitationVerdict(
        f"document: {document}", Label.NOT_FOUND, reason=Reason.DOCUMENT_WITHOUT_URL
    )


@dataclass
class ClaimWork:
    """What one claim's verification collects beside its verdicts."""

    problems: list[str] = field(default_factory=list)
    #: The notes that say a request is missing from the recording (a subset of problems).
    unrecorded: list[str] = field(default_factory=list)
    #: Of those, the notes of requests the run's budget kept from being sent.
    over_budget: list[str] = field(default_factory=list)
    evidence: dict[str, Evidence] = field(default_factory=dict)

    def note(self, error: Exception | str) -> None:
        """Add a note for the claim, once."""
        if str(error) not in self.problems:
            self.problems.append(str(error))
        if isinstance(error, RequestRefused) and str(error) not in self.unrecorded:
            self.unrecorded.append(str(error))
        if isinstance(error, OverBudget) and str(error) not in self.over_budget:
            self.over_budget.append(str(error))

    def absorb(self, other: ClaimWork) -> None:
        """Take over the notes of another claim's work (its problems, what it found
        missing from the recording and what the budget kept from being sent)."""
        for problem in other.problems:
            if problem in other.over_budget:
                self.note(OverBudget(problem))
            else:
                self.note(RequestRefused(problem) if problem in other.unrecorded else problem)


def shown_evidence(
    url: str, passages: Sequence[str], accepted: Guarded, selection: Selection, text: str
) -> Evidence:
    """What the judge was shown for ``url`` (chosen by ``selection`` from the page's
    ``text``), with where the guard found the accepted quote: in its passage, and in the
    page's text."""
    number, span = accepted.passage, accepted.span
    found = None if number is None or span is None else selection.page_span(text, number, span)
    return Evidence(url, tuple(passages), number, selection.chooser.embedder, span, found)


@dataclass
class Stage:
    """How far one citation's check got, for the verdict of an error that stopped it."""

    #: The located verdict once the page was fetched (errors after it are the judge's side).
    judging: CitationVerdict | None = None

    def problem(self, error: Exception) -> str:
        """A note for the claim; only what cannot hold a secret (never the error's text
        unless the engine wrote it without one)."""
        what = "the judge" if self.judging is not None else "fetching the page"
        if isinstance(error, TransientError):
            return f"{what} failed: {error}"
        return f"{what} failed ({type(error).__name__})"
