"""HTTP plumbing shared by the Crawlbase client and the judges.

Three pieces, from the wire up, one module each:

- :class:`NetworkTransport` speaks HTTP over httpcore and is the **only** place where a
  secret enters a request. Everything above it (the client, the Crawlbase client, the
  judges, the plugin's cassettes, every frame a traceback could show) builds and sees
  requests that carry placeholders such as ``token=<CRAWLBASE_TOKEN>`` or
  ``Authorization: Bearer <OPENAI_API_KEY>``; the transport swaps the real values in on the
  way out and swaps them back out of the response headers and body on the way in. Built on
  httpcore rather than ``httpx.AsyncHTTPTransport`` so that another plugin's vcrpy patch
  (pytest-recording patches ``AsyncHTTPTransport.handle_async_request``) never captures
  this traffic.
- :class:`HttpClient` builds requests with explicit timeouts and sends them through a
  transport chain (the plugin puts its cassette transport in front of the network). Not
  ``httpx.AsyncClient``: it logs every request URL at INFO and follows settings we do not
  want (environment proxies, cookies).
- :class:`Requester` sends under the run's concurrency limit, retries transient failures
  with backoff that honours ``Retry-After``, and bounds each request, retries included, by
  an overall deadline.

Each takes only the values it needs: :class:`NetworkConfig` (timeouts, retries, deadline,
requests in flight) and :class:`SpendingLimits` (the budget), read from their environment
variables in :mod:`.config`.
"""

from __future__ import annotations

from .client import (
    RECORDED,
    REPLAYED,
    HttpClient,
    is_replayed,
    recorded_copies,
)
from .config import NetworkConfig, SpendingLimits
from .limits import FETCH, JUDGE, RequestLimit
from .requester import RETRYABLE_STATUSES, Requester, TransientError, retry_after_seconds
from .transport import NetworkTransport, network_transport, placeholder

__all__ = [
    "FETCH",
    "JUDGE",
    "RECORDED",
    "REPLAYED",
    "RETRYABLE_STATUSES",
    "HttpClient",
    "NetworkConfig",
    "NetworkTransport",
    "RequestLimit",
    "Requester",
    "SpendingLimits",
    "TransientError",
    "is_replayed",
    "network_transport",
    "placeholder",
    "recorded_copies",
    "retry_after_seconds",
]
