"""A page of another site, in a real headless browser (Debian's Chromium through Playwright),
cannot use the service (issue 17, "The service"):

- served from another 127.0.0.1 port, its ``fetch(..., {mode: "no-cors"})`` calls and a
  ``text/plain`` form posted to ``/verify`` reach no judge and no Crawlbase;
- under DNS rebinding (its name resolving to 127.0.0.1, here by Chromium's
  ``--host-resolver-rules``), where its requests are same-origin to the browser and could
  read the answers, the service refuses them by their Host.
"""

from __future__ import annotations

import contextlib
import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from ops_support import BOILING_URL, SUPPORTED_CLAIM, Web
from running import Service

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
REBOUND = "rebind.test"
#: Chromium's own guard against public pages calling loopback (Private Network Access) is
#: turned off: other browsers have none, and the service must not depend on it.
NO_PRIVATE_NETWORK_GUARD = (
    "--disable-features=BlockInsecurePrivateNetworkRequests,PrivateNetworkAccessSendPreflights,"
    "PrivateNetworkAccessRespectPreflightResults,LocalNetworkAccessChecks"
)
BODY = json.dumps({"claim": SUPPORTED_CLAIM, "urls": [BOILING_URL]})

pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists(),
    reason="needs Debian's Chromium at /usr/bin/chromium (apt-get install chromium)",
)

#: What a hostile page tries: every way a page may send a body without asking (no CORS
#: preflight), then a form; it sets its title when it is done.
ATTACK = """<!doctype html><title>busy</title>
<form id="form" method="post" enctype="text/plain" target="sink" action="{target}/verify">
<input name='{{"claim": "{claim}", "urls": ["{url}"], "x": "' value='"}}'></form>
<iframe name="sink" id="sink"></iframe>
<script>
const body = {body};
const target = "{target}";
const tries = [
  fetch(target + "/verify", {{method: "POST", mode: "no-cors", body: JSON.stringify(body)}}),
  fetch(target + "/verify", {{method: "POST", mode: "no-cors", body: JSON.stringify(body),
                              headers: {{"Content-Type": "text/plain"}}}}),
  fetch(target + "/verify", {{method: "POST", mode: "no-cors", body: JSON.stringify(body),
                              headers: {{"Content-Type": "application/json"}}}}),
  fetch(target + "/verify", {{method: "POST", body: JSON.stringify(body),
                              headers: {{"Content-Type": "application/json"}}}}),
  fetch(target + "/health", {{mode: "no-cors"}}),
];
Promise.allSettled(tries).then(results => {{
  window.results = results.map(r => r.status);
  document.getElementById("sink").onload = () => {{ document.title = "done"; }};
  document.getElementById("form").submit();
}});
</script>
"""

#: The page after rebinding: same-origin to the browser, so it reads what it gets.
REBOUND_PAGE = """<!doctype html><title>busy</title><script>
fetch("/verify", {{method: "POST", body: JSON.stringify({body}),
                  headers: {{"Content-Type": "application/json"}}}})
  .then(async r => {{ window.answer = [r.status, await r.text()]; document.title = "done"; }})
  .catch(e => {{ window.answer = [0, String(e)]; document.title = "done"; }});
</script>"""


@contextlib.contextmanager
def hostile_site(page: str) -> Iterator[str]:
    """A site on another 127.0.0.1 port serving ``page`` at ``/``; its base URL."""

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            data = page.encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="module")
def chromium() -> Iterator[Any]:
    """One headless Chromium for the module, resolving ``rebind.test`` to 127.0.0.1."""
    from playwright.sync_api import sync_playwright  # the test extra; only Chromium may lack

    rules = f"--host-resolver-rules=MAP {REBOUND} 127.0.0.1"
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(
            executable_path=str(CHROMIUM), args=[*CHROMIUM_ARGS, rules, NO_PRIVATE_NETWORK_GUARD]
        )
        try:
            yield launched
        finally:
            launched.close()


def attack(service: Service) -> str:
    return ATTACK.format(target=service.url, body=BODY, claim=SUPPORTED_CLAIM, url=BOILING_URL)


def test_a_page_of_another_origin_spends_nothing(
    chromium: Any, service: Service, counters: Web
) -> None:
    answered: list[tuple[str, int]] = []
    context = chromium.new_context()
    try:
        page = context.new_page()
        page.on("response", lambda r: answered.append((r.url, r.status)))
        with hostile_site(attack(service)) as site:
            page.goto(site + "/")
            page.wait_for_function("document.title === 'done'", timeout=30_000)
    finally:
        context.close()

    assert counters.crawlbase.requests == []
    assert counters.judge.calls == []
    statuses = [status for url, status in answered if url.startswith(service.url)]
    assert len(statuses) >= 4, answered  # the browser did send them
    assert 200 not in statuses, answered


def test_dns_rebinding_is_refused_by_host(chromium: Any, service: Service, counters: Web) -> None:
    origin = f"http://{REBOUND}:{service.address[1]}"
    context = chromium.new_context()
    try:
        page = context.new_page()
        # The attacker's server answered the page itself; then the name moved to 127.0.0.1.
        page.route(
            origin + "/",
            lambda route: route.fulfill(
                status=200, content_type="text/html", body=REBOUND_PAGE.format(body=BODY)
            ),
        )
        page.goto(origin + "/")
        page.wait_for_function("document.title === 'done'", timeout=30_000)
        status, text = page.evaluate("window.answer")
    finally:
        context.close()

    assert status == 421, text
    assert "Host" in text
    assert counters.crawlbase.requests == []
    assert counters.judge.calls == []
