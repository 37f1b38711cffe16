"""The httpx transport that replays from the active cassette, records what the mode allows,
and refuses the rest with a message naming the cassette and the command that records it."""

from __future__ import annotations

from typing import Any

import httpx
from vcr.request import Request as VcrRequest

from ..errors import OverBudget, RequestRefused
from ..network import RECORDED, REPLAYED
from ..pipeline.sharing import current_work
from .library import CassetteLibrary
from .scrub import _WIRE_HEADERS, _what_failed, describe, unrecordable
from .session import current_session


def _to_vcr_response(response: httpx.Response, content: bytes) -> dict[str, Any]:
    headers: dict[str, list[str]] = {}
    for name, value in response.headers.multi_items():
        headers.setdefault(name, []).append(value)
    return {
        "status": {"code": response.status_code, "message": response.reason_phrase},
        "headers": headers,
        "body": {"string": content},
    }


def _header_bytes(value: Any) -> bytes:
    """A stored header value for httpx: as UTF-8 bytes, since httpx encodes a ``str`` value
    as ASCII and a ``url`` header echoing an IDN (``https://bücher.example/``) is not."""
    if isinstance(value, bytes):
        return value
    return str(value).encode("utf-8")


def _from_vcr_response(recorded: dict[str, Any], request: httpx.Request) -> httpx.Response:
    headers = [
        (name, _header_bytes(value))
        for name, values in recorded.get("headers", {}).items()
        if name.lower() not in _WIRE_HEADERS
        for value in (values if isinstance(values, list) else [values])
    ]
    body = recorded.get("body", {}).get("string", b"")
    content = body.encode("utf-8") if isinstance(body, str) else bytes(body or b"")
    return httpx.Response(
        status_code=int(recorded["status"]["code"]),
        headers=headers,
        content=content,
        request=request,
    )


class CassetteTransport(httpx.AsyncBaseTransport):
    """Replays from the active cassette, records what the mode allows, refuses the rest.

    Failures (401/402/403, 429, 5xx, timeouts, connection errors) go back to the caller,
    which may retry, but are never recorded; one that stays unresolved keeps every cassette
    that depends on it as it was. A request the run's budget kept from being sent is no
    failure: the cassette keeps what was recorded, and a later run records the rest."""

    def __init__(self, library: CassetteLibrary, inner: httpx.AsyncBaseTransport) -> None:
        self.library = library
        self.inner = inner

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        session = current_session()
        if session is None:
            raise RequestRefused("a request was made outside any cassette")
        body = await request.aread()
        live = VcrRequest(request.method, str(request.url), body, dict(request.headers))
        cassette = session.cassette
        work = current_work.get()
        played = session.play(live)
        if played is not None:
            recorded, copies = played
            self.library.played += 1
            if session.may_record:
                self.library.remember(work, (cassette.filter_request(live), recorded))
            response = _from_vcr_response(recorded, request)
            response.extensions[REPLAYED] = True
            response.extensions[RECORDED] = copies
            return response
        scrubbed = cassette.filter_request(live) or live
        if not session.may_record:
            raise RequestRefused(
                f"{self.library.shown(session.path)} has no recording of {describe(scrubbed)}; "
                f"record it with: {self.library.record_command(session.path)}"
            )
        try:
            response = await self.inner.handle_async_request(request)
            try:
                content = await response.aread()
            finally:
                await response.aclose()
        except OverBudget as over:
            # Not a failure: what the run recorded stands, and the next run records this.
            raise OverBudget(
                f"{self.library.shown(session.path)} has no recording of {describe(scrubbed)}: "
                f"{over}; record it with: {self.library.record_command(session.path)}"
            ) from None
        except BaseException as error:
            self.library.failed(session, work, scrubbed, _what_failed(error, scrubbed))
            raise
        failure = unrecordable(scrubbed, response.status_code)
        if failure is not None:
            self.library.failed(session, work, scrubbed, failure)
        else:
            self.library.succeeded(session, work, scrubbed)
            before = len(cassette.data)
            cassette.append(live, _to_vcr_response(response, content))
            if len(cassette.data) > before:
                self.library.recorded += 1
                self.library.remember(work, cassette.data[-1])
        return httpx.Response(
            status_code=response.status_code,
            # Raw bytes, as they came: a non-ASCII value (an IDN in ``url``) stays intact.
            headers=[
                (name, value)
                for name, value in response.headers.raw
                if name.decode("latin-1").lower() not in _WIRE_HEADERS
            ],
            content=content,
            request=request,
        )

    async def aclose(self) -> None:
        await self.inner.aclose()
