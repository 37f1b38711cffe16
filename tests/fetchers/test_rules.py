"""The fetch rules of source 000 (F1–F8) and the order in which one URL is interpreted,
through real httpx against the Crawling/Storage API emulator."""

from __future__ import annotations

import json

import pytest

from pytest_citations import Label, Reason
from pytest_citations.fetchers.rules import (
    SOFT_404_MAX_CHARS,
    THIN_CHARS,
    is_homepage_redirect,
    is_soft_404,
    visible_chars,
)
from pytest_citations.fetchers.urls import is_pdf
from pytest_citations.sandbox import CrawlbaseEmulator

URL = "https://example.org/science/water"
CLAIM = "Water boils at 100 degrees Celsius at sea level."
SOFT_404 = "# Page not found\n\nSorry, the page you are looking for does not exist.\n"
THIN = "Water boils at 100 degrees Celsius at sea level."  # judgeable, under 200 characters


def _kinds(crawlbase: CrawlbaseEmulator) -> list[tuple[bool, bool]]:
    """(javascript, readability) of every crawl request, in order."""
    return [(record.javascript, record.readability) for record in crawlbase.requests]


# -- F1 ---------------------------------------------------------------------------------------


def test_f1_requests_markdown_with_readability_and_storage(crawlbase, judge, verify, article):
    crawlbase.add(URL, markdown=article(CLAIM))
    result, verifier = verify(CLAIM, [URL])

    assert result.label is Label.SUPPORTED
    (record,) = crawlbase.requests
    assert record.params["format"] == "md"
    assert record.params["md_readability"] == "true"
    assert record.params["store"] == "true"
    assert record.params["url"] == URL
    assert "javascript" not in record.params
    assert record.token_kind == "normal"
    assert verifier.usage.normal_crawls == 1
    assert verifier.usage.credits == crawlbase.credits == 1.5


# -- F2 ---------------------------------------------------------------------------------------


def test_f2_thin_readability_is_retried_without_md_readability_and_both_are_billed(
    crawlbase, judge, verify, article
):
    crawlbase.add(URL, markdown="Menu", markdown_full=article(CLAIM))
    result, verifier = verify(CLAIM, [URL])

    assert _kinds(crawlbase) == [(False, True), (False, False)]
    assert "md_readability" not in crawlbase.requests[1].params
    assert crawlbase.requests[1].params["format"] == "md"
    (citation,) = result.citations
    assert citation.label is Label.SUPPORTED
    # The judge saw the full page, not the thin readability output.
    assert any(CLAIM in passage for passage in judge.calls[0].passages)
    assert citation.rid == crawlbase.rid_for(URL, javascript=False, readability=False)
    assert crawlbase.credits == 3.0
    assert verifier.usage.normal_crawls == 2
    assert verifier.usage.credits == 3.0


def test_f2_threshold_is_200_visible_characters(crawlbase, judge, verify):
    exactly = "x" * (THIN_CHARS - 20) + " " + CLAIM.replace(" ", "")[:20]
    assert visible_chars(exactly) == THIN_CHARS
    crawlbase.add(URL, markdown=exactly)
    verify(CLAIM, [URL])
    assert _kinds(crawlbase) == [(False, True)]

    crawlbase.reset_counters()
    crawlbase.add(URL, markdown=exactly[1:])  # 199 visible characters: thin
    verify(CLAIM, [URL])
    assert _kinds(crawlbase)[:2] == [(False, True), (False, False)]


# -- F3 ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(("status", "reason"), [(404, Reason.HTTP_404), (410, Reason.HTTP_410)])
def test_f3_origin_404_or_410_is_unreachable_billed_and_never_judged(
    crawlbase, judge, verify, status, reason
):
    crawlbase.add(URL, markdown="# Gone\n", original_status=status)
    result, verifier = verify(CLAIM, [URL])

    (citation,) = result.citations
    assert citation.label is Label.UNREACHABLE
    assert citation.reason == reason
    assert citation.original_status == status
    assert citation.evidence_quote is None
    assert result.label is Label.UNREACHABLE
    assert judge.call_count == 0
    assert crawlbase.count(URL) == 1  # a successful crawl of a missing page: no retry
    assert crawlbase.credits == 1.5
    assert verifier.usage.credits == 1.5


def test_f3_unknown_page_on_the_emulator_is_a_dead_link(crawlbase, judge, verify):
    result, _ = verify(CLAIM, ["https://example.org/never-registered"])
    assert (result.citations[0].label, result.citations[0].reason) == (
        Label.UNREACHABLE,
        Reason.HTTP_404,
    )
    assert judge.call_count == 0


# -- F4 ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("requested", "final"),
    [
        ("https://example.org/docs/boiling", "https://example.org/"),
        ("https://example.org/docs/boiling/", "https://example.org"),
        ("https://example.org/docs/boiling", "https://www.example.org/?utm=moved"),
    ],
)
def test_f4_deep_link_landing_on_homepage_is_not_found(
    crawlbase, judge, verify, article, requested, final
):
    crawlbase.add(requested, markdown=article(CLAIM, title="Welcome"), final_url=final)
    result, _ = verify(CLAIM, [requested])

    (citation,) = result.citations
    assert citation.label is Label.NOT_FOUND
    assert citation.reason == Reason.REDIRECTED_TO_HOMEPAGE
    assert citation.final_url == final
    assert citation.evidence_quote is None
    assert judge.call_count == 0
    assert crawlbase.count(requested) == 1


@pytest.mark.parametrize("requested", ["https://example.org/", "https://example.org"])
def test_f4_root_url_citing_root_is_not_a_redirect(crawlbase, judge, verify, article, requested):
    crawlbase.add(requested, markdown=article(CLAIM), final_url="https://example.org/")
    result, _ = verify(CLAIM, [requested])

    assert result.citations[0].label is Label.SUPPORTED
    assert result.citations[0].reason is None
    assert judge.call_count == 1


def test_f4_redirect_to_another_deep_page_is_judged(crawlbase, judge, verify, article):
    crawlbase.add(URL, markdown=article(CLAIM), final_url="https://example.org/new/water/")
    result, _ = verify(CLAIM, [URL])
    assert result.citations[0].label is Label.SUPPORTED
    assert result.citations[0].final_url == "https://example.org/new/water/"


@pytest.mark.parametrize(
    ("requested", "final", "expected"),
    [
        ("https://a.org/x", "https://a.org/", True),
        ("https://a.org/x/", "https://a.org", True),
        ("https://a.org/", "https://a.org/", False),
        ("https://a.org", "https://a.org/", False),
        ("https://a.org/x", "https://a.org/x", False),
        ("https://a.org/x", None, False),
        ("https://a.org/x", "", False),
    ],
)
def test_f4_homepage_redirect_unit(requested, final, expected):
    assert is_homepage_redirect(requested, final) is expected


GROUNDING_REDIRECT = (
    "https://vertexaisearch.cloud.google.com/grounding-api-redirect/AUBnsYvCJxuNIWBDoRknIAxxifZ"
)


@pytest.mark.parametrize(
    "final", ["https://www.example.org/ai/news/2026/05/ads-manager", "https://www.example.org/"]
)
def test_f4_a_grounding_redirect_is_followed_to_the_page_it_names_even_a_homepage(
    crawlbase, judge, verify, article, final
):
    """Issue 26: Gemini cites pages by grounding-api-redirect links. The page they lead to is
    the page cited: a deep page is judged, and so is a homepage (the redirect's path is a
    token, not a deep link that moved), with the final URL beside the cited one."""
    crawlbase.add(GROUNDING_REDIRECT, markdown=article(CLAIM), final_url=final)
    result, _ = verify(CLAIM, [GROUNDING_REDIRECT])

    (citation,) = result.citations
    assert (citation.label, citation.reason) == (Label.SUPPORTED, None)
    assert citation.url == GROUNDING_REDIRECT
    assert citation.final_url == final
    assert judge.call_count == 1


# -- F5 ---------------------------------------------------------------------------------------


def test_f5_short_not_found_template_is_unreachable_soft_404_and_never_judged(
    crawlbase, judge, verify
):
    crawlbase.add(URL, markdown=SOFT_404)
    result, _ = verify(CLAIM, [URL])

    (citation,) = result.citations
    assert (citation.label, citation.reason) == (Label.UNREACHABLE, Reason.SOFT_404)
    assert citation.original_status == 200
    assert judge.call_count == 0
    assert crawlbase.count(URL) == 1  # a soft 404 is decided before the thin-text retry


def test_f5_long_article_mentioning_404_is_judged(crawlbase, judge, verify, article):
    page = article(
        "A 404 page not found error means the server cannot find the page.",
        CLAIM,
        filler=6,
    )
    assert visible_chars(page) >= SOFT_404_MAX_CHARS
    crawlbase.add(URL, markdown=page)
    result, _ = verify(CLAIM, [URL])

    assert result.citations[0].label is Label.SUPPORTED
    assert result.citations[0].reason is None
    assert judge.call_count == 1


SOFT_404_TEMPLATES = [
    SOFT_404,
    "# 404\n\nOops.",
    "# Not Found\n",
    "404 Not Found",
    "Error 404",
    "Page not found",
    "Oops! That page can’t be found.",
    "The page you requested could not be found.",
    "Sorry, we couldn't find that page.",
    "We can’t find the page you’re looking for.",
    "This page isn’t available.",
    "Hmm, the page you were looking for doesn’t seem to exist anymore.",
    "The article you were looking for no longer exists.",
    "The requested URL was not found on this server.",
    "This post has been removed by its author.",
    "It looks like nothing was found at this location.",
    "Diese Seite existiert nicht.",
]
SHORT_PAGES_THAT_ARE_NOT_TEMPLATES = [
    "Water boils at 100 degrees Celsius at sea level.",
    "Traces of lead were not found in the samples tested by the agency in 2021.",
    "Flight 404 departs from Berlin at 9:00 every Monday.",
    "The statue has been moved to the city museum in 1998.",
    "The bill has been removed from the agenda.",
    "The hiker could not find the trail after dark.",
    "404 " + "word " * (SOFT_404_MAX_CHARS // 4),  # long: never a template
]


@pytest.mark.parametrize(
    ("text", "expected"),
    [(text, True) for text in SOFT_404_TEMPLATES]
    + [(text, False) for text in SHORT_PAGES_THAT_ARE_NOT_TEMPLATES],
)
def test_f5_soft_404_unit(text, expected):
    assert is_soft_404(text) is expected


def test_f5_short_page_mentioning_not_found_is_judged(crawlbase, judge, verify):
    # Between the thin (200) and soft-404 (800) thresholds, with "not found" in its text.
    page = (
        "# Lab report\n\nTraces of lead were not found in the samples tested in 2021. "
        "The agency tested tap water from forty schools and three hospitals. " + CLAIM
    ) * 2
    assert THIN_CHARS <= visible_chars(page) < SOFT_404_MAX_CHARS
    crawlbase.add(URL, markdown=page)
    result, _ = verify(CLAIM, [URL])

    assert result.citations[0].label is Label.SUPPORTED
    assert judge.call_count == 1


# -- F6 ---------------------------------------------------------------------------------------


def test_f6_http_520_escalates_to_javascript_at_once_unbilled(crawlbase, judge, verify, article):
    crawlbase.add(URL, markdown=article(CLAIM), fail_normal=True)
    result, verifier = verify(CLAIM, [URL])

    assert result.citations[0].label is Label.SUPPORTED
    assert [r.status for r in crawlbase.requests] == [520, 200]
    assert _kinds(crawlbase) == [(False, True), (True, True)]  # 520 not retried
    assert result.citations[0].rid == crawlbase.rid_for(URL, javascript=True)
    assert crawlbase.credits == 2.5  # the failed crawl costs nothing
    assert verifier.usage.failed_crawls == 1
    assert verifier.usage.javascript_crawls == 1
    assert verifier.usage.normal_crawls == 0
    assert verifier.usage.credits == 2.5


@pytest.mark.parametrize("legacy", [False, True], ids=["cb_status", "pc_status"])
def test_f6_status_207_escalates_to_javascript(crawlbase, judge, verify, article, legacy):
    crawlbase.add(
        URL, markdown="", cb_status=207, markdown_js=article(CLAIM), legacy_status_header=legacy
    )
    result, verifier = verify(CLAIM, [URL])

    assert result.citations[0].label is Label.SUPPORTED
    # An empty origin page needs a browser: no readability retry on the normal token.
    assert _kinds(crawlbase) == [(False, True), (True, True)]
    assert verifier.usage.javascript_crawls == 1
    # Crawlbase charges a crawl only when its status is 200: the empty 207 costs nothing.
    assert verifier.usage.credits == crawlbase.credits == 2.5
    assert any(CLAIM in passage for passage in judge.calls[0].passages)


def test_f6_legacy_pc_status_200_does_not_escalate(crawlbase, judge, verify, article):
    crawlbase.add(URL, markdown=article(CLAIM), legacy_status_header=True)
    result, _ = verify(CLAIM, [URL])
    assert result.citations[0].label is Label.SUPPORTED
    assert _kinds(crawlbase) == [(False, True)]


def test_f6_text_thin_after_readability_retry_escalates(crawlbase, judge, verify, article):
    crawlbase.add(URL, markdown="Loading", markdown_full="Loading app", markdown_js=article(CLAIM))
    result, verifier = verify(CLAIM, [URL])

    assert _kinds(crawlbase) == [(False, True), (False, False), (True, True)]
    assert result.citations[0].label is Label.SUPPORTED
    assert verifier.usage.credits == crawlbase.credits == 1.5 + 1.5 + 2.5


def test_f6_javascript_attempt_uses_the_js_token(crawlbase, judge, verify, article):
    crawlbase.add(URL, markdown=article(CLAIM), fail_normal=True)
    verify(CLAIM, [URL])

    js = crawlbase.requests[-1]
    assert js.token_kind == "js"
    assert "javascript" not in js.params
    assert js.credits == 2.5


def test_f6_without_js_token_adds_javascript_true_on_the_normal_token(
    crawlbase, judge, verify, article
):
    crawlbase.add(URL, markdown=article(CLAIM), fail_normal=True)
    result, verifier = verify(CLAIM, [URL], crawlbase_js_token=None)

    assert result.citations[0].label is Label.SUPPORTED
    js = crawlbase.requests[-1]
    assert js.token_kind == "normal"
    assert js.params["javascript"] == "true"
    assert js.javascript
    assert js.credits == 2.5  # billed as a JavaScript request either way
    assert verifier.usage.javascript_crawls == 1
    assert verifier.usage.credits == 2.5


def test_f6_rendered_page_is_reinterpreted_dead_link(crawlbase, judge, verify):
    crawlbase.add(URL, markdown=SOFT_404, original_status=404, fail_normal=True)
    result, _ = verify(CLAIM, [URL])

    (citation,) = result.citations
    assert (citation.label, citation.reason) == (Label.UNREACHABLE, Reason.HTTP_404)
    assert _kinds(crawlbase) == [(False, True), (True, True)]
    assert judge.call_count == 0


def test_f6_rendered_page_is_reinterpreted_soft_404(crawlbase, judge, verify):
    crawlbase.add(URL, markdown="", markdown_js=SOFT_404)
    result, _ = verify(CLAIM, [URL])

    (citation,) = result.citations
    assert (citation.label, citation.reason) == (Label.UNREACHABLE, Reason.SOFT_404)
    assert judge.call_count == 0


def test_f6_rendered_page_is_reinterpreted_homepage_redirect(crawlbase, judge, verify, article):
    crawlbase.add(
        URL, markdown=article(CLAIM), fail_normal=True, final_url_js="https://example.org/"
    )
    result, _ = verify(CLAIM, [URL])

    (citation,) = result.citations
    assert (citation.label, citation.reason) == (Label.NOT_FOUND, Reason.REDIRECTED_TO_HOMEPAGE)
    assert judge.call_count == 0


def test_f6_rendered_page_gets_the_readability_fallback_too(crawlbase, judge, verify, article):
    crawlbase.add(URL, markdown="", markdown_js="App", markdown_js_full=article(CLAIM))
    result, _ = verify(CLAIM, [URL])

    assert _kinds(crawlbase) == [(False, True), (False, False), (True, True), (True, False)]
    assert result.citations[0].label is Label.SUPPORTED
    assert result.citations[0].rid == crawlbase.rid_for(URL, javascript=True, readability=False)


def test_f6_still_failing_after_javascript_is_crawl_failed(crawlbase, judge, verify, article):
    crawlbase.add(URL, markdown=article(CLAIM), fail_normal=True, fail_js=True)
    result, verifier = verify(CLAIM, [URL])

    (citation,) = result.citations
    assert (citation.label, citation.reason) == (Label.UNREACHABLE, Reason.CRAWL_FAILED)
    assert citation.confidence == 0.0
    assert citation.rid is None
    assert _kinds(crawlbase) == [(False, True), (True, True)]
    assert judge.call_count == 0
    assert crawlbase.credits == 0
    assert verifier.usage.credits == 0
    assert verifier.usage.failed_crawls == 2


def test_f6_still_empty_after_javascript_is_empty_page(crawlbase, judge, verify):
    crawlbase.add(URL, markdown="", cb_status=207, cb_status_js=207)
    result, _ = verify(CLAIM, [URL])

    (citation,) = result.citations
    assert (citation.label, citation.reason) == (Label.UNREACHABLE, Reason.EMPTY_PAGE)
    assert judge.call_count == 0
    assert sum(javascript for javascript, _ in _kinds(crawlbase)) >= 1


def test_f6_thin_but_not_empty_after_javascript_is_judged(crawlbase, judge, verify):
    crawlbase.add(URL, markdown=THIN)
    result, _ = verify(CLAIM, [URL])

    assert any(javascript for javascript, _ in _kinds(crawlbase))
    assert result.citations[0].label is Label.SUPPORTED
    assert result.citations[0].evidence_quote == CLAIM
    assert judge.call_count == 1


# -- F7 ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "url",
    [
        "https://example.org/report.pdf",
        "https://example.org/files/REPORT.PDF",
        "https://example.org/report.pdf?download=1#page=3",
    ],
)
def test_f7_pdf_is_not_found_pdf_unsupported_without_any_request(crawlbase, judge, verify, url):
    result, verifier = verify(CLAIM, [url])

    (citation,) = result.citations
    assert (citation.label, citation.reason) == (Label.NOT_FOUND, Reason.PDF_UNSUPPORTED)
    assert citation.rid is None
    assert crawlbase.crawl_count == 0
    assert judge.call_count == 0
    assert verifier.usage.credits == 0


def test_f7_pdf_needs_no_token(crawlbase, judge, verify):
    result, _ = verify(CLAIM, ["https://example.org/a.pdf"], crawlbase_token=None)
    assert result.citations[0].reason == Reason.PDF_UNSUPPORTED


def test_f7_pdf_unit():
    assert is_pdf("https://example.org/a.pdf")
    assert not is_pdf("https://example.org/pdf-guide")
    assert not is_pdf("https://example.org/view?file=a.pdf")


# -- F8 ---------------------------------------------------------------------------------------


def test_f8_only_the_rid_is_kept(crawlbase, judge, verify, article, secret_values):
    crawlbase.add(URL, markdown=article(CLAIM))
    result, _ = verify(CLAIM, [URL])

    (citation,) = result.citations
    assert citation.rid == crawlbase.rid_for(URL)
    dumped = json.dumps(result.to_dict()) + repr(result)
    assert "storage" not in dumped
    assert "token" not in dumped
    for secret in secret_values:
        assert secret not in dumped
    assert set(citation.to_dict()) == {
        "url",
        "label",
        "evidence_quote",
        "confidence",
        "final_url",
        "original_status",
        "rid",
        "reason",
        "warnings",
    }


# -- Interpretation order -----------------------------------------------------------------------


def test_order_404_that_also_redirects_home_is_http_404(crawlbase, judge, verify):
    crawlbase.add(URL, markdown="# Home\n", original_status=404, final_url="https://example.org/")
    result, _ = verify(CLAIM, [URL])
    assert result.citations[0].reason == Reason.HTTP_404


def test_order_404_with_soft_404_text_is_http_404(crawlbase, judge, verify):
    crawlbase.add(URL, markdown=SOFT_404, original_status=410)
    result, _ = verify(CLAIM, [URL])
    assert result.citations[0].reason == Reason.HTTP_410


def test_order_homepage_redirect_before_soft_404_and_thin_text(crawlbase, judge, verify):
    crawlbase.add(URL, markdown=SOFT_404, final_url="https://example.org/")
    result, _ = verify(CLAIM, [URL])
    assert result.citations[0].reason == Reason.REDIRECTED_TO_HOMEPAGE
    assert crawlbase.count(URL) == 1


def test_order_soft_404_before_thin_text_retry(crawlbase, judge, verify, article):
    crawlbase.add(URL, markdown=SOFT_404, markdown_full=article(CLAIM))
    result, _ = verify(CLAIM, [URL])
    assert result.citations[0].reason == Reason.SOFT_404
    assert _kinds(crawlbase) == [(False, True)]


def test_order_crawl_failure_before_origin_status(crawlbase, judge, verify, article):
    # The failed normal crawl carries nothing to interpret; the rendered one is judged.
    crawlbase.add(URL, markdown=article(CLAIM), fail_normal=True)
    result, _ = verify(CLAIM, [URL])
    assert result.citations[0].label is Label.SUPPORTED
    assert result.citations[0].original_status == 200


def test_order_thin_readability_output_then_dead_link_on_full_page(crawlbase, judge, verify):
    # The readability retry is interpreted like the first answer (a soft 404 here).
    crawlbase.add(URL, markdown="Menu", markdown_full=SOFT_404)
    result, _ = verify(CLAIM, [URL])
    assert result.citations[0].reason == Reason.SOFT_404
    assert judge.call_count == 0
