"""Who the service answers (issue 17, "The service"): only JSON bodies, only its own Host
names, never a page of another origin (no CORS), and only callers with its token when one is
set. Each refusal spends nothing: the emulators' request logs stay empty.

The app runs under uvicorn on 127.0.0.1 (``running.serving``), configured from an
environment mapping as ``serve`` reads it; the headers a browser would send are sent by
httpx here (``test_browser.py`` has a real browser send them).
"""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest
from ops_support import BOILING_URL, SUPPORTED_CLAIM, Web
from running import Service, assert_no_secret, serving

from pytest_citations.errors import ConfigurationError
from pytest_citations.service import Access

CLAIM = {"claim": SUPPORTED_CLAIM, "urls": [BOILING_URL]}
JSON_BODY = b'{"claim": "Water boils at 100 \xc2\xb0C at sea level.", "urls": ["' + (
    BOILING_URL.encode() + b'"]}'
)
#: The service's token in these tests, and a wrong one: neither may ever be shown.
TOKEN = "svc-canary-token-3f9a1c7e5b2d"
WRONG = "svc-wrong-canary-88d1e4c2a7f0"


def assert_nothing_spent(web: Web) -> None:
    assert web.crawlbase.requests == []
    assert web.judge.calls == []


def assert_no_cors(response: httpx.Response) -> None:
    cors = [name for name in response.headers if name.lower().startswith("access-control-")]
    assert cors == [], cors


def own_host(service: Service, name: str = "127.0.0.1") -> str:
    return f"{name}:{service.address[1]}"


# -- Content-Type ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "content_type",
    [
        "text/plain",
        "text/plain;charset=UTF-8",  # what a page's fetch(..., {mode: "no-cors"}) sends
        "application/x-www-form-urlencoded",
        "multipart/form-data; boundary=x",
        None,
        "application/json; charset=latin-1",
        "application/jsonp",
        "application/json-patch+json",
    ],
    ids=[
        "text-plain",
        "text-plain-utf8",
        "form",
        "multipart",
        "missing",
        "latin-1",
        "jsonp",
        "json-patch",
    ],
)
def test_a_body_that_is_not_json_answers_415_and_spends_nothing(
    service: Service, counters: Web, content_type: str | None
) -> None:
    headers = {} if content_type is None else {"content-type": content_type}

    response = service.verify(content=JSON_BODY, headers=headers)

    assert response.status_code == 415, response.text
    assert "application/json" in response.json()["detail"]
    assert_no_cors(response)
    assert_nothing_spent(counters)


@pytest.mark.parametrize(
    "content_type", ["application/json", "application/json; charset=utf-8",
                     'Application/JSON; charset="UTF-8"'],
)  # fmt: skip
def test_a_json_body_is_verified(service: Service, counters: Web, content_type: str) -> None:
    response = service.verify(content=JSON_BODY, headers={"content-type": content_type})

    assert response.status_code == 200, response.text
    assert response.json()["overall"] == "supported"
    assert counters.judge.call_count == 1


# -- Origin and CORS ---------------------------------------------------------------------


def test_a_cors_preflight_is_refused(service: Service, counters: Web) -> None:
    for origin in ("http://evil.example", f"http://{own_host(service)}"):
        response = service.client.options(
            service.url + "/verify",
            headers={
                "origin": origin,
                "access-control-request-method": "POST",
                "access-control-request-headers": "content-type",
            },
        )
        assert response.status_code == 403, (origin, response.text)
        assert "CORS" in response.json()["detail"]
        assert_no_cors(response)
    assert_nothing_spent(counters)


@pytest.mark.parametrize(
    "origin",
    ["http://evil.example", "http://127.0.0.1:9", "https://{own}", "http://localhost:{port}",
     "null", "http://evil.example/path"],
    ids=["other-site", "other-port", "other-scheme", "other-name", "null", "not-an-origin"],
)  # fmt: skip
def test_a_request_from_another_origin_answers_403(
    service: Service, counters: Web, origin: str
) -> None:
    origin = origin.format(own=own_host(service), port=service.address[1])

    verify = service.verify(CLAIM, headers={"origin": origin})
    health = service.client.get(service.url + "/health", headers={"origin": origin})

    assert verify.status_code == 403, verify.text
    assert "another origin" in verify.json()["detail"]
    assert health.status_code == 403
    assert_no_cors(verify)
    assert_nothing_spent(counters)


@pytest.mark.parametrize("site", ["cross-site", "same-site", "Cross-Site"])
def test_sec_fetch_site_from_another_site_answers_403(
    service: Service, counters: Web, site: str
) -> None:
    # A no-cors GET from another page sends no Origin; Sec-Fetch-Site still says where from.
    health = service.client.get(service.url + "/health", headers={"sec-fetch-site": site})
    verify = service.verify(CLAIM, headers={"sec-fetch-site": site})

    assert health.status_code == 403
    assert verify.status_code == 403
    assert_nothing_spent(counters)


def test_the_services_own_origin_is_answered(service: Service, counters: Web) -> None:
    own = {"origin": f"http://{own_host(service)}", "sec-fetch-site": "same-origin"}
    by_name = {
        "host": own_host(service, "localhost"),
        "origin": f"http://{own_host(service, 'localhost')}",
    }

    verified = service.verify(CLAIM, headers=own)
    named = service.client.get(service.url + "/health", headers=by_name)
    typed = service.client.get(service.url + "/health", headers={"sec-fetch-site": "none"})

    assert verified.status_code == 200, verified.text
    assert named.status_code == 200, named.text
    assert typed.status_code == 200, typed.text
    assert_no_cors(verified)
    assert counters.judge.call_count == 1


def test_an_allowed_origin_is_answered_without_cors(web: Web, counters: Web) -> None:
    env = {**web.env, "CITATIONS_SERVICE_ALLOW_ORIGINS": "https://app.example, http://b.test:81"}
    with serving(env) as service:
        allowed = service.verify(
            CLAIM, headers={"origin": "https://app.example", "sec-fetch-site": "cross-site"}
        )
        second = service.client.get(service.url + "/health", headers={"origin": "http://b.test:81"})
        other = service.verify(CLAIM, headers={"origin": "https://evil.example"})

    assert allowed.status_code == 200, allowed.text
    assert_no_cors(allowed)
    assert second.status_code == 200
    assert other.status_code == 403
    assert counters.judge.call_count == 1


# -- Host --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "host",
    ["rebind.example:{port}", "rebind.example", "127.0.0.1:9", "localhost.:{port}",
     "127.0.0.1.nip.io:{port}", "evil.example:{port}@127.0.0.1"],
    ids=["rebinding-name", "no-port", "other-port", "trailing-dot", "wildcard-dns", "userinfo"],
)  # fmt: skip
def test_a_host_that_is_not_the_service_answers_421(
    service: Service, counters: Web, host: str
) -> None:
    host = host.format(port=service.address[1])

    verify = service.verify(CLAIM, headers={"host": host})
    health = service.client.get(service.url + "/health", headers={"host": host})
    docs = service.client.get(service.url + "/openapi.json", headers={"host": host})

    assert verify.status_code == 421, verify.text
    assert "--allow-host" in verify.json()["detail"]
    assert host not in verify.text  # the caller's value is not repeated
    assert (health.status_code, docs.status_code) == (421, 421)
    assert_nothing_spent(counters)


def test_every_loopback_name_of_the_address_is_answered(service: Service) -> None:
    for name in ("127.0.0.1", "localhost", "LOCALHOST", "[::1]"):
        response = service.client.get(
            service.url + "/health", headers={"host": own_host(service, name)}
        )
        assert response.status_code == 200, (name, response.text)


@pytest.mark.parametrize(
    ("host", "server", "answered"),
    [
        ("192.0.2.5:8000", ("::ffff:192.0.2.5", 8000), True),  # a dual-stack socket's view
        ("[0:0::1]:8000", ("127.0.0.1", 8000), True),
        ("localhost:8000", ("::ffff:127.0.0.1", 8000), True),
        ("localhost:8000", ("192.0.2.5", 8000), False),  # loopback names only on loopback
        ("192.0.2.6:8000", ("192.0.2.5", 8000), False),
        ("localhost", None, True),  # a Unix socket
        ("rebind.example", None, False),
    ],
)
def test_the_address_a_request_arrived_on_is_matched_in_any_spelling(
    host: str, server: tuple[str, int] | None, answered: bool
) -> None:
    assert Access().host_allowed(host, server, "http") is answered


def test_an_allowed_host_is_answered(web: Web, counters: Web) -> None:
    env = {**web.env, "CITATIONS_SERVICE_ALLOW_HOSTS": "citations.internal,proxy.example:8443"}
    with serving(env) as service:
        any_port = service.verify(CLAIM, headers={"host": "citations.internal"})
        on_port = service.client.get(
            service.url + "/health", headers={"host": "proxy.example:8443"}
        )
        other_port = service.client.get(
            service.url + "/health", headers={"host": "proxy.example:9"}
        )
        other = service.client.get(service.url + "/health", headers={"host": "evil.example"})
        # Behind the proxy, its origin is the service's own.
        same_origin = service.client.get(
            service.url + "/health",
            headers={"host": "citations.internal", "origin": "http://citations.internal"},
        )

    assert any_port.status_code == 200, any_port.text
    assert on_port.status_code == 200
    assert (other_port.status_code, other.status_code) == (421, 421)
    assert same_origin.status_code == 200
    assert counters.judge.call_count == 1


@pytest.mark.parametrize(
    ("variable", "value"),
    [("CITATIONS_SERVICE_ALLOW_HOSTS", "http://x.example"),
     ("CITATIONS_SERVICE_ALLOW_HOSTS", "*"),
     ("CITATIONS_SERVICE_ALLOW_ORIGINS", "https://x.example/path"),
     ("CITATIONS_SERVICE_ALLOW_ORIGINS", "x.example")],
)  # fmt: skip
def test_a_bad_allow_list_entry_is_a_configuration_error(variable: str, value: str) -> None:
    with pytest.raises(ConfigurationError, match=r"allowed (host|origin)"):
        Access.from_env({variable: value})


# -- the token ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def guarded(web: Web) -> Iterator[Service]:
    """The service with a token."""
    with serving({**web.env, "CITATIONS_SERVICE_TOKEN": TOKEN}) as running:
        yield running


@pytest.mark.parametrize(
    "authorization",
    [None, f"Bearer {WRONG}", f"Bearer {TOKEN[:-1]}", f"Basic {TOKEN}", TOKEN, "Bearer",
     f"Bearer {TOKEN}x"],
    ids=["missing", "wrong", "prefix", "basic", "no-scheme", "empty", "longer"],
)  # fmt: skip
def test_without_the_token_every_route_answers_401(
    guarded: Service, counters: Web, authorization: str | None
) -> None:
    headers = {} if authorization is None else {"authorization": authorization}

    answers = [
        guarded.verify(CLAIM, headers=headers),
        guarded.client.get(guarded.url + "/health", headers=headers),
        guarded.client.get(guarded.url + "/no-such-route", headers=headers),
    ]

    for response in answers:
        assert response.status_code == 401, response.text
        assert response.headers["www-authenticate"] == "Bearer"
        assert "CITATIONS_SERVICE_TOKEN" in response.json()["detail"]
        shown = response.text + str(response.headers)
        assert TOKEN not in shown
        assert WRONG not in shown
        assert_no_secret(shown)
    assert_nothing_spent(counters)


def test_the_right_token_is_answered(guarded: Service, counters: Web) -> None:
    for scheme in ("Bearer", "bearer"):
        headers = {"authorization": f"{scheme} {TOKEN}"}
        verified = guarded.verify(CLAIM, headers=headers)
        health = guarded.client.get(guarded.url + "/health", headers=headers)
        assert verified.status_code == 200, verified.text
        assert verified.json()["overall"] == "supported"
        assert health.json()["status"] == "ok"
        assert TOKEN not in verified.text + health.text
    assert counters.judge.call_count == 2


def test_the_documentation_is_open_without_the_token(guarded: Service) -> None:
    described = guarded.client.get(guarded.url + "/openapi.json")
    docs = guarded.client.get(guarded.url + "/docs")

    assert described.status_code == 200
    assert docs.status_code == 200
    assert TOKEN not in described.text + docs.text
    # The description declares the bearer scheme, so that /docs can send it.
    document = described.json()
    assert document["components"]["securitySchemes"]["HTTPBearer"]["scheme"] == "bearer"
    assert document["paths"]["/verify"]["post"]["security"] == [{"HTTPBearer": []}]


def test_the_token_is_still_refused_from_another_origin_or_host(
    guarded: Service, counters: Web
) -> None:
    token = {"authorization": f"Bearer {TOKEN}"}
    foreign = guarded.verify(CLAIM, headers={**token, "origin": "http://evil.example"})
    rebound = guarded.verify(CLAIM, headers={**token, "host": "rebind.example"})

    assert foreign.status_code == 403
    assert rebound.status_code == 421
    assert_nothing_spent(counters)


@pytest.mark.parametrize(
    "value", ["short-token", "a token with spaces in it", "jeton-trop-court-é-0123456789"]
)
def test_a_weak_token_is_a_configuration_error_without_its_value(value: str) -> None:
    with pytest.raises(ConfigurationError) as refused:
        Access.from_env({"CITATIONS_SERVICE_TOKEN": value})

    assert "CITATIONS_SERVICE_TOKEN" in str(refused.value)
    assert value not in str(refused.value)


def test_the_token_is_masked_wherever_access_is_shown() -> None:
    access = Access.from_env({"CITATIONS_SERVICE_TOKEN": TOKEN})

    assert access.token is not None
    assert TOKEN not in repr(access) + str(access) + repr(access.token)
