"""Answer a question: retrieve, ask the model, number the citations."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from .model import reply
from .retrieval import pages, retrieve

PROMPT = Path(__file__).with_name("prompt.txt")
_SLUG = re.compile(r"\[([a-z-]+)\]")


def answer(question: str) -> dict[str, Any]:
    """The assistant's answer, as its API returns it: ``{"answer": "… [1].", "citations":
    [url, …]}``, marker ``[n]`` citing the n-th URL."""
    retrieved = retrieve(question)
    cited: list[str] = []
    by_slug = {page.slug: page for page in pages()}

    def number(match: re.Match[str]) -> str:
        page = by_slug[match.group(1)]
        if page not in retrieved:
            return ""  # the model cited a page it was not given: the sentence stays uncited
        if page.url not in cited:
            cited.append(page.url)
        return f"[{cited.index(page.url) + 1}]"

    text = _SLUG.sub(number, reply(PROMPT.read_text(encoding="utf-8"), question))
    return {"answer": text, "citations": cited}
