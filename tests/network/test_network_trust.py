"""Issue 8, engine side: secrets only in the network transport, URLs prepared before they
are sent, Crawlbase's status signals honoured, and limits that keep a run alive.

Everything runs through real HTTP against the emulators on 127.0.0.1; the only thing a
test plugs in is a transport of its own in front of the network (the same extension point
the plugin's cassettes use).
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

import httpx
import pytest

from pytest_citations import Label, Reason, Verifier
from pytest_citations.errors import CreditsExhaustedError, MissingTokenError
from pytest_citations.fetchers.urls import MAX_URL_CHARS, request_url
from pytest_citations.retrieval.embedders.hashed import LexicalEmbedder
from pytest_citations.sandbox import CrawlbaseEmulator, JudgeEmulator

CLAIM = "Water boils at 100 degrees Celsius at sea level."
URL = "https://example.org/science/water"
IDN_URL = "https://bücher.example/straße"
IDN_SENT = "https://xn--bcher-kva.example/stra%C3%9Fe"
CHALLENGE = "# Just a moment...\n\nChecking your browser before accessing example.org.\n"


class Spy(httpx.AsyncBaseTransport):
    """A transport in front of the network that keeps what passes through it."""

    def __init__(self, inner: httpx.AsyncBaseTransport) -> None:
        self.inner = inner
        self.seen: list[str] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.seen.append(str(request.url) + repr(request.headers.raw))
        response = await self.inner.handle_async_request(request)
        self.seen.append(repr(response.headers.raw) + response.text)
        return response

    async def aclose(self) -> None:
        await self.inner.aclose()


def _run(verifier: Verifier, claim: str, urls: list[str]) -> Any:
    async def scenario() -> Any:
        async with verifier:
            return await verifier.verify(claim, urls)

    return asyncio.run(scenario())


# -- Secrets stay in the network transport ------------------------------------------------


def test_nothing_above_the_network_transport_sees_a_secret(
    crawlbase, judge, settings, article, secret_values
):
    crawlbase.add(URL, markdown=article(CLAIM), fail_normal=True)  # the JS token is used too
    config = settings()
    spy = Spy(config.transport())
    verifier = Verifier(config, embedder=LexicalEmbedder(), http=config.http_client(spy))

    async def scenario() -> Any:
        async with verifier:
            verdict = await verifier.verify(CLAIM, [URL])
            stored = await verifier.stored_page(verdict.citations[0].rid or "")
            return verdict, stored

    verdict, stored = asyncio.run(scenario())

    assert verdict.label is Label.SUPPORTED
    assert CLAIM in stored
    seen = "\n".join(spy.seen)
    assert "token=%3CCRAWLBASE_TOKEN%3E" in seen
    assert "token=%3CCRAWLBASE_JS_TOKEN%3E" in seen
    assert "Bearer <OPENAI_API_KEY>" in seen
    assert "storage_url" in seen  # the header came back, with the placeholder in it
    for secret in secret_values:
        assert secret not in seen
    # The emulators did receive the real tokens (they refuse anything else).
    assert {record.token_kind for record in crawlbase.requests} == {"normal", "js"}


def test_a_request_naming_an_unset_secret_is_refused_before_it_is_sent(
    crawlbase, make_verifier, article
):
    crawlbase.add(URL, markdown=article(CLAIM))
    verifier = make_verifier(crawlbase_token=None, crawlbase_js_token=None)
    with pytest.raises(MissingTokenError, match="CRAWLBASE_TOKEN"):
        _run(verifier, CLAIM, [URL])
    assert crawlbase.crawl_count == 0


# -- URLs -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("cited", "sent"),
    [
        (IDN_URL, IDN_SENT),
        ("https://example.org/a b?q=ü#top", "https://example.org/a%20b?q=%C3%BC#top"),
        ("https://user@bücher.example:8443/", "https://user@xn--bcher-kva.example:8443/"),
        (URL, URL),  # ASCII URLs go out exactly as cited
        ("https://example.org/%7Euser?a=%2F", "https://example.org/%7Euser?a=%2F"),
    ],
)
def test_urls_are_sent_idna_encoded_and_percent_encoded(cited, sent):
    assert request_url(cited) == sent


@pytest.mark.parametrize(
    "cited",
    [
        "https://example.org/" + "a" * 70_000,
        "https://example.org/" + "a" * (MAX_URL_CHARS - len("https://example.org/") + 1),
        "http://[::1",
        "https://xn--/broken",
        "ftp://example.org/file",
        "https://exa mple.org/",
    ],
)
def test_an_unusable_url_is_invalid_url_for_that_citation_only(
    cited, crawlbase, judge, verify, article
):
    crawlbase.add(URL, markdown=article(CLAIM))
    verdict, _ = verify(CLAIM, [cited, URL])

    bad, good = verdict.citations
    assert (bad.label, bad.reason) == (Label.NOT_FOUND, Reason.INVALID_URL)
    assert bad.url == cited
    assert good.label is Label.SUPPORTED
    assert [record.target_url for record in crawlbase.requests] == [URL]


def test_a_url_at_the_length_limit_is_fetched(crawlbase, judge, verify, article):
    long_url = "https://example.org/" + "a" * (MAX_URL_CHARS - len("https://example.org/"))
    crawlbase.add(long_url, markdown=article(CLAIM))
    verdict, _ = verify(CLAIM, [long_url])
    assert verdict.label is Label.SUPPORTED


def test_an_internationalised_url_is_fetched_and_keeps_its_cited_form(
    crawlbase, judge, verify, article
):
    crawlbase.add(IDN_SENT, markdown=article(CLAIM))
    verdict, _ = verify(CLAIM, [IDN_URL])

    (citation,) = verdict.citations
    assert citation.label is Label.SUPPORTED
    assert citation.url == IDN_URL
    assert [record.target_url for record in crawlbase.requests] == [IDN_SENT]


# -- Crawlbase's signals ----------------------------------------------------------------------


def test_a_challenge_page_marked_by_pc_status_never_reaches_the_judge(crawlbase, judge, verify):
    crawlbase.add(URL, markdown=CHALLENGE, cb_status=503, cb_status_js=503)
    verdict, _ = verify(CLAIM, [URL])

    (citation,) = verdict.citations
    assert (citation.label, citation.reason) == (Label.UNREACHABLE, "crawl_status_503")
    assert not citation.checked  # the crawler could not get the page: not a finding
    assert judge.call_count == 0
    # Escalated once to JavaScript, which met the same challenge (F6).
    assert [(r.javascript, r.readability) for r in crawlbase.requests] == [
        (False, True),
        (True, True),
    ]


def test_a_challenge_on_the_normal_token_that_a_browser_passes_is_judged(
    crawlbase, judge, verify, article
):
    crawlbase.add(URL, markdown=CHALLENGE, cb_status=503, markdown_js=article(CLAIM))
    verdict, _ = verify(CLAIM, [URL])
    assert verdict.label is Label.SUPPORTED
    assert [r.javascript for r in crawlbase.requests] == [False, True]


@pytest.mark.parametrize("status", [403, 429, 500, 503])
def test_an_origin_that_refuses_is_unreachable_with_its_status(
    status, crawlbase, judge, verify, article
):
    crawlbase.add(URL, markdown=article(CLAIM), original_status=status)
    verdict, _ = verify(CLAIM, [URL])

    (citation,) = verdict.citations
    assert (citation.label, citation.reason) == (Label.UNREACHABLE, f"http_{status}")
    assert citation.original_status == status
    assert judge.call_count == 0
    assert [r.javascript for r in crawlbase.requests] == [False, True]


def test_a_refused_origin_is_a_finding_and_is_not_billed(crawlbase, judge, verify, article):
    crawlbase.add(URL, markdown=article(CLAIM), original_status=403)
    verdict, verifier = verify(CLAIM, [URL])
    assert verdict.citations[0].checked
    assert verifier.usage.credits == 0


def test_out_of_credits_stops_the_run_without_trying_the_other_token(crawlbase, judge, verify):
    crawlbase.add(URL, errors=[402])
    with pytest.raises(CreditsExhaustedError, match=r"CRAWLBASE_TOKEN.*out of credits"):
        verify(CLAIM, [URL])
    assert crawlbase.crawl_count == 1


def test_a_rejected_request_is_invalid_url_without_a_second_try(crawlbase, judge, verify):
    crawlbase.add(URL, errors=[422])
    verdict, _ = verify(CLAIM, [URL])

    (citation,) = verdict.citations
    assert (citation.label, citation.reason) == (Label.NOT_FOUND, Reason.INVALID_URL)
    assert crawlbase.crawl_count == 1
    assert judge.call_count == 0


# -- Limits -----------------------------------------------------------------------------------


def test_a_peer_that_trickles_bytes_is_cut_off_by_the_deadline(crawlbase, judge, verify, article):
    crawlbase.add(URL, markdown=article(CLAIM), trickle=0.2)  # read timeout never fires
    started = time.monotonic()
    verdict, _ = verify(CLAIM, [URL], read_timeout=5.0, deadline=1.0, retries=3)
    elapsed = time.monotonic() - started

    (citation,) = verdict.citations
    assert (citation.label, citation.reason) == (Label.UNREACHABLE, Reason.FETCH_ERROR)
    assert any("no answer within 1 s" in problem for problem in verdict.problems)
    assert elapsed < 4


def test_a_peer_that_never_answers_costs_one_deadline_not_every_retry(crawlbase, judge, verify):
    crawlbase.add(URL, hang=True)
    started = time.monotonic()
    verdict, _ = verify(CLAIM, [URL], read_timeout=30.0, deadline=1.0, retries=3)
    assert verdict.citations[0].reason == Reason.FETCH_ERROR
    assert time.monotonic() - started < 4


def test_a_huge_page_is_cut_at_the_cap_and_says_so(crawlbase, judge, verify):
    paragraphs = [
        f"Paragraph {n} tells of river {n * 7919 % 100_003} and hill {n}." for n in range(40_000)
    ]
    paragraphs[100] = CLAIM
    page = "\n\n".join(paragraphs)
    assert len(page) > 2_000_000
    crawlbase.add(URL, markdown=page)
    started = time.monotonic()
    verdict, _ = verify(CLAIM, [URL], max_page_chars=50_000)

    (citation,) = verdict.citations
    assert citation.label is Label.SUPPORTED
    (warning,) = citation.warnings
    assert warning.startswith("page_truncated: kept ")
    kept = int(warning.split()[2])
    assert 25_000 <= kept <= 50_000
    assert warning.endswith(f"of {len(page)} characters")
    assert time.monotonic() - started < 30


# -- One citation's failure is its verdict ---------------------------------------------------


def test_a_judge_that_is_down_gives_unchecked_verdicts_not_a_crash(
    crawlbase, judge, settings, article, refused_url
):
    crawlbase.add(URL, markdown=article(CLAIM))
    config = settings(openai_base_url=refused_url, retries=1)
    verdict = _run(Verifier(config, embedder=LexicalEmbedder()), CLAIM, [URL])

    (citation,) = verdict.citations
    assert (citation.label, citation.reason) == (Label.NOT_FOUND, Reason.JUDGE_ERROR)
    assert not verdict.complete


def test_crawlbase_down_gives_unchecked_verdicts_not_a_crash(judge, settings, refused_url):
    config = settings(crawlbase_api_url=refused_url, retries=1)
    verdict = _run(Verifier(config, embedder=LexicalEmbedder()), CLAIM, [URL, IDN_URL])

    assert [c.reason for c in verdict.citations] == [Reason.FETCH_ERROR] * 2
    assert all(c.label is Label.UNREACHABLE for c in verdict.citations)
    assert verdict.problems == (
        "fetching the page failed: Crawlbase crawl: connection failed (ConnectError)",
    )
    assert not verdict.complete


class Exploding(httpx.AsyncBaseTransport):
    """A transport that fails in a way no transport should: the verifier must survive it."""

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        raise RuntimeError(f"unexpected failure for {request.url}")


def test_an_unexpected_error_in_one_citation_is_a_labelled_verdict(
    crawlbase, judge, settings, secret_values
):
    config = settings()
    verifier = Verifier(
        config, embedder=LexicalEmbedder(), http=config.http_client(Exploding())
    )
    verdict = _run(verifier, CLAIM, [URL])

    (citation,) = verdict.citations
    assert (citation.label, citation.reason) == (Label.UNREACHABLE, Reason.FETCH_ERROR)
    assert verdict.problems == ("fetching the page failed (RuntimeError)",)


def test_no_error_below_the_transport_carries_a_request_or_a_cause(
    settings, refused_url, secret_values
):
    config = settings(crawlbase_api_url=refused_url)
    transport = config.transport()
    request = config.http_client(transport).build_request(
        "GET", refused_url, params={"token": "<CRAWLBASE_TOKEN>", "url": URL}
    )

    async def scenario() -> BaseException:
        try:
            await transport.handle_async_request(request)
        except httpx.TransportError as error:
            return error
        finally:
            await transport.aclose()
        raise AssertionError("the request went through")

    error = asyncio.run(scenario())
    assert isinstance(error, httpx.ConnectError)
    assert error.__cause__ is None
    assert error.__context__ is None
    with pytest.raises(RuntimeError):
        _ = error.request  # no request attached: its URL held the real token
    for secret in secret_values:
        assert secret not in repr(error) + str(error)


def test_emulators_used_here_really_demand_the_tokens(
    crawlbase: CrawlbaseEmulator, judge: JudgeEmulator
) -> None:
    """The placeholder tests above mean something only if a placeholder is refused."""
    response = httpx.get(crawlbase.url, params={"token": "<CRAWLBASE_TOKEN>", "url": URL})
    assert response.status_code == 401
