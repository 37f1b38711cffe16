"""Verdict labels and the reasons the engine gives for them."""

from __future__ import annotations

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

    def __str__(self) -> str:
        return self.value


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
    QUOTE_NOT_IN_SOURCE = "evidence_quote_not_in_source"
    NO_PASSAGES = "no_passages"
    NO_CITATIONS = "no_citations"
    REQUEST_REFUSED = "request_refused"
