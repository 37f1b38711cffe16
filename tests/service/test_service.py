"""The ``/verify`` service of 000 (S2, issue 5) over real HTTP on 127.0.0.1.

The app runs under uvicorn in a background thread (``running.serving``), on a socket the test
binds to a free port; its settings come from an environment mapping that points at the
emulators. The ``serve`` command is also run as a subprocess and asked for ``/health``.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from ops_support import (
    BOILING_URL,
    CONTRADICTED_CLAIM,
    OLD_REPORT_URL,
    PDF_URL,
    SUPPORTED_CLAIM,
    Web,
)
from running import Service, assert_no_secret, serve_command, serving

from pytest_citations.sandbox import site as example_site
from pytest_citations.service import MAX_BODY_BYTES, MAX_CLAIM_CHARS, MAX_URLS, Limits
from pytest_citations.verdicts import VERDICT_FIELDS

# -- GET /health, POST /verify ----------------------------------------------------------------


def test_health(service: Service) -> None:
    response = service.client.get(service.url + "/health")

    assert response.status_code == 200
    assert response.json() == {
        "status": "ok",
        "judge": "openai",
        "model": "gpt-4o-mini",
        "missing": [],
    }
    assert_no_secret(response.text)


def test_verify_answers_000s_response(service: Service, counters: Web) -> None:
    response = service.verify({"claim": SUPPORTED_CLAIM, "urls": [BOILING_URL, OLD_REPORT_URL]})

    assert response.status_code == 200, response.text
    payload = response.json()
    assert list(payload) == ["claim", "overall", "citations"]
    assert payload["claim"] == SUPPORTED_CLAIM
    assert payload["overall"] == "supported"
    for citation in payload["citations"]:
        assert list(citation) == list(VERDICT_FIELDS)
    boiling, old_report = payload["citations"]
    assert (boiling["url"], boiling["label"], boiling["reason"]) == (BOILING_URL, "supported", None)
    assert boiling["evidence_quote"].startswith("Water boils at 100 °C (212 °F) at sea level")
    assert boiling["confidence"] == pytest.approx(0.9)
    assert boiling["final_url"] == BOILING_URL
    assert boiling["original_status"] == 200
    assert boiling["rid"] == counters.crawlbase.rid_for(BOILING_URL)
    assert (old_report["label"], old_report["reason"]) == ("unreachable", "http_404")
    assert old_report["original_status"] == 404
    assert counters.judge.call_count == 1  # the dead link never reaches the judge
    assert_no_secret(response.text)


def test_verify_a_contradicted_claim(service: Service) -> None:
    response = service.verify({"claim": CONTRADICTED_CLAIM, "urls": [BOILING_URL, PDF_URL]})

    assert response.status_code == 200, response.text
    payload = response.json()
    assert payload["overall"] == "contradicted"
    assert [c["label"] for c in payload["citations"]] == ["contradicted", "not_found"]
    assert payload["citations"][1]["reason"] == "pdf_unsupported"


def test_every_request_checks_the_page_as_it_is_now(web: Web, counters: Web) -> None:
    # 000: the verdict says whether the source supported the claim *at the time of checking*.
    # A page that changed (or failed once) must not be answered from an earlier request.
    url = "https://example.org/physics/boiling-revised"
    claim = "Water boils at 90 °C at sea level."
    counters.crawlbase.add(url, markdown=example_site.PAGES[BOILING_URL].markdown)
    try:
        with serving(web.env) as service:
            before = service.verify({"claim": claim, "urls": [url]})
            counters.crawlbase.add(
                url,
                markdown=example_site.PAGES[BOILING_URL].markdown.replace("100 °C", "90 °C"),
            )
            after = service.verify({"claim": claim, "urls": [url]})
    finally:
        counters.crawlbase.pages.pop(url, None)

    assert before.json()["overall"] == "contradicted", before.text
    assert after.json()["overall"] == "supported", after.text
    assert counters.crawlbase.count(url) == 2


# -- 503: a missing secret --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("unset", "named"),
    [
        (("CRAWLBASE_TOKEN",), ["CRAWLBASE_TOKEN"]),
        (("CRAWLBASE_TOKEN", "OPENAI_API_KEY"), ["CRAWLBASE_TOKEN", "OPENAI_API_KEY"]),
        (("OPENAI_API_KEY",), ["OPENAI_API_KEY"]),
    ],
    ids=["crawlbase", "both", "judge-only"],
)
def test_a_missing_secret_answers_503_naming_its_variable(
    web: Web, counters: Web, unset: tuple[str, ...], named: list[str]
) -> None:
    with serving(web.without(*unset)) as service:
        response = service.verify({"claim": SUPPORTED_CLAIM, "urls": [BOILING_URL]})
        health = service.client.get(service.url + "/health")

    assert response.status_code == 503
    for variable in named:  # every missing variable at once, not one per attempt
        assert variable in response.json()["detail"]
    assert_no_secret(response.text)  # the other secrets are set: their values never show
    assert health.status_code == 200
    assert health.json()["status"] == "degraded"
    assert health.json()["missing"] == named
    assert_no_secret(health.text)
    assert counters.crawlbase.crawl_count == 0  # nothing was spent
    assert counters.judge.call_count == 0


def test_a_refused_crawlbase_token_is_a_bad_gateway_without_the_value(
    web: Web, counters: Web
) -> None:
    refused = "ops-service-refused-token-6e2a"
    with serving({**web.env, "CRAWLBASE_TOKEN": refused}) as service:
        response = service.verify({"claim": SUPPORTED_CLAIM, "urls": [BOILING_URL]})

    assert response.status_code == 502
    assert "CRAWLBASE_TOKEN" in response.json()["detail"]
    assert refused not in response.text
    assert_no_secret(response.text)
    assert [record.status for record in counters.crawlbase.requests] == [401]


# -- 422: malformed requests ------------------------------------------------------------------


def as_json(payload: Any) -> bytes:
    return json.dumps(payload).encode()


NESTED = b'{"claim": "x", "urls": ' + b"[" * 20_000 + b"]" * 20_000 + b"}"


@pytest.mark.parametrize(
    ("body", "where"),
    [
        (b'{"claim": "Water boils", "urls": [', "body"),
        (b"\xff\xfe not json", "body"),
        (b"", "body"),
        (b'["Water boils at 100 \xc2\xb0C.", ["https://example.org/"]]', "body"),
        (as_json({"urls": [BOILING_URL]}), "claim"),
        (as_json({"claim": "   ", "urls": [BOILING_URL]}), "claim"),
        (as_json({"claim": 100, "urls": [BOILING_URL]}), "claim"),
        (as_json({"claim": "x" * (MAX_CLAIM_CHARS + 1), "urls": [BOILING_URL]}), "claim"),
        (as_json({"claim": SUPPORTED_CLAIM}), "urls"),
        (as_json({"claim": SUPPORTED_CLAIM, "urls": []}), "urls"),
        (as_json({"claim": SUPPORTED_CLAIM, "urls": BOILING_URL}), "urls"),
        (as_json({"claim": SUPPORTED_CLAIM, "urls": [1, 2]}), "urls"),
        (as_json({"claim": SUPPORTED_CLAIM, "urls": [""]}), "urls"),
        (as_json({"claim": SUPPORTED_CLAIM, "urls": [BOILING_URL], "k": 3}), "k"),
        (NESTED, "body"),
    ],
    ids=[
        "broken-json",
        "not-utf8",
        "empty-body",
        "not-an-object",
        "missing-claim",
        "blank-claim",
        "claim-not-a-string",
        "claim-too-long",
        "missing-urls",
        "empty-urls",
        "urls-not-a-list",
        "urls-not-strings",
        "blank-url",
        "unknown-field",
        "nested-too-deep",
    ],
)
def test_malformed_requests_answer_422(
    service: Service, counters: Web, body: bytes, where: str
) -> None:
    assert len(body) <= MAX_BODY_BYTES  # malformed, not too large

    response = service.verify(content=body, headers={"content-type": "application/json"})

    assert response.status_code == 422, response.text
    detail = response.json()["detail"]
    assert isinstance(detail, list)
    assert detail
    assert where in [part for error in detail for part in error["loc"]]
    assert counters.crawlbase.crawl_count == 0
    assert counters.judge.call_count == 0


@pytest.mark.parametrize(("method", "path"), [("GET", "/verify"), ("POST", "/health")])
def test_wrong_method_is_405(service: Service, method: str, path: str) -> None:
    assert service.client.request(method, service.url + path).status_code == 405


# -- limits -----------------------------------------------------------------------------------


def _oversized_body() -> bytes:
    urls = [f"https://example.org/page/{n:06d}" for n in range(3000)]
    body = as_json({"claim": SUPPORTED_CLAIM, "urls": urls})
    assert len(body) > MAX_BODY_BYTES
    return body


def test_a_body_over_the_limit_answers_413(service: Service, counters: Web) -> None:
    response = service.verify(
        content=_oversized_body(), headers={"content-type": "application/json"}
    )

    assert response.status_code == 413
    assert str(MAX_BODY_BYTES) in response.json()["detail"]
    assert counters.crawlbase.crawl_count == 0


def test_a_chunked_body_over_the_limit_answers_413(service: Service, counters: Web) -> None:
    body = _oversized_body()

    def chunks() -> Iterator[bytes]:  # no Content-Length: the service must count
        for start in range(0, len(body), 4096):
            yield body[start : start + 4096]

    response = service.verify(content=chunks(), headers={"content-type": "application/json"})

    assert response.status_code == 413
    assert counters.crawlbase.crawl_count == 0


def test_the_number_of_urls_is_limited(web: Web, counters: Web) -> None:
    with serving(web.env, Limits(max_urls=2)) as service:
        too_many = service.verify(
            {"claim": SUPPORTED_CLAIM, "urls": [BOILING_URL, OLD_REPORT_URL, PDF_URL]}
        )
        assert counters.crawlbase.crawl_count == 0
        allowed = service.verify({"claim": SUPPORTED_CLAIM, "urls": [BOILING_URL, OLD_REPORT_URL]})

    assert too_many.status_code == 422
    assert too_many.json()["detail"] == [{"loc": ["body", "urls"], "msg": "at most 2 urls"}]
    assert allowed.status_code == 200
    assert len(allowed.json()["citations"]) == 2


def test_the_default_url_limit_is_ten(service: Service, counters: Web) -> None:
    urls = [f"https://example.org/page/{n}" for n in range(MAX_URLS + 1)]

    response = service.verify({"claim": SUPPORTED_CLAIM, "urls": urls})

    assert MAX_URLS == 10  # as the README promises
    assert response.status_code == 422
    assert response.json()["detail"] == [{"loc": ["body", "urls"], "msg": "at most 10 urls"}]
    assert counters.crawlbase.crawl_count == 0


def test_a_body_limit_is_configurable(web: Web) -> None:
    with serving(web.env, Limits(max_body_bytes=100)) as service:
        small = service.verify({"claim": SUPPORTED_CLAIM, "urls": [BOILING_URL]})
        large = service.verify({"claim": SUPPORTED_CLAIM, "urls": [BOILING_URL] * 3})

    assert small.status_code == 200
    assert large.status_code == 413


# -- pytest-citations serve -------------------------------------------------------------------


def test_serve_command_answers_health_and_verify(web: Web, tmp_path: Path) -> None:
    log = tmp_path / "serve.log"
    with serve_command(["--host", "127.0.0.1"], web.env, log) as (base, health):
        verified = httpx.post(
            base + "/verify",
            json={"claim": SUPPORTED_CLAIM, "urls": [BOILING_URL]},
            timeout=60,
        )

    assert health.status_code == 200
    assert health.json()["status"] == "ok"  # the secrets came from the environment
    assert verified.status_code == 200, verified.text
    assert verified.json()["overall"] == "supported"
    output_text = log.read_text(encoding="utf-8", errors="replace")
    assert_no_secret(output_text)
    assert "Traceback" not in output_text


# -- Issue 8: one limit for every request, and URLs over the limit --------------------------


def test_concurrent_requests_share_one_limit_on_requests_in_flight(web: Web) -> None:
    # 50 concurrent /verify calls used to put 190 Crawlbase requests in flight with a limit
    # of 4: each request built its own verifier with its own semaphore.
    urls = [f"https://example.org/concurrency/{n}" for n in range(50)]
    for url in urls:
        web.crawlbase.add(url, markdown=example_site.PAGES[BOILING_URL].markdown, latency=0.05)
    web.crawlbase.reset_counters()
    env = {**web.env, "BATCH_CONCURRENCY": "4"}
    try:
        with serving(env) as service:

            def call(url: str) -> int:
                body = {"claim": SUPPORTED_CLAIM, "urls": [url]}
                return service.client.post(service.url + "/verify", json=body).status_code

            threads = [threading.Thread(target=call, args=(url,)) for url in urls]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join(timeout=60)
    finally:
        for url in urls:
            web.crawlbase.pages.pop(url, None)

    assert web.crawlbase.crawl_count == 50
    assert 1 <= web.crawlbase.max_in_flight <= 4


def test_a_url_over_the_length_limit_answers_422(service: Service, counters: Web) -> None:
    long_url = "https://example.org/" + "a" * 3_000  # the body stays under its own limit
    response = service.verify({"claim": SUPPORTED_CLAIM, "urls": [BOILING_URL, long_url]})

    assert response.status_code == 422, response.text
    (error,) = response.json()["detail"]
    assert error["loc"] == ["body", "urls", 1]
    assert "2048 characters" in error["msg"]
    assert counters.crawlbase.crawl_count == 0


def test_an_internationalised_url_is_verified_not_a_server_error(
    service: Service, counters: Web
) -> None:
    response = service.verify({"claim": SUPPORTED_CLAIM, "urls": ["https://bücher.example/straße"]})

    assert response.status_code == 200, response.text
    (citation,) = response.json()["citations"]
    assert citation["url"] == "https://bücher.example/straße"
    assert [r.target_url for r in counters.crawlbase.requests] == [
        "https://xn--bcher-kva.example/stra%C3%9Fe"
    ]
