"""What every fetcher shares: the crawler protocol, the response the fetch rules read, and
the result they give.

A fetcher is a crawler (one request: a URL, with or without readability, on the normal or
the JavaScript path, giving a :class:`PageResponse`) plus the rules of
:mod:`pytest_citations.fetchers.rules`, which are the same for every crawler.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from ..labels import Label
from ..retrieval.passages import page_text
from ..retrieval.selection import text_digest

if TYPE_CHECKING:
    from ..network.requester import Requester
    from ..network.usage import Usage


@dataclass(frozen=True)
class PageResponse:
    """What one crawl returned, in the terms of the fetch rules (secrets already gone)."""

    markdown: str
    javascript: bool
    #: The crawl itself failed (Crawlbase's HTTP 520): a browser may still help (F6).
    failed: bool = False
    #: The crawler refused this URL (Crawlbase's HTTP 422): ``invalid_url``, no second try.
    rejected: bool = False
    #: The crawler's own status of the page (Crawlbase's ``pc_status``/``cb_status``).
    crawl_status: int | None = None
    #: The status the cited site answered.
    original_status: int | None = None
    #: The URL after redirects.
    final_url: str | None = None
    #: The id of the stored copy of the page, if the crawler keeps one (F8).
    rid: str | None = None


class Crawler(Protocol):
    """What the fetch rules need from a crawl client."""

    async def crawl(self, url: str, *, readability: bool, javascript: bool) -> PageResponse:
        """One crawl of ``url`` (already in the form
        :func:`~pytest_citations.fetchers.urls.request_url` gives)."""
        ...


@runtime_checkable
class StoredPageReader(Protocol):
    """A crawler that keeps the pages it fetched and reads them back by rid (S1, F8)."""

    async def stored_page(self, rid: str) -> str:
        """The stored markdown of ``rid``."""
        ...


class CrawlerFactory(Protocol):
    """Builds a crawler from its own config, the shared HTTP sender and the run's usage. A
    fetcher whose factory has ``configure(environ)`` gets what that reads from the
    environment (:class:`~pytest_citations.fetchers.crawlbase.CrawlbaseConfig`); one
    without gets None."""

    def __call__(self, config: Any, requester: Requester, usage: Usage) -> Crawler:
        """A crawler for this run."""
        ...


@dataclass(frozen=True)
class FetchResult:
    """A fetched page ready to judge (``label`` None), or a verdict that needs no judge."""

    url: str
    markdown: str = ""
    final_url: str | None = None
    original_status: int | None = None
    rid: str | None = None
    javascript: bool = False
    label: Label | None = None
    reason: str | None = None
    warnings: tuple[str, ...] = ()

    @property
    def judgeable(self) -> bool:
        """True when the page goes on to retrieval and the judge."""
        return self.label is None

    # A fetched page is shared by every claim that cites it: its text and digest are
    # computed once, on first use, for all of them.
    @cached_property
    def text(self) -> str:
        """The page as passages are cut from it (:func:`~..retrieval.passages.page_text`):
        what a recorded choice's pieces index and the judge's texts are rebuilt from."""
        return page_text(self.markdown)

    @cached_property
    def digest(self) -> str:
        """The SHA-256 of :attr:`text`: the page's part of a recorded choice's key."""
        return text_digest(self.text)
