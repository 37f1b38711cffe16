"""The changes the benchmark plants in the recorded world, and the truth they imply: the
drift status each citation must get, which citations must be judged again, and what the
live fetches must cost (the fetch rules' expectations of ``benchmarks/engine``)."""

from __future__ import annotations

import copy
import random
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from pytest_citations.sandbox import NOT_FOUND_MARKDOWN, FakePage

from ..engine.expectations import expect
from ..engine.scenario import PageSpec, Scenario
from .world import Judged, paragraphs

SOFT_404 = "# Page not found\n\nSorry, the page you were looking for does not exist.\n"
#: What an editor appends to a paragraph no verdict rests on.
REVISION = " The editors revised this paragraph."


@dataclass
class Planted:
    """The changed web: pages by URL, what was done to each changed one, and the paragraph
    (as recorded) an edit changed."""

    pages: dict[str, FakePage]
    kinds: dict[str, str] = field(default_factory=dict)
    edited: dict[str, str] = field(default_factory=dict)
    #: The page specs after the change, for the fetch rules' expectations.
    specs: dict[str, PageSpec] = field(default_factory=dict)

    def count(self, kind: str) -> int:
        return sum(1 for value in self.kinds.values() if value == kind)


def _on_page(judged: dict[tuple[str, str], Judged], url: str) -> list[Judged]:
    return [entry for (_, where), entry in judged.items() if where == url]


def _quoted_fact(spec: PageSpec, judged: dict[tuple[str, str], Judged]) -> str | None:
    """A fact sentence of the page that some recorded verdict quotes."""
    quotes = {" ".join(entry.quote.split()) for entry in _on_page(judged, spec.url) if entry.quote}
    return next((fact.sentence for fact in spec.facts if fact.sentence in quotes), None)


def _unused_paragraph(spec: PageSpec, judged: dict[tuple[str, str], Judged]) -> str | None:
    """A paragraph of the page that no recorded verdict rests on."""
    used = set().union(*(entry.rests_on for entry in _on_page(judged, spec.url)))
    assert spec.page is not None
    return next((p for p in paragraphs(spec.page.markdown)[1:] if p not in used), None)


def _edit(planted: Planted, spec: PageSpec, old: str, new: str, kind: str) -> None:
    assert spec.page is not None
    page = copy.deepcopy(spec.page)
    page.markdown = page.markdown.replace(old, new)
    planted.pages[spec.url] = page
    planted.kinds[spec.url] = kind
    planted.edited[spec.url] = next(p for p in paragraphs(spec.page.markdown) if old in p)


def _replace(planted: Planted, spec: PageSpec, kind: str, page: FakePage) -> None:
    planted.pages[spec.url] = page
    planted.kinds[spec.url] = kind


def plant(
    scenario: Scenario,
    judged: dict[tuple[str, str], Judged],
    seed: int,
    shares: tuple[float, float, float] = (0.10, 0.03, 0.03),
) -> Planted:
    """Edit ``shares[0]`` of the pages (half in a quoted fact sentence, which loses its
    number; half in a paragraph no verdict rests on), move ``shares[1]`` (a new address, then
    the homepage, in turn) and kill ``shares[2]`` (a 404, then a soft 404, in turn). Only
    ordinary articles are changed; which ones is drawn from ``seed``."""
    total = len(scenario.pages)
    edits, moves, kills = (max(1, round(share * total)) for share in shares)
    rng = random.Random(seed)
    candidates = sorted(url for url, spec in scenario.pages.items() if spec.kind == "normal")
    rng.shuffle(candidates)
    planted = Planted(dict(scenario.fake_pages))
    for url in candidates:
        spec = scenario.pages[url]
        assert spec.page is not None
        if planted.count("evidence") < edits // 2 and (fact := _quoted_fact(spec, judged)):
            number = next(f for f in spec.facts if f.sentence == fact).values["n"]
            _edit(planted, spec, fact, re.sub(rf"\b{number}\b", "several", fact), "evidence")
        elif planted.count("elsewhere") < edits - edits // 2 and (
            paragraph := _unused_paragraph(spec, judged)
        ):
            _edit(planted, spec, paragraph, paragraph + REVISION, "elsewhere")
        elif planted.count("moved") + planted.count("homepage") < moves:
            parts = urlsplit(url)
            home = planted.count("moved") > planted.count("homepage")
            archive = url.replace("/articles/", "/archive/")
            final = f"{parts.scheme}://{parts.netloc}/" if home else archive
            page = FakePage(markdown=spec.page.markdown, final_url=final)
            _replace(planted, spec, "homepage" if home else "moved", page)
        elif planted.count("gone_404") + planted.count("soft_404") < kills:
            soft = planted.count("gone_404") > planted.count("soft_404")
            page = (
                FakePage(markdown=SOFT_404)
                if soft
                else FakePage(markdown=NOT_FOUND_MARKDOWN, original_status=404)
            )
            _replace(planted, spec, "soft_404" if soft else "gone_404", page)
    planted.specs = {
        url: PageSpec(url, spec.kind, planted.pages.get(url), spec.facts)
        for url, spec in scenario.pages.items()
    }
    return planted


STATUS_OF_KIND = {
    "gone_404": "gone",
    "soft_404": "gone",
    "moved": "moved",
    "homepage": "moved",
    "elsewhere": "edited",
}


def truth(
    planted: Planted,
    citations: Sequence[tuple[str, str, str]],
    judged: dict[tuple[str, str], Judged],
) -> dict[tuple[str, str], str]:
    """The status each (node id, URL) must get, from what was planted: a citation of a page
    edited in its quoted fact is ``evidence_changed`` when its verdict rests on the edited
    paragraph, else ``edited``."""
    found = {}
    for nodeid, claim, url in citations:
        kind = planted.kinds.get(url)
        if kind == "evidence":
            rests_on = judged[(claim, url)].rests_on
            found[(nodeid, url)] = (
                "evidence_changed" if planted.edited[url] in rests_on else "edited"
            )
        else:
            found[(nodeid, url)] = STATUS_OF_KIND.get(kind or "", "unchanged")
    return found


def expected_fetches(planted: Planted) -> tuple[int, float, int]:
    """Crawl requests, credits and crawl sequences the changed web must take (one fetch
    sequence per URL, by the fetch rules; a PDF takes none)."""
    expectations = [expect(spec) for spec in planted.specs.values()]
    return (
        sum(len(e.crawls) for e in expectations),
        sum(e.credits for e in expectations),
        sum(1 for e in expectations if e.crawls),
    )
