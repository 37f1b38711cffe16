"""Connections that stall are cut off (issue 17, "The service"): a body that stops half-way
(300 of them once stayed open for good), headers that trickle in or never come, the rest of a
body a route did not read, and the next request on a kept-alive connection. Raw sockets talk
to the service on 127.0.0.1, served as ``serve`` serves it, with timeouts of one second.
"""

from __future__ import annotations

import time
from typing import Any

import httpx
import pytest
from ops_support import Web
from raw_sockets import SLACK, TIMEOUT, connections, head, wait_closed
from running import Service, serving, serving_asgi

from pytest_citations.service import Limits, ServerLimits

SHORT = Limits(body_timeout=TIMEOUT)
#: Room for every stalled connection: the limit on connections is tested on its own.
ROOMY = ServerLimits(header_timeout=TIMEOUT, max_connections=1000)


def assert_health(service: Service) -> None:
    response = service.client.get(service.url + "/health")
    assert response.status_code == 200, response.text


def test_300_stalled_bodies_are_answered_408_and_closed(web: Web, counters: Web) -> None:
    # The server's own cut (header + body timeout) comes later, leaving the application's
    # 408 room on a loaded machine.
    server = ServerLimits(header_timeout=3 * TIMEOUT, max_connections=1000)
    with serving(web.env, SHORT, server) as service, connections(service, 300) as opened:
        for connection in opened:
            connection.sock.sendall(head(service, "POST", "/verify", 1000) + b'{"claim": "Wa')

        took = wait_closed(opened, TIMEOUT + SLACK + 5)
        still_open = sum(not connection.closed for connection in opened)

        assert still_open == 0, f"{still_open} of 300 stalled connections still open"
        assert took < TIMEOUT + SLACK
        for connection in opened:
            assert connection.received.startswith(b"HTTP/1.1 408 "), bytes(connection.received)
            assert b"did not arrive within 1 s" in connection.received
        assert_health(service)
    assert counters.crawlbase.requests == []
    assert counters.judge.calls == []


@pytest.mark.parametrize(
    ("sent", "trickle"),
    [
        (b"", b""),  # a connection that never says anything
        (b"POST /verify HTTP/1.1\r\nHost: 127.0.0.1\r\n", b"X-Slow: 1\r\n"),  # slow headers
        (b"GET /health HTTP/1.1\r\n", b""),  # headers that stop
    ],
    ids=["silent", "trickled-headers", "stopped-headers"],
)
def test_headers_that_do_not_arrive_lose_the_connection(
    web: Web, sent: bytes, trickle: bytes
) -> None:
    with serving(web.env, SHORT, ROOMY) as service, connections(service, 50) as opened:
        for connection in opened:
            connection.sock.sendall(sent)

        took = wait_closed(opened, TIMEOUT + SLACK + 5, trickle)

        assert sum(not connection.closed for connection in opened) == 0
        assert took < TIMEOUT + SLACK
        assert_health(service)


def test_a_body_the_route_did_not_read_cannot_hold_the_connection(web: Web) -> None:
    # /health answers at once; the client then trickles the body it announced, byte by
    # byte, which used to cancel every timer uvicorn has.
    with serving(web.env, SHORT, ROOMY) as service, connections(service, 20) as opened:
        for connection in opened:
            connection.sock.sendall(head(service, "GET", "/health", 100_000) + b"{")

        took = wait_closed(opened, TIMEOUT + SLACK + 5, trickle=b"x")

        for connection in opened:
            assert connection.closed
            assert connection.received.startswith(b"HTTP/1.1 200 ")
        assert took < TIMEOUT + SLACK


def test_a_kept_alive_connection_cannot_trickle_its_next_request(web: Web) -> None:
    with serving(web.env, SHORT, ROOMY) as service, connections(service, 20) as opened:
        for connection in opened:
            connection.sock.sendall(head(service, "GET", "/health"))

        took = wait_closed(opened, TIMEOUT + SLACK + 5, trickle=b"GET /health HTTP/1.1\r\n")

        for connection in opened:
            assert connection.closed
            assert connection.received.startswith(b"HTTP/1.1 200 ")
            assert connection.received.count(b"HTTP/1.1 ") == 1  # no second answer
        assert took < TIMEOUT + SLACK


def test_connections_over_the_limit_are_answered_503(web: Web) -> None:
    limited = ServerLimits(header_timeout=30, max_connections=5)
    with serving(web.env, Limits(body_timeout=30), limited) as service:
        with connections(service, 5) as opened:
            for connection in opened:
                connection.sock.sendall(head(service, "POST", "/verify", 1000))
            time.sleep(0.3)
            over = httpx.get(service.url + "/health", timeout=10)
        after = service.client.get(service.url + "/health")

    assert over.status_code == 503
    assert after.status_code == 200


async def reads_without_a_deadline(scope: Any, receive: Any, send: Any) -> None:
    """An ASGI app whose route reads its body with no timeout of its own, and answers only
    once it has all of it."""
    if scope["type"] == "lifespan":
        while (message := await receive())["type"] != "lifespan.shutdown":
            await send({"type": "lifespan.startup.complete"})
        await send({"type": "lifespan.shutdown.complete"})
        return
    while (message := await receive()).get("more_body"):
        pass
    if message["type"] == "http.request":
        await send({"type": "http.response.start", "status": 204, "headers": []})
        await send({"type": "http.response.body", "body": b""})


def test_the_server_cuts_off_a_body_a_route_reads_without_a_deadline() -> None:
    # The service's own routes answer 408 first; the server does not rely on them.
    with (
        serving_asgi(reads_without_a_deadline, SHORT, ROOMY) as service,
        connections(service, 20) as opened,
    ):
        for connection in opened:
            connection.sock.sendall(head(service, "POST", "/upload", 1000) + b"{")

        took = wait_closed(opened, 2 * TIMEOUT + SLACK + 5)

        assert all(connection.closed for connection in opened)
        assert all(connection.received == b"" for connection in opened)
        assert 2 * TIMEOUT - 0.5 < took < 2 * TIMEOUT + SLACK  # header + body timeouts
        assert service.client.post(service.url + "/upload", content=b"{}").status_code == 204
