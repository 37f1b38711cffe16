"""The engine's only HTTP client: requests built with explicit timeouts and placeholders for
secrets, sent through a transport chain (the plugin puts its cassettes in front of the
network), logged without a secret."""

from __future__ import annotations

import logging
from collections.abc import Mapping

import httpx

from .config import NetworkConfig

USER_AGENT = "pytest-citations"


#: Logs each request as httpx would, but with the placeholders a request carries, never a
#: secret: ``HTTP Request: GET https://api.crawlbase.com/?token=<CRAWLBASE_TOKEN>&… "200"``.
log = logging.getLogger("pytest_citations.http")


class HttpClient:
    """Builds requests (explicit timeouts, no redirects, a fixed user agent) and sends them
    through a transport chain. The engine's only HTTP client."""

    def __init__(self, config: NetworkConfig, transport: httpx.AsyncBaseTransport) -> None:
        self.transport = transport
        self._timeout = httpx.Timeout(config.read_timeout, connect=config.connect_timeout).as_dict()

    def build_request(
        self,
        method: str,
        url: str,
        *,
        params: Mapping[str, str] | None = None,
        headers: Mapping[str, str] | None = None,
        content: bytes | None = None,
    ) -> httpx.Request:
        """A request ready to send; secrets appear in it only as placeholders."""
        return httpx.Request(
            method,
            url,
            params=params,
            headers={"user-agent": USER_AGENT, "accept-encoding": "gzip", **(headers or {})},
            content=content,
            extensions={"timeout": self._timeout},
        )

    async def send(self, request: httpx.Request) -> httpx.Response:
        """Send through the transport chain and read the whole body."""
        response = await self.transport.handle_async_request(request)
        await response.aread()
        log.info(
            'HTTP Request: %s %s "%d %s"',
            request.method,
            request.url,
            response.status_code,
            response.reason_phrase,
        )
        return response

    async def aclose(self) -> None:
        """Close the transport chain (and its connections)."""
        await self.transport.aclose()


#: Response extension set by a transport that answered from a recording (nothing was spent).
REPLAYED = "pytest_citations.replayed"


def is_replayed(response: httpx.Response) -> bool:
    """True when a recording, not the network, answered this request."""
    return bool(response.extensions.get(REPLAYED))


#: Response extension set with :data:`REPLAYED`: how many recordings of this very request
#: the recording holds (the judge's votes on one citation are as many identical requests).
RECORDED = "pytest_citations.recorded"


def recorded_copies(response: httpx.Response) -> int:
    """How many recordings of the request a replayed response came from (0 when live)."""
    found = response.extensions.get(RECORDED)
    return found if isinstance(found, int) and is_replayed(response) else 0
