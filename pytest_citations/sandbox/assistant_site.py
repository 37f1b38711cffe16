"""The emulated web behind the example assistant (``examples/assistant/`` of the repository):
its own help pages, served at the URLs their front matter names, so that what the assistant
cites is what the Crawlbase emulator returns. The judge emulator's oracle labels the claims;
one rule teaches it what its word matching cannot see: the pull request's shortened descaling
answer drops the condition (hard water) that the page attaches to the interval (004 C1,
partial). The example is not part of the package: callers name its folder."""

from __future__ import annotations

from pathlib import Path

from .crawlbase import CrawlbaseEmulator, FakePage
from .judges import JudgeEmulator

#: Where the help pages live inside the example's folder.
KNOWLEDGE = Path("assistant") / "knowledge"
#: The claim the pull request's prompt makes the assistant say.
SHORTENED_CLAIM = "Descale the kettle every three months."


def pages(example: Path) -> dict[str, str]:
    """URL -> markdown of every help page of the assistant in ``example``."""
    found = {}
    for path in sorted((example / KNOWLEDGE).glob("*.md")):
        _, front, text = path.read_text(encoding="utf-8").split("---\n", 2)
        url = next(
            line.split(":", 1)[1].strip() for line in front.splitlines() if line.startswith("url:")
        )
        found[url] = text.strip()
    return found


def install(crawlbase: CrawlbaseEmulator, judge: JudgeEmulator, example: Path) -> None:
    """Serve the help pages of the assistant in ``example`` and teach the judge the shortened
    claim's verdict."""
    for url, markdown in pages(example).items():
        crawlbase.pages[url] = FakePage(markdown=markdown)
    judge.rule(
        SHORTENED_CLAIM,
        label="partial",
        quote="In areas with hard water, descale the kettle once a month",
        confidence=0.85,
    )
