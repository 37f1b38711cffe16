"""Fetchers: a crawler per name, the fetch rules they share.

A new fetcher is one module with a class that satisfies
:class:`~pytest_citations.fetchers.base.Crawler` (constructed with ``(config, requester,
usage)``, its config read from the environment by its ``configure``) plus one line in
:data:`FETCHERS`.
"""

from __future__ import annotations

from .base import (
    Crawler,
    CrawlerFactory,
    FetchResult,
    PageResponse,
    StoredPageReader,
)
from .crawlbase import CrawlbaseClient, CrawlbaseConfig, StoredPageNotFound
from .rules import PAGE_LIMIT, fetch_citation

#: Fetchers by name (``Settings.fetcher``, ini ``citations_fetcher``).
FETCHERS: dict[str, CrawlerFactory] = {
    "crawlbase": CrawlbaseClient,
}

__all__ = [
    "FETCHERS",
    "PAGE_LIMIT",
    "CrawlbaseClient",
    "CrawlbaseConfig",
    "Crawler",
    "CrawlerFactory",
    "FetchResult",
    "PageResponse",
    "StoredPageNotFound",
    "StoredPageReader",
    "fetch_citation",
]
