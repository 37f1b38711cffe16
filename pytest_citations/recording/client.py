"""The one way to build an HTTP client whose traffic goes through a run's cassettes: the
plugin, the drift check and the commands all use it."""

from __future__ import annotations

from typing import TYPE_CHECKING

import httpx

from ..errors import RequestRefused
from ..network.client import HttpClient
from ..network.usage import Usage
from .library import CassetteLibrary
from .transport import CassetteTransport

if TYPE_CHECKING:
    from ..pipeline.settings import Settings


class Offline(httpx.AsyncBaseTransport):
    """Below a replay-only cassette: nothing is ever sent; ``who`` says what refuses (a
    plan, a drift replay)."""

    def __init__(self, who: str) -> None:
        self.who = who

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        raise RequestRefused(f"{self.who} sends no request")


def recorded_client(
    settings: Settings,
    library: CassetteLibrary,
    network: httpx.AsyncBaseTransport | None = None,
    ledger: Usage | None = None,
) -> HttpClient:
    """A client that replays from the active cassette of ``library``, records what its mode
    allows and refuses the rest; a request it may send goes to ``network`` (the real network
    by default, whose budget reads the run's ``ledger``: drift's offline replay passes a
    transport that refuses everything). Below a library that only replays (mode ``none``),
    no cassette lets a request through, so no network is built."""
    if network is None:
        records = library.record_mode.records
        network = settings.transport(ledger) if records else Offline("a replay")
    return settings.http_client(CassetteTransport(library, network))
