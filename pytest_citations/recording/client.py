"""The one way to build an HTTP client whose traffic goes through a run's cassettes: the
plugin, the drift check and the commands all use it."""

from __future__ import annotations

from typing import TYPE_CHECKING

import httpx

from ..network.client import HttpClient
from .library import CassetteLibrary
from .transport import CassetteTransport

if TYPE_CHECKING:
    from ..pipeline.settings import Settings


def recorded_client(
    settings: Settings, library: CassetteLibrary, network: httpx.AsyncBaseTransport | None = None
) -> HttpClient:
    """A client that replays from the active cassette of ``library``, records what its mode
    allows and refuses the rest; a request it may send goes to ``network`` (the real network
    by default: drift's offline replay passes a transport that refuses everything)."""
    return settings.http_client(CassetteTransport(library, network or settings.transport()))
