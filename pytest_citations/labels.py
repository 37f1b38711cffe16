"""Verdict labels and the reasons the engine gives for them, and the words that count them."""

from __future__ import annotations

from collections.abc import Iterable
from enum import StrEnum


class Label(StrEnum):
    """The label of one citation or one claim (000: four labels; 004 C3 adds ``partial``)."""

    SUPPORTED = "supported"
    PARTIAL = "partial"
    CONTRADICTED = "contradicted"
    NOT_FOUND = "not_found"
    UNREACHABLE = "unreachable"
    #: Claim level only: the claim cites nothing (004, C2).
    UNCITED = "uncited"
    #: Claim level only: supported by a retrieved source the answer did not cite (004, C3).
    MISATTRIBUTED = "misattributed"


#: Labels ordered from best to worst: the one ranked higher is the stricter. Regressions
#: (a claim's label that got worse), summaries, and a tie between the judge's votes on one
#: citation (the stricter label wins) all read this one order.
LABEL_RANK = {
    label: rank
    for rank, label in enumerate(
        (
            Label.SUPPORTED,
            Label.PARTIAL,
            Label.MISATTRIBUTED,
            Label.NOT_FOUND,
            Label.UNCITED,
            Label.UNREACHABLE,
            Label.CONTRADICTED,
        )
    )
}


#: The judge's four labels, over which its agreement with human labels is measured (004,
#: C5).
CALIBRATION_LABELS = ("supported", "partial", "contradicted", "not_found")


def as_judge_label(label: str) -> str:
    """A claim label in the judge's four-label space: a claim label outside it (``uncited``,
    ``misattributed``, ``unreachable``) is ``not_found``, no citation of the claim's own
    supported it."""
    return label if label in CALIBRATION_LABELS else "not_found"


def strictest(labels: Iterable[Label]) -> Label:
    """The worst of ``labels`` by :data:`LABEL_RANK` (``labels`` must not be empty)."""
    return max(labels, key=LABEL_RANK.__getitem__)


#: What fails a claim unless a run or case says otherwise: every label but ``supported``
#: (and ``uncited``, which the uncited-claim rule decides, 004 C7). A claim only partly
#: backed, backed by no cited page, backed by another page than the one cited, or whose
#: every page is gone is not evidence a reviewer would ship (004's worked example fails a
#: partial claim).
DEFAULT_FAILING_LABELS: tuple[Label, ...] = (
    Label.CONTRADICTED,
    Label.PARTIAL,
    Label.NOT_FOUND,
    Label.MISATTRIBUTED,
    Label.UNREACHABLE,
)


class Reason:
    """Machine-readable reasons attached to verdicts the engine (not the judge) decided."""

    HTTP_404 = "http_404"
    HTTP_410 = "http_410"
    REDIRECTED_TO_HOMEPAGE = "redirected_to_homepage"
    SOFT_404 = "soft_404"
    PDF_UNSUPPORTED = "pdf_unsupported"
    CRAWL_FAILED = "crawl_failed"
    EMPTY_PAGE = "empty_page"
    INVALID_URL = "invalid_url"
    FETCH_ERROR = "fetch_error"
    JUDGE_ERROR = "judge_error"
    JUDGE_INVALID_RESPONSE = "judge_invalid_response"
    #: The provider declined to answer (OpenAI ``message.refusal``, Anthropic
    #: ``stop_reason: refusal``).
    JUDGE_REFUSED = "judge_refused"
    #: The reply was cut at the token limit (``finish_reason``/``stop_reason``/``done_reason``
    #: ``length`` or ``max_tokens``).
    JUDGE_TRUNCATED = "judge_truncated"
    #: The reply held no content at all (an empty Anthropic ``content`` list).
    JUDGE_EMPTY_RESPONSE = "judge_empty_response"
    QUOTE_NOT_IN_SOURCE = "evidence_quote_not_in_source"
    #: The quote stands in the passages but is too short to be evidence ("Water", "a").
    QUOTE_TOO_SHORT = "evidence_quote_too_short"
    NO_PASSAGES = "no_passages"
    REQUEST_REFUSED = "request_refused"
    #: The run's budget (judge calls, judge tokens, credits) did not cover the request.
    OVER_BUDGET = "over_budget"
    #: A cited document the answer's record gives no URL for: there is no page to fetch.
    DOCUMENT_WITHOUT_URL = "document_without_url"

    @staticmethod
    def http(status: int) -> str:
        """The reason of an origin status that is not a page to judge: ``http_403``."""
        return f"http_{status}"

    @staticmethod
    def crawl_status(status: int) -> str:
        """The reason of a crawl whose own status (``pc_status``/``cb_status``) is not 2xx."""
        return f"{CRAWL_STATUS_PREFIX}{status}"


CRAWL_STATUS_PREFIX = "crawl_status_"

#: Reasons that say "the verifier could not check this citation" (its own infrastructure
#: failed: the crawler, the judge, or a recording), as opposed to findings about the page
#: (404, soft 404, homepage redirect, PDF, empty page), each with what it means in words for
#: the messages that report it. A claim with such a citation is not a pass unless the run
#: allows unchecked citations. A new reason of this kind is one row here.
UNCHECKED_MEANINGS = {
    Reason.FETCH_ERROR: "the crawler could not be reached or kept failing",
    Reason.CRAWL_FAILED: "the crawl failed with both tokens",
    Reason.JUDGE_ERROR: "the judge could not be reached or answered with an error",
    Reason.JUDGE_INVALID_RESPONSE: "the judge's reply was not a usable verdict",
    Reason.JUDGE_REFUSED: "the judge refused to answer",
    Reason.JUDGE_TRUNCATED: "the judge's reply was cut at its token limit",
    Reason.JUDGE_EMPTY_RESPONSE: "the judge's reply was empty",
    Reason.REQUEST_REFUSED: "the request is not in the recording (see below)",
    Reason.OVER_BUDGET: "the run's budget did not cover this request, which was not sent",
    Reason.DOCUMENT_WITHOUT_URL: "the cited document has no URL, so it cannot be fetched; "
    "add its URL to the case file to check it",
}
#: Unchecked reasons that no run counts as a label (``--citations-allow-unchecked``
#: included): nothing was ever fetched or judged for them.
NEVER_A_LABEL = frozenset({Reason.REQUEST_REFUSED, Reason.DOCUMENT_WITHOUT_URL})
UNCHECKED_REASONS = frozenset(UNCHECKED_MEANINGS)


def unchecked_meaning(reason: str | None) -> str:
    """Why a citation with this reason could not be checked, in words."""
    if reason and reason.startswith(CRAWL_STATUS_PREFIX):
        return f"the crawler reported status {reason.removeprefix(CRAWL_STATUS_PREFIX)}"
    return UNCHECKED_MEANINGS.get(reason or "", "it could not be checked")


def is_unchecked(reason: str | None) -> bool:
    """True when ``reason`` means the citation could not be checked at all."""
    return reason is not None and (
        reason in UNCHECKED_REASONS or reason.startswith(CRAWL_STATUS_PREFIX)
    )


def counted(count: int, noun: str) -> str:
    """``1 crawl``, ``2 crawls``: a count and its noun, as every output writes one."""
    return f"{count} {noun}{'' if count == 1 else 's'}"
