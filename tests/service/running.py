"""The service under test: ``create_app`` served by uvicorn in a thread on 127.0.0.1, and a
client for it. This module holds no test."""

from __future__ import annotations

import contextlib
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import uvicorn
from ops_support import COMMAND, SECRETS, free_port

from pytest_citations.pipeline.settings import Settings
from pytest_citations.service import Access, Limits, ServerLimits, create_app
from pytest_citations.service.server import server_options


@dataclass
class Service:
    """A running app: its base URL and a client for it."""

    url: str
    client: httpx.Client

    @property
    def address(self) -> tuple[str, int]:
        """(host, port) of the service, for a raw socket."""
        host, _, port = self.url.removeprefix("http://").rpartition(":")
        return host, int(port)

    def verify(self, payload: Any = None, **kwargs: Any) -> httpx.Response:
        if payload is not None:
            kwargs["json"] = payload
        return self.client.post(self.url + "/verify", **kwargs)


@contextlib.contextmanager
def serving(
    env: dict[str, str], limits: Limits | None = None, server: ServerLimits | None = None
) -> Iterator[Service]:
    """``create_app`` configured from ``env`` (its settings, token and allowed names), served
    by uvicorn in a thread on 127.0.0.1 with the settings ``serve`` uses."""
    limits = limits or Limits()
    app = create_app(settings=Settings.from_env(env), limits=limits, access=Access.from_env(env))
    with serving_asgi(app, limits, server) as service:
        yield service


@contextlib.contextmanager
def serving_asgi(
    app: Any, limits: Limits | None = None, server: ServerLimits | None = None
) -> Iterator[Service]:
    """Any ASGI ``app`` served by uvicorn in a thread on 127.0.0.1 with the settings
    ``serve`` uses."""
    options = server_options(limits or Limits(), server or ServerLimits(), log_level="warning")
    uvicorn_server = uvicorn.Server(uvicorn.Config(app, **options))
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    thread = threading.Thread(target=uvicorn_server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + 30
        while not uvicorn_server.started:
            assert thread.is_alive(), "the service failed to start"
            assert time.monotonic() < deadline, "the service did not start within 30 s"
            time.sleep(0.02)
        with httpx.Client(timeout=60) as client:
            yield Service(f"http://127.0.0.1:{port}", client)
    finally:
        uvicorn_server.should_exit = True
        thread.join(timeout=30)
        sock.close()


def assert_no_secret(text: str) -> None:
    for variable, value in SECRETS.items():
        assert value not in text, f"the value of {variable} is in the response"


@contextlib.contextmanager
def serve_command(
    arguments: list[str], env: dict[str, str], log: Path
) -> Iterator[tuple[str, httpx.Response]]:
    """``pytest-citations serve ARGUMENTS`` on a free port in a process of its own, its output
    in ``log``: (its base URL, its first ``/health`` answer) once it answers; stopped after."""
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    with log.open("wb") as output:
        process = subprocess.Popen(
            [*COMMAND, "serve", "--port", str(port), *arguments],
            env=env,
            stdout=output,
            stderr=subprocess.STDOUT,
        )
        try:
            health = None
            deadline = time.monotonic() + 60
            while health is None:
                assert process.poll() is None, log.read_text(encoding="utf-8", errors="replace")
                assert time.monotonic() < deadline, "serve did not answer within 60 s"
                try:
                    health = httpx.get(base + "/health", timeout=5)
                except httpx.TransportError:
                    time.sleep(0.1)
            yield base, health
        finally:
            process.terminate()
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:  # pragma: no cover - a hung server
                process.kill()
                process.wait(timeout=30)
