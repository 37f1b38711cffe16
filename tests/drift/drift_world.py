"""A small web for the drift tests: pages on the Crawlbase emulator, case files citing them,
cassettes recorded the way the plugin records them, and drift runs against the same
emulators once the pages have changed.

Recording goes through the package's own pieces exactly as the plugin assembles them (the
VCR configuration of ``build_vcr``, one cassette session per case file, the cassette
transport in front of the network transport, the verifier sharing work through the
library); one test records with the plugin itself (``test_drift_plugin.py``).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pytest_citations import Settings, Verifier
from pytest_citations.drift import DriftReport, DriftSource, run_drift
from pytest_citations.recording import CassetteLibrary, CassetteTransport, RecordMode, build_vcr
from pytest_citations.sandbox import CrawlbaseEmulator, JudgeEmulator

LOREM = (
    "Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor "
    "incididunt ut labore et dolore magna aliqua. Ut enim ad minim veniam, quis nostrud "
    "exercitation ullamco laboris nisi ut aliquip ex ea commodo consequat."
)
DUIS = (
    "Duis aute irure dolor in reprehenderit in voluptate velit esse cillum dolore eu fugiat "
    "nulla pariatur. Excepteur sint occaecat cupidatat non proident, sunt in culpa qui "
    "officia deserunt mollit anim id est laborum."
)
FOOTER = "Page updated on 2025-01-03 at 09:14. 1,204 customers read this page this week."
NEW_FOOTER = "Page updated on 2026-02-17 at 18:02. 1,377 customers read this page this week."


def page(title: str, *paragraphs: str) -> str:
    """A markdown page: a title and paragraphs, well above the thin-text thresholds."""
    return "\n\n".join([f"# {title}", *paragraphs]) + "\n"


RETURNS_URL = "https://shop.example.com/policies/returns"
RETURNS_SENTENCE = "Consumers can return hardware within 30 days of delivery."
RETURNS_PAGE = page(
    "Returns policy for hardware",
    RETURNS_SENTENCE,
    LOREM,
    "Items must come back with all accessories and the original packaging.",
    DUIS,
    FOOTER,
)
RETURNS_CLAIM = "Consumers can return hardware within 30 days."
#: The judge emulator's oracle finds nothing for it on the returns page.
GIFT_CLAIM = "Gift cards can be exchanged for cash at any store."

BOILING_URL = "https://example.org/physics/boiling"
BOILING_SENTENCE = "Water boils at 100 degrees Celsius at sea level."
BOILING_PAGE = page(
    "The boiling point of water",
    LOREM,
    BOILING_SENTENCE,
    DUIS,
    "A pressure cooker raises the boiling point and cooks food faster.",
    FOOTER,
)
BOILING_CLAIM = "Water boils at 100 degrees Celsius at sea level."

PAGES = {RETURNS_URL: RETURNS_PAGE, BOILING_URL: BOILING_PAGE}


def case_text(
    case_id: str, claims: Sequence[tuple[str, Sequence[str]]], retrieved: Sequence[str] = ()
) -> str:
    """A case file: every URL numbered once, each claim citing its URLs, and the URLs the
    answer retrieved without citing them (``retrieved:``)."""
    urls = list(dict.fromkeys(url for _, cited in claims for url in cited))
    lines = [f"id: {case_id}", "citations:"]
    lines += [f"  {n}: {url}" for n, url in enumerate(urls, start=1)]
    if retrieved:
        lines += ["retrieved:", *(f"  - {url}" for url in retrieved)]
    lines.append("claims:")
    for text, cited in claims:
        markers = ", ".join(str(urls.index(url) + 1) for url in cited)
        lines += [f"  - text: {json.dumps(text)}", f"    cites: [{markers}]"]
    return "\n".join(lines) + "\n"


async def _record(sources: Sequence[DriftSource], settings: Settings, mode: RecordMode) -> None:
    library = CassetteLibrary(build_vcr(settings.redactor()), mode, lambda path: "record")
    http = settings.http_client(CassetteTransport(library, settings.transport()))
    try:
        async with Verifier(settings, http=http, observer=library, recall=library) as verifier:
            for source in sources:
                session = library.open(source.cassette)
                try:
                    with session.active():
                        await verifier.verify_many([claim.request for claim in source.claims])
                finally:
                    session.close()
    finally:
        await http.aclose()


@dataclass
class World:
    """Case files under ``root/cases``, cassettes under ``root/cassettes``, and the two
    emulators (the same ones record and play the live web)."""

    root: Path
    crawlbase: CrawlbaseEmulator
    judge: JudgeEmulator
    settings: Settings
    files: dict[str, Path] = field(default_factory=dict)

    def serve(self, pages: dict[str, str] | None = None, **fields: Any) -> None:
        """Serve ``pages`` (default :data:`PAGES`) as plain articles."""
        for url, text in (PAGES if pages is None else pages).items():
            self.crawlbase.add(url, markdown=text, **fields)

    def case(
        self, name: str, *claims: tuple[str, Sequence[str]], retrieved: Sequence[str] = ()
    ) -> Path:
        """Write ``cases/<name>.yaml`` with one case of ``claims`` (and ``retrieved:``)."""
        path = self.root / "cases" / f"{name}.yaml"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(case_text(name, claims, retrieved), encoding="utf-8")
        self.files[name] = path
        return path

    def source(self, name: str) -> DriftSource:
        return DriftSource.from_case_file(self.files[name], self.root / "cassettes", self.root)

    def sources(self, names: Sequence[str] | None = None) -> list[DriftSource]:
        return [self.source(name) for name in (names or list(self.files))]

    def cassette(self, name: str) -> Path:
        return self.source(name).cassette

    def record(self, *names: str, mode: RecordMode = RecordMode.ONCE) -> None:
        """Record the case files (all by default), then forget what the emulators saw."""
        asyncio.run(_record(self.sources(names or None), self.settings, mode))
        self.crawlbase.reset_counters()
        self.judge.reset_counters()

    def drift(self, *names: str, **options: Any) -> DriftReport:
        """A drift run over the case files (all by default)."""
        settings = options.pop("settings", self.settings)
        return run_drift(self.sources(names or None), settings, root=self.root, **options)
