"""Which pages are in English: a cheap test that picks the embedder for a page (issue 10).

all-MiniLM-L6-v2 reads English only; a page in any other language goes to a multilingual
model. Telling English from the rest needs no model: English prose is full of a few short
function words that other languages (German, Spanish, Vietnamese, …) do not write, and a page
in another script has few Latin letters at all.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from .scripts import is_latin

#: English function words that are not also common words of the other Latin-script
#: languages seen in practice ("in", "die", "an", "so", "was" are left out for German: a
#: German claim taken for English would be read by an English-only model, while an English
#: claim taken for another language only meets the multilingual one).
_ENGLISH = frozenset(
    """
    the of and to is that with for by on are this from which were has their been its but not
    at as be have it they he she his her or an had would will there what about can who
    """.split()
)
_WORD = re.compile(r"[^\W\d_]+")
#: Share of words that must be English function words; English prose runs at 0.3 to 0.5,
#: other languages below 0.05 (a few names and quoted titles).
ENGLISH_SHARE = 0.12
#: Words looked at: enough to decide, few enough to stay cheap on long pages.
SAMPLE_WORDS = 2000


def english_share(text: str) -> float:
    """Share of the words of ``text`` (its first :data:`SAMPLE_WORDS`) that are English
    function words; 0.0 for text without words."""
    words = _WORD.findall(text[: SAMPLE_WORDS * 12].lower())[:SAMPLE_WORDS]
    if not words:
        return 0.0
    return sum(1 for word in words if word in _ENGLISH) / len(words)


def is_english(texts: Iterable[str]) -> bool:
    """True when the texts (a page's passages, or a claim) read as English. Text with no
    words at all (numbers, a table) counts as English: the default model is as good as any
    there."""
    text = "\n".join(texts)
    if not _WORD.search(text):
        return True
    return is_latin(text) and english_share(text) >= ENGLISH_SHARE
