"""Raw client sockets against a running service: many at once, each sending what a test
wants and read until the server closes it. This module holds no test."""

from __future__ import annotations

import contextlib
import selectors
import socket
import time
from collections.abc import Iterator
from dataclasses import dataclass, field

from running import Service

#: The timeouts the stall tests configure, in seconds.
TIMEOUT = 1.0
#: How long after its deadline a connection may still be open: a loaded machine's
#: scheduling.
SLACK = 4.0


@dataclass
class Connection:
    """A raw client socket, and what the server sent on it until it closed it."""

    sock: socket.socket
    received: bytearray = field(default_factory=bytearray)
    closed: bool = False


@contextlib.contextmanager
def connections(service: Service, count: int) -> Iterator[list[Connection]]:
    host, port = service.address
    opened = [Connection(socket.create_connection((host, port), timeout=10)) for _ in range(count)]
    try:
        yield opened
    finally:
        for connection in opened:
            connection.sock.close()


def head(service: Service, method: str, path: str, length: int | None = None) -> bytes:
    lines = [f"{method} {path} HTTP/1.1", f"Host: 127.0.0.1:{service.address[1]}"]
    if length is not None:
        lines += ["Content-Type: application/json", f"Content-Length: {length}"]
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


def wait_closed(opened: list[Connection], seconds: float, trickle: bytes = b"") -> float:
    """Read every connection until the server closes it, sending ``trickle`` (one byte at a
    time, every 0.2 s) on those still open; the seconds it took. The connections still open
    after ``seconds`` stay ``closed = False``."""
    start = time.monotonic()
    selector = selectors.DefaultSelector()
    for connection in opened:
        connection.sock.setblocking(False)
        selector.register(connection.sock, selectors.EVENT_READ, connection)
    sent, next_byte = 0, start
    while any(not c.closed for c in opened) and time.monotonic() - start < seconds:
        for key, _ in selector.select(timeout=0.05):
            connection = key.data
            try:
                chunk = connection.sock.recv(65536)
            except (ConnectionResetError, BlockingIOError):
                chunk = b""
            connection.received += chunk
            if not chunk:
                connection.closed = True
                selector.unregister(connection.sock)
        if trickle and time.monotonic() >= next_byte:
            byte = trickle[sent % len(trickle) : sent % len(trickle) + 1]
            for connection in opened:
                if not connection.closed:
                    with contextlib.suppress(OSError):
                        connection.sock.send(byte)
            sent, next_byte = sent + 1, next_byte + 0.2
    selector.close()
    return time.monotonic() - start
