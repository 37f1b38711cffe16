"""Shared plumbing for the HTTP emulators: a threaded HTTP/1.1 server in a daemon thread, on
127.0.0.1 only (they stand in for remote services; nothing else may reach them)."""

from __future__ import annotations

import contextlib
import json
import socket
import sys
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any, Self
from urllib.parse import parse_qs, urlsplit

HANG_SECONDS = 30.0


class Abort(Exception):
    """Raised by an emulator to drop the connection without answering (e.g. during shutdown)."""


@dataclass
class Request:
    """One parsed HTTP request handed to an emulator."""

    method: str
    path: str
    query: dict[str, str]
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        """The body decoded as JSON (raises ValueError when it is not)."""
        return json.loads(self.body.decode("utf-8"))


@dataclass
class Response:
    """What an emulator answers; the handler adds Content-Length and writes it in one go."""

    status: int
    body: bytes = b""
    content_type: str | None = None
    headers: list[tuple[str, str]] = field(default_factory=list)
    #: Seconds between two-byte chunks of the body: a peer that trickles (0: all at once).
    trickle: float = 0.0

    @classmethod
    def json(
        cls,
        status: int,
        payload: Any,
        headers: list[tuple[str, str]] | None = None,
    ) -> Response:
        """A JSON response."""
        body = json.dumps(payload, ensure_ascii=False).encode("utf-8")
        return cls(status, body, "application/json", list(headers or []))

    @classmethod
    def text(
        cls,
        status: int,
        text: str,
        headers: list[tuple[str, str]] | None = None,
    ) -> Response:
        """A text/plain UTF-8 response."""
        return cls(status, text.encode("utf-8"), "text/plain; charset=utf-8", list(headers or []))


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128
    allow_reuse_address = True

    def __init__(self, emulator: EmulatorBase, port: int) -> None:
        self.emulator = emulator
        self.connections: set[socket.socket] = set()
        self.connections_lock = threading.Lock()
        super().__init__(("127.0.0.1", port), _Handler)

    def handle_error(self, request: Any, client_address: Any) -> None:
        """Stay quiet about clients that went away (timeouts, closed pools)."""
        if isinstance(sys.exc_info()[1], OSError):
            return
        super().handle_error(request, client_address)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True
    server: _Server

    def setup(self) -> None:
        super().setup()
        with self.server.connections_lock:
            self.server.connections.add(self.connection)

    def finish(self) -> None:
        with self.server.connections_lock:
            self.server.connections.discard(self.connection)
        with contextlib.suppress(OSError):
            super().finish()

    def log_message(self, format: str, *args: Any) -> None:
        """Silence the default per-request logging."""

    def do_GET(self) -> None:
        self._dispatch()

    def do_POST(self) -> None:
        self._dispatch()

    def do_PUT(self) -> None:
        self._dispatch()

    def do_DELETE(self) -> None:
        self._dispatch()

    def _dispatch(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length > 0 else b""
        split = urlsplit(self.path)
        query = {
            key: values[0] for key, values in parse_qs(split.query, keep_blank_values=True).items()
        }
        headers = {key.lower(): value for key, value in self.headers.items()}
        request = Request(self.command, split.path or "/", query, headers, body)
        try:
            response = self.server.emulator.handle(request)
        except Abort:
            self.close_connection = True
            return
        self.send_response(response.status)
        if response.content_type is not None:
            self.send_header("Content-Type", response.content_type)
        for name, value in response.headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(response.body)))
        self.end_headers()
        if response.trickle > 0:
            self.wfile.flush()
            for start in range(0, len(response.body), 2):
                self.server.emulator._sleep(response.trickle)
                self.wfile.write(response.body[start : start + 2])
                self.wfile.flush()
        elif response.body:
            self.wfile.write(response.body)
        self.wfile.flush()


class EmulatorBase:
    """Base class: a context manager that runs a ThreadingHTTPServer on 127.0.0.1, on a free
    port unless :meth:`start` names one."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None
        self._in_flight = 0
        self._max_in_flight = 0

    # -- lifecycle -------------------------------------------------------------------------

    def start(self, port: int = 0) -> Self:
        """Bind ``port`` on 127.0.0.1 (0: a free one) and start serving in a daemon thread
        (idempotent). A port another program holds raises ``OSError`` (EADDRINUSE)."""
        if self._server is not None:
            return self
        self._stopping.clear()
        self._server = _Server(self, port)
        self._thread = threading.Thread(
            target=self._server.serve_forever,
            kwargs={"poll_interval": 0.05},
            name=f"{type(self).__name__}-server",
            daemon=True,
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving, wake sleeping handlers, close open connections and join the thread."""
        server, thread = self._server, self._thread
        if server is None:
            return
        self._stopping.set()
        server.shutdown()
        server.server_close()
        with server.connections_lock:
            connections = list(server.connections)
        for connection in connections:
            with contextlib.suppress(OSError):
                connection.shutdown(socket.SHUT_RDWR)
        if thread is not None:
            thread.join(timeout=5)
        self._server = None
        self._thread = None

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    @property
    def url(self) -> str:
        """Base URL, ending with "/" (e.g. "http://127.0.0.1:54321/")."""
        if self._server is None:
            raise RuntimeError(f"{type(self).__name__} is not running")
        port = self._server.server_address[1]
        return f"http://127.0.0.1:{port}/"

    @property
    def max_in_flight(self) -> int:
        """The highest number of counted requests that were being handled at the same time."""
        with self._lock:
            return self._max_in_flight

    # -- helpers for subclasses ------------------------------------------------------------

    def handle(self, request: Request) -> Response:
        """Answer one request (overridden by each emulator)."""
        raise NotImplementedError

    def _enter_flight(self) -> None:
        with self._lock:
            self._in_flight += 1
            self._max_in_flight = max(self._max_in_flight, self._in_flight)

    def _leave_flight(self) -> None:
        with self._lock:
            self._in_flight -= 1

    def _reset_flight(self) -> None:
        """Reset max_in_flight to the current in-flight count (caller holds the lock)."""
        self._max_in_flight = self._in_flight

    def _sleep(self, seconds: float) -> None:
        """Sleep, but raise Abort at once when the emulator is shutting down."""
        if seconds > 0 and self._stopping.wait(seconds):
            raise Abort
