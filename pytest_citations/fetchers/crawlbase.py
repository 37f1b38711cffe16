"""The Crawlbase Crawling and Storage APIs over httpx.

Not through the ``crawlbase`` SDK: it disables certificate verification, drops the
``storage_url`` header that carries the ``rid``, and is synchronous.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import parse_qs, urljoin, urlsplit

import httpx

from ..errors import AuthenticationError, CitationsError, CreditsExhaustedError
from ..network.budget import Price, Spend, account, priced
from ..network.limits import FETCH
from ..network.requester import RETRYABLE_STATUSES, Requester
from ..network.transport import placeholder
from ..network.usage import CREDITS, Charge, Usage
from .base import PageResponse

#: The environment variables of the Crawling API: the normal and the JavaScript token, and
#: the API's base URL (point it at an emulator or a proxy).
TOKEN, JS_TOKEN, API_URL = "CRAWLBASE_TOKEN", "CRAWLBASE_JS_TOKEN", "CRAWLBASE_API_URL"
DEFAULT_API_URL = "https://api.crawlbase.com/"
#: HTTP status of a failed crawl: not billed, escalated to JavaScript (F6), not retried.
CRAWL_FAILED_STATUS = 520
#: HTTP status of a request the API rejected (a URL it cannot crawl): the citation's URL is
#: invalid; no retry, and no second try on the JavaScript token.
REJECTED_STATUS = 422
#: Origin statuses Crawlbase bills when its own status is 200 (its "Response" page).
BILLABLE_ORIGIN_STATUSES = frozenset({200, 201, 204, 301, 302, 404, 410})


def billed(status: int, response: PageResponse) -> bool:
    """Crawlbase charges a crawl only when it answered HTTP 200 with its own status 200 and
    the origin answered a page, a redirect it followed, or a 404/410 (a 207 empty page, a
    captcha marked ``pc_status`` 503 or an origin 403 are free)."""
    origin = response.original_status
    return (
        status == 200
        and response.crawl_status in (None, 200)
        and (origin is None or origin in BILLABLE_ORIGIN_STATUSES)
    )


@dataclass(frozen=True)
class CrawlbaseConfig:
    """What the Crawlbase client takes: where the API is, and which of the account's tokens
    are set. Their values only the network transport holds; a request names them by
    placeholder."""

    api_url: str = DEFAULT_API_URL
    #: Whether ``CRAWLBASE_TOKEN`` and ``CRAWLBASE_JS_TOKEN`` are set.
    token: bool = False
    js_token: bool = False

    @classmethod
    def from_env(cls, environ: Mapping[str, str]) -> CrawlbaseConfig:
        """The config the documented variables give (``CRAWLBASE_API_URL``, the tokens)."""
        return cls(
            api_url=environ.get(API_URL, "").strip() or DEFAULT_API_URL,
            token=bool(environ.get(TOKEN, "").strip()),
            js_token=bool(environ.get(JS_TOKEN, "").strip()),
        )


class StoredPageNotFound(CitationsError):
    """The Storage API has no page for this rid (expired after 30 days, or never stored)."""


def rid_from_storage_url(storage_url: str | None) -> str | None:
    """Only the ``rid`` of a ``storage_url``: the full URL carries the token (F8)."""
    if not storage_url:
        return None
    values = parse_qs(urlsplit(storage_url).query).get("rid")
    return values[0] if values and values[0] else None


def _int_header(response: httpx.Response, *names: str) -> int | None:
    for name in names:
        raw = response.headers.get(name)
        if raw is not None:
            try:
                return int(raw.strip())
            except ValueError:
                continue
    return None


class CrawlbaseClient:
    """Crawls pages as markdown (F1) and reads stored pages back by rid (S1), counting each
    answer into ``usage``, the run's ledger."""

    #: The environment variables it reads (see :mod:`pytest_citations.pipeline.backends`).
    secret_variables = (TOKEN, JS_TOKEN)
    required_variables = (TOKEN,)
    endpoint_variables = (API_URL,)
    #: Reads its config from the environment (the pipeline calls it for the chosen fetcher).
    configure = staticmethod(CrawlbaseConfig.from_env)

    def __init__(self, config: CrawlbaseConfig, requester: Requester, usage: Usage) -> None:
        self.config = config
        self.requester = requester
        self.usage = usage
        self._base = config.api_url.rstrip("/") + "/"

    def _token(self, javascript: bool) -> tuple[str, dict[str, str]]:
        """The variable whose token an attempt uses, plus ``javascript=true`` when no
        JavaScript token is set (F6). The request carries only its placeholder; the network
        transport puts the value in."""
        if javascript and self.config.js_token:
            return JS_TOKEN, {}
        return TOKEN, ({"javascript": "true"} if javascript else {})

    @staticmethod
    def _check_account(response: httpx.Response, variable: str) -> None:
        """401/403 and 402 are about the account, not the page: they stop the run."""
        if response.status_code in (401, 403):
            raise AuthenticationError(variable, "Crawlbase", response.status_code)
        if response.status_code == 402:
            raise CreditsExhaustedError(variable)

    async def crawl(self, url: str, *, readability: bool, javascript: bool) -> PageResponse:
        """One Crawling API call: ``format=md``, ``store=true``, optional ``md_readability``."""
        variable, extra = self._token(javascript)
        params = {"token": placeholder(variable), "url": url, "format": "md", "store": "true"}
        if readability:
            params["md_readability"] = "true"
        params.update(extra)

        price = crawl_price(javascript)

        def build() -> httpx.Request:
            request = self.requester.http.build_request("GET", self._base, params=params)
            return priced(request, price)

        response = await self.requester.send(
            "Crawlbase crawl", build, retry_statuses=_CRAWL_RETRY_STATUSES, priority=FETCH
        )
        self._check_account(response, variable)
        account(self.usage, response)  # spent when live, saved when a recording answered
        return page_response(response, javascript)

    async def stored_page(self, rid: str) -> str:
        """The stored markdown of ``rid`` from the Storage API (free; any token of the account)."""
        if not rid:
            raise ValueError("a rid is required")
        # Any token of the account reads stored pages back.
        variable = JS_TOKEN if not self.config.token and self.config.js_token else TOKEN
        url = urljoin(self._base, "storage")

        def build() -> httpx.Request:
            return self.requester.http.build_request(
                "GET", url, params={"token": placeholder(variable), "rid": rid}
            )

        response = await self.requester.send("Crawlbase storage", build, priority=FETCH)
        self._check_account(response, variable)
        self.usage.record(Charge(storage_read=True))
        if response.status_code == 404:
            raise StoredPageNotFound(f"no stored page for rid {rid!r}")
        if response.status_code != 200:
            raise CitationsError(f"Crawlbase storage answered HTTP {response.status_code}")
        return response.text


def page_response(response: httpx.Response, javascript: bool, *, body: bool = True) -> PageResponse:
    """What one Crawling API answer says about the page (without ``body``, what its status
    and headers say: all a price reads)."""
    ok = response.status_code == 200
    return PageResponse(
        markdown=response.text if ok and body else "",
        javascript=javascript,
        failed=not ok and response.status_code != REJECTED_STATUS,
        rejected=response.status_code == REJECTED_STATUS,
        crawl_status=_int_header(response, "cb_status", "pc_status"),
        original_status=_int_header(response, "original_status"),
        final_url=response.headers.get("url") or None,
        rid=rid_from_storage_url(response.headers.get("storage_url")),
    )


def credits_of(result: PageResponse) -> float:
    """The credits of a billed crawl: its kind, plus storage when the page was stored."""
    kind = "javascript" if result.javascript else "normal"
    return CREDITS[kind] + (CREDITS["storage"] if result.rid else 0.0)


def crawl_price(javascript: bool) -> Price:
    """A crawl's price for the run's budget: at most its kind plus storing the page (F6,
    F8); what Crawlbase bills for the answer (nothing for a failed crawl), read from its
    status and headers once for the budget and the usage report."""
    kind = "javascript" if javascript else "normal"

    def actual(response: httpx.Response) -> Charge:
        result = page_response(response, javascript, body=False)
        cost = credits_of(result) if billed(response.status_code, result) else 0.0
        return Charge(credits=cost, crawl=kind, stored=result.rid is not None)

    return Price(Spend(credits=CREDITS[kind] + CREDITS["storage"]), actual)


#: A failed crawl (520) is not retried: it escalates to JavaScript at once (F6).
_CRAWL_RETRY_STATUSES = RETRYABLE_STATUSES - {CRAWL_FAILED_STATUS}
