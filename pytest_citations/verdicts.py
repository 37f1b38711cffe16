"""The engine's results: one verdict per citation, what the judge was shown for it, and one
verdict per claim."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

from .labels import NEVER_A_LABEL, Label, Reason, is_unchecked

#: The fields of 000's ``UrlVerdict``, in order: what a citation verdict holds, and what
#: ``/verify`` answers per URL.
VERDICT_FIELDS = (
    "url",
    "label",
    "evidence_quote",
    "confidence",
    "final_url",
    "original_status",
    "rid",
    "reason",
    "warnings",
)


@dataclass(frozen=True)
class CitationVerdict:
    """The verdict on one claim–URL pair: exactly the fields of 000's ``UrlVerdict``."""

    url: str
    label: Label
    evidence_quote: str | None = None
    confidence: float = 0.0
    final_url: str | None = None
    original_status: int | None = None
    rid: str | None = None
    reason: str | None = None
    #: Things the reader should know that did not decide the label, such as a page cut at
    #: the size limit (``page_truncated: kept 500000 of 12600000 characters``).
    warnings: tuple[str, ...] = ()
    #: The label of each of the judge's votes, in call order, when the run asked it more
    #: than once (``--citations-judge-votes``): each as the guard accepted it. Empty for a
    #: single vote, and not part of 000's fields (``to_dict`` adds it only when there are
    #: votes).
    votes: tuple[Label, ...] = ()

    @property
    def agreed(self) -> bool:
        """False when the judge's votes on this citation did not all give one label."""
        return len(set(self.votes)) <= 1

    @property
    def checked(self) -> bool:
        """False when the verifier's own infrastructure kept it from checking this citation
        (fetch or judge error, an unusable judge reply, a request no recording holds)."""
        return not is_unchecked(self.reason)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready mapping with the label as a plain string; with the judge's ``votes``
        and whether they ``agreed`` when it was asked more than once."""
        data = asdict(self)
        data["label"] = self.label.value
        data["warnings"] = list(self.warnings)
        del data["votes"]
        if self.votes:
            data["votes"] = [vote.value for vote in self.votes]
            data["agreed"] = self.agreed
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> CitationVerdict:
        """Inverse of :meth:`to_dict`."""
        status = data.get("original_status")
        return cls(
            url=str(data["url"]),
            label=Label(data["label"]),
            evidence_quote=data.get("evidence_quote"),
            confidence=float(data.get("confidence") or 0.0),
            final_url=data.get("final_url"),
            original_status=int(status) if status is not None else None,
            rid=data.get("rid"),
            reason=data.get("reason"),
            warnings=tuple(data.get("warnings") or ()),
            votes=tuple(Label(vote) for vote in data.get("votes") or ()),
        )


@dataclass(frozen=True)
class Evidence:
    """What the judge was shown for one cited URL: the passages, best first, which of them
    holds the quote the guard accepted (None: none was), and the embedder that chose them
    (empty when the page was not ranked); where the guard found the quote, as the (start,
    end) of its characters in that passage (``quote_span``: what a report highlights) and
    in the page's text (``page_span``), found once, by the guard."""

    url: str
    passages: tuple[str, ...]
    quote_passage: int | None = None
    chosen_by: str = ""
    quote_span: tuple[int, int] | None = None
    page_span: tuple[int, int] | None = None

    def to_dict(self) -> dict[str, Any]:
        """The JSON form (the JSON report's ``evidence`` items)."""
        return {
            "url": self.url,
            "passages": list(self.passages),
            "quote_passage": self.quote_passage,
            "chosen_by": self.chosen_by,
            "quote_span": list(self.quote_span) if self.quote_span is not None else None,
            "page_span": list(self.page_span) if self.page_span is not None else None,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Evidence:
        """Inverse of :meth:`to_dict` (a report written before the spans has none)."""
        passage = data.get("quote_passage")
        return cls(
            str(data["url"]),
            tuple(str(text) for text in data.get("passages") or ()),
            int(passage) if passage is not None else None,
            str(data.get("chosen_by") or ""),
            _span(data.get("quote_span")),
            _span(data.get("page_span")),
        )


def _span(value: Any) -> tuple[int, int] | None:
    """A (start, end) read back from JSON; None for anything else."""
    if isinstance(value, list | tuple) and len(value) == 2:
        start, end = value
        whole = all(isinstance(n, int) and not isinstance(n, bool) for n in (start, end))
        if whole and 0 <= start <= end:
            return start, end
    return None


@dataclass(frozen=True)
class ClaimVerdict:
    """A claim, its aggregated label (A1) and the verdict of each cited URL."""

    claim: str
    label: Label
    citations: tuple[CitationVerdict, ...] = ()
    #: Why some citations could not be checked at all (say, a request an offline replay
    #: lacks); never holds a secret.
    problems: tuple[str, ...] = ()
    #: Of ``problems``, those that say a request is missing from the recording (an offline
    #: replay that lacks it): never a label, whatever the run allows.
    unrecorded: tuple[str, ...] = ()
    #: Of ``unrecorded``, those of requests the run's budget kept from being sent (reason
    #: ``over_budget``): a run with budget left records them.
    over_budget: tuple[str, ...] = ()
    #: Cited URLs whose passages, taken together, supported the claim (004, C2).
    joint_support: tuple[str, ...] = ()
    #: Retrieved but uncited URLs that support the claim its citations do not (004, C3).
    misattributed_to: tuple[str, ...] = ()
    #: What the judge was shown for every judged citation; the deterministic checks
    #: (numbers and dates traceable, C7) read it.
    evidence: tuple[Evidence, ...] = ()
    #: Seconds of work the claim's own check took (see :mod:`pytest_citations.timing`): a
    #: measurement of this run, not part of the verdict (equal verdicts may differ in it).
    work_seconds: float = field(default=0.0, compare=False)

    @property
    def unchecked(self) -> tuple[CitationVerdict, ...]:
        """Citations the verifier could not check (see :attr:`CitationVerdict.checked`)."""
        return tuple(citation for citation in self.citations if not citation.checked)

    @property
    def lacks_recording(self) -> bool:
        """True when a request this claim needed is missing from the recording."""
        return bool(self.unrecorded) or any(
            citation.reason == Reason.REQUEST_REFUSED for citation in self.citations
        )

    @property
    def never_a_label(self) -> bool:
        """True when a citation was never checked and can be counted as no label: a request
        the recording lacks, or a document without a URL."""
        return self.lacks_recording or any(c.reason in NEVER_A_LABEL for c in self.citations)

    @property
    def complete(self) -> bool:
        """True when every citation was checked and no request was refused."""
        return not self.problems and not self.unchecked

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready mapping in the shape of 000's ``/verify`` response."""
        data: dict[str, Any] = {
            "claim": self.claim,
            "overall": self.label.value,
            "citations": [verdict.to_dict() for verdict in self.citations],
        }
        if self.problems:
            data["problems"] = list(self.problems)
        if self.joint_support:
            data["joint_support"] = list(self.joint_support)
        if self.misattributed_to:
            data["misattributed_to"] = list(self.misattributed_to)
        return data
