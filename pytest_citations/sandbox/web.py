"""The web the sandbox serves: the pages of the shipped examples (:mod:`.site`, with the one
answer its judge is taught) and of the calibration set (:mod:`.calibration_site`), and a page
that moved to another address; and which fetch rule each of a few of them shows, for the
list the sandbox prints. Any other URL answers as a dead link (origin status 404)."""

from __future__ import annotations

from dataclasses import dataclass

from . import calibration_site, site
from .crawlbase import CrawlbaseEmulator, FakePage
from .judges import JudgeEmulator

#: An old address of the returns policy that redirects to its new one (deeper than ``/``,
#: so not a homepage redirect): the citation is checked against the page it lands on.
REDIRECTED_URL = "https://shop.example.com/returns"


@dataclass(frozen=True)
class Shown:
    """A page the sandbox lists, and what citing it shows."""

    url: str
    shows: str


#: The pages the sandbox lists, a page to cite first, then one per fetch rule.
SHOWN = (
    Shown(site.BOILING_URL, "water's boiling point"),
    Shown(site.RETURNS_URL, "a shop's returns policy"),
    Shown(REDIRECTED_URL, "redirects to the returns policy, read there"),
    Shown(site.ALTITUDE_APP_URL, "needs a browser: fetched again with JavaScript"),
    Shown(site.MOVED_URL, "lands on the homepage: not_found"),
    Shown(site.SOFT_404_URL, "says it does not exist (soft 404): unreachable"),
    Shown(site.OLD_REPORT_URL, "answers 404: unreachable"),
    Shown(site.PDF_URL, "a PDF: not_found, never fetched"),
    Shown(site.INJECTION_URL, "gives the judge orders: they stay quoted text"),
)


def install(crawlbase: CrawlbaseEmulator, judge: JudgeEmulator) -> None:
    """Serve every page of the sandbox's web."""
    site.install(crawlbase, judge)
    calibration_site.install(crawlbase, judge)
    returns = site.PAGES[site.RETURNS_URL]
    crawlbase.pages[REDIRECTED_URL] = FakePage(
        markdown=returns.markdown, final_url=site.RETURNS_URL
    )
