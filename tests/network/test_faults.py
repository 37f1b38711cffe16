"""Faults and bad input (issue 2): Crawlbase 429/5xx/connection errors/timeouts become
labelled verdicts and the run goes on; bad URLs are refused without a request; a bad or
missing token stops the work and names its variable, never its value."""

from __future__ import annotations

import asyncio
import datetime
import email.utils
import traceback

import httpx
import pytest

from pytest_citations import AuthenticationError, ClaimRequest, Label, MissingTokenError, Reason
from pytest_citations.network.requester import Requester, TransientError, retry_after_seconds
from pytest_citations.sanitize import Secret

URL = "https://example.org/water"
OTHER = "https://example.org/ice"
CLAIM = "Water boils at 100 degrees Celsius at sea level."


def _shown(error: BaseException) -> str:
    """Everything a user could see of an exception: str, repr and the formatted traceback."""
    return str(error) + repr(error) + "".join(traceback.format_exception(error))


# -- Transient faults --------------------------------------------------------------------------


def test_crawlbase_429_with_retry_after_then_ok(crawlbase, judge, verify, article):
    """Issue 2, faults: a Crawlbase 429 is retried after Retry-After."""
    crawlbase.add(URL, markdown=article(CLAIM), errors=[429, 429], retry_after=0.05)
    result, verifier = verify(CLAIM, [URL])

    assert result.label is Label.SUPPORTED
    assert [r.status for r in crawlbase.requests] == [429, 429, 200]
    assert crawlbase.credits == 1.5
    assert verifier.usage.credits == 1.5  # throttled answers cost nothing


def _retry_after(value: str | None) -> float | None:
    headers = {} if value is None else {"Retry-After": value}
    return retry_after_seconds(httpx.Response(429, headers=headers))


def test_retry_after_is_read_as_seconds_or_http_date():
    assert _retry_after("3") == 3.0
    assert _retry_after("0.25") == 0.25
    assert _retry_after("-5") == 0.0
    assert _retry_after(None) is None
    assert _retry_after("soon") is None
    now = datetime.datetime.now(datetime.UTC)
    later = email.utils.format_datetime(now + datetime.timedelta(seconds=120), usegmt=True)
    earlier = email.utils.format_datetime(now - datetime.timedelta(seconds=120), usegmt=True)
    assert 60 < (_retry_after(later) or 0) <= 120
    assert _retry_after(earlier) == 0.0


def _send_with_recorded_sleeps(crawlbase, config):
    """Send one crawl through the engine's Requester; return (response or error, sleeps)."""
    slept: list[float] = []

    async def sleep(seconds: float) -> None:
        slept.append(seconds)

    async def scenario():
        async with httpx.AsyncClient() as http:
            requester = Requester(http, config.network, asyncio.Semaphore(1), sleep=sleep)
            params = {"token": crawlbase.token, "url": URL}
            try:
                return await requester.send(
                    "crawl", lambda: http.build_request("GET", crawlbase.url, params=params)
                )
            except TransientError as error:
                return error

    return asyncio.run(scenario()), slept


def test_retry_after_is_honoured_between_attempts(crawlbase, settings, article):
    crawlbase.add(URL, markdown=article(CLAIM), errors=[429], retry_after=7)
    response, slept = _send_with_recorded_sleeps(crawlbase, settings(max_backoff=30))
    assert response.status_code == 200
    assert slept == [7.0]


def test_retry_after_is_capped_by_max_backoff(crawlbase, settings, article):
    crawlbase.add(URL, markdown=article(CLAIM), errors=[503, 429], retry_after=600)
    response, slept = _send_with_recorded_sleeps(crawlbase, settings(max_backoff=2, backoff=0.5))
    assert response.status_code == 200
    assert 0.25 <= slept[0] <= 0.5  # exponential backoff with jitter, no Retry-After on 503
    assert slept[1] == 2.0


def test_retries_exhausted_raise_a_transient_error_without_url_or_token(crawlbase, settings):
    crawlbase.add(URL, errors=[503, 503, 503])
    error, slept = _send_with_recorded_sleeps(crawlbase, settings(retries=2, backoff=0.1))
    assert isinstance(error, TransientError)
    assert "503" in str(error)
    assert crawlbase.token not in str(error)
    assert "127.0.0.1" not in str(error)
    assert len(slept) == 2
    assert 0.05 <= slept[0] <= 0.1
    assert 0.1 <= slept[1] <= 0.2  # doubled


@pytest.mark.parametrize("status", [500, 502, 503, 504, 522, 524, 529])
def test_crawlbase_5xx_then_ok_is_retried(crawlbase, judge, verify, article, status):
    # Every 5xx but 520 (a failed crawl, escalated to JavaScript at once) is retried.
    crawlbase.add(URL, markdown=article(CLAIM), errors=[status])
    result, _ = verify(CLAIM, [URL])
    assert result.label is Label.SUPPORTED
    assert [(r.status, r.javascript) for r in crawlbase.requests] == [
        (status, False),
        (200, False),
    ]


def test_crawlbase_5xx_exhausted_is_fetch_error_and_the_run_goes_on(
    crawlbase, judge, make_verifier, article
):
    """Issue 2, faults: 5xx after every retry is unreachable/fetch_error; the run goes on."""
    crawlbase.add(URL, markdown=article(CLAIM), errors=[503] * 3)  # retries=2: 3 attempts
    crawlbase.add(OTHER, markdown=article("Ice melts at 0 degrees Celsius.", title="Ice"))

    async def scenario():
        async with make_verifier(retries=2) as verifier:
            return await verifier.verify_many(
                [
                    ClaimRequest.of(CLAIM, [URL, OTHER]),
                    ClaimRequest.of("Ice melts at 0 degrees Celsius.", [OTHER]),
                ]
            )

    water, ice = asyncio.run(scenario())

    failed, other = water.citations
    assert (failed.label, failed.reason) == (Label.UNREACHABLE, Reason.FETCH_ERROR)
    assert failed.confidence == 0.0
    assert crawlbase.count(URL) == 3
    assert other.label is Label.NOT_FOUND  # judged: the ice page says nothing on boiling
    assert ice.label is Label.SUPPORTED


def test_connection_refused_is_fetch_error(judge, verify, refused_url):
    """Issue 2, faults: a connection error is unreachable/fetch_error."""
    result, _ = verify(CLAIM, [URL], crawlbase_api_url=refused_url, retries=1)
    (citation,) = result.citations
    assert (citation.label, citation.reason) == (Label.UNREACHABLE, Reason.FETCH_ERROR)
    assert judge.call_count == 0


def test_slow_answer_beyond_read_timeout_is_fetch_error(crawlbase, judge, verify, article):
    """Issue 2, faults: a read timeout is unreachable/fetch_error; other citations go on."""
    crawlbase.add(URL, hang=True)
    crawlbase.add(OTHER, markdown=article("Ice melts at 0 degrees Celsius.", title="Ice"))
    result, _ = verify(CLAIM, [URL, OTHER], read_timeout=0.3, retries=0)

    slow, other = result.citations
    assert (slow.label, slow.reason) == (Label.UNREACHABLE, Reason.FETCH_ERROR)
    assert other.label is Label.NOT_FOUND
    assert other.reason is None


def test_judge_connection_refused_is_judge_error(crawlbase, verify, article, refused_url):
    """J2 + faults: an unreachable judge is not_found/judge_error."""
    crawlbase.add(URL, markdown=article(CLAIM))
    result, _ = verify(CLAIM, [URL], openai_base_url=refused_url + "v1", retries=1)
    assert result.citations[0].reason == Reason.JUDGE_ERROR


# -- Bad input ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "url",
    [
        "ftp://example.org/water.txt",
        "mailto:editor@example.org",
        "/relative/path",
        "example.org/water",
        "javascript:alert(1)",
        "file:///etc/passwd",
        "https://",
        "",
    ],
)
def test_non_http_url_is_not_found_invalid_url_without_request(crawlbase, judge, verify, url):
    """Issue 2, bad input: a URL that is not http(s) is not_found/invalid_url, unfetched."""
    result, _ = verify(CLAIM, [url])
    (citation,) = result.citations
    assert (citation.label, citation.reason) == (Label.NOT_FOUND, Reason.INVALID_URL)
    assert crawlbase.crawl_count == 0
    assert judge.call_count == 0


# -- Credentials -------------------------------------------------------------------------------


@pytest.mark.parametrize("status", [401, 403])
def test_crawlbase_refusal_names_crawlbase_token_never_its_value(
    crawlbase, judge, verify, article, status
):
    crawlbase.add(URL, markdown=article(CLAIM), errors=[status])
    with pytest.raises(AuthenticationError) as caught:
        verify(CLAIM, [URL])
    assert caught.value.variable == "CRAWLBASE_TOKEN"
    assert caught.value.status == status
    assert "CRAWLBASE_TOKEN" in str(caught.value)
    assert crawlbase.token not in _shown(caught.value)
    assert crawlbase.count(URL) == 1  # not retried


def test_crawlbase_bad_token_stops_the_work(crawlbase, judge, verify, article):
    """S3 / issue 2: a refused token is an error, never an unreachable verdict."""
    bad = "cb-bad-normal-value-55aa"
    crawlbase.add(URL, markdown=article(CLAIM))
    with pytest.raises(AuthenticationError) as caught:
        verify(CLAIM, [URL, OTHER], crawlbase_token=Secret(bad, "CRAWLBASE_TOKEN"))
    assert caught.value.variable == "CRAWLBASE_TOKEN"
    assert bad not in _shown(caught.value)
    assert judge.call_count == 0


def test_bad_js_token_names_crawlbase_js_token(crawlbase, judge, verify, article):
    bad = "cb-bad-js-value-66bb"
    crawlbase.add(URL, markdown=article(CLAIM), fail_normal=True)
    with pytest.raises(AuthenticationError) as caught:
        verify(CLAIM, [URL], crawlbase_js_token=Secret(bad, "CRAWLBASE_JS_TOKEN"))
    assert caught.value.variable == "CRAWLBASE_JS_TOKEN"
    assert "CRAWLBASE_JS_TOKEN" in str(caught.value)
    assert bad not in _shown(caught.value)
    assert crawlbase.token not in _shown(caught.value)


def test_refused_javascript_true_on_the_normal_token_names_crawlbase_token(
    crawlbase, judge, verify, article
):
    # No JS token: the JavaScript attempt goes out on the normal token with javascript=true,
    # so a refusal of that attempt names CRAWLBASE_TOKEN.
    crawlbase.add(URL, markdown=article(CLAIM), errors=[520, 403])
    with pytest.raises(AuthenticationError) as caught:
        verify(CLAIM, [URL], crawlbase_js_token=None)
    assert caught.value.variable == "CRAWLBASE_TOKEN"
    refused = crawlbase.requests[-1]
    assert (refused.status, refused.params.get("javascript")) == (403, "true")
    assert crawlbase.token not in _shown(caught.value)


def test_missing_crawlbase_token_names_the_variable(crawlbase, judge, verify):
    """S3 / issue 2: a missing token is an error naming CRAWLBASE_TOKEN."""
    with pytest.raises(MissingTokenError) as caught:
        verify(CLAIM, [URL], crawlbase_token=None)
    assert caught.value.variable == "CRAWLBASE_TOKEN"
    assert "CRAWLBASE_TOKEN" in str(caught.value)
    assert crawlbase.js_token not in _shown(caught.value)
    assert crawlbase.crawl_count == 0  # the JS token alone never starts a citation (F6)
