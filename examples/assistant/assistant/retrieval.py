"""The assistant's own retrieval: the help pages whose words best match the question."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

KNOWLEDGE = Path(__file__).with_name("knowledge")
_WORD = re.compile(r"[a-z0-9]+")
_STOP = frozenset(
    "a an and are at can do does for how i in is it my of on or should the to what".split()
)


@dataclass(frozen=True)
class Page:
    """A help page: its slug (file name), public URL and text."""

    slug: str
    url: str
    text: str


def _words(text: str) -> set[str]:
    return {word for word in _WORD.findall(text.lower()) if word not in _STOP}


@cache
def pages() -> tuple[Page, ...]:
    """Every help page, read once (a front matter line ``url: …`` names its URL)."""
    found = []
    for path in sorted(KNOWLEDGE.glob("*.md")):
        _, front, text = path.read_text(encoding="utf-8").split("---\n", 2)
        url = next(
            line.split(":", 1)[1].strip() for line in front.splitlines() if line.startswith("url:")
        )
        found.append(Page(path.stem, url, text.strip()))
    return tuple(found)


def retrieve(question: str, k: int = 2) -> list[Page]:
    """The ``k`` pages sharing the most words with the question, best first (ties by slug)."""
    asked = _words(question)
    scored = sorted(pages(), key=lambda page: (-len(asked & _words(page.text)), page.slug))
    return scored[:k]
