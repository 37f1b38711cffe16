"""Which texts are in English: a cheap test that picks the embedder for a page or a claim.

all-MiniLM-L6-v2 reads English only; text in any other language goes to a multilingual
model. Telling English from the rest needs no model: prose is full of a few short function
words, and English ones are not those of German, Spanish, Vietnamese or Polish. A text is
English when it is mostly in Latin letters and holds more than twice as many English
function words as function words of the other languages (a page of headings and names, or a
claim without a single function word and without a letter beyond ASCII, counts as English:
the default model is as good as any there). On the development sets it reads all 612
English XQuAD questions, all 349 WiCE claims and all 349 of their English pages as English,
and 8 of 612 German questions (benchmarks/README.md has the figures).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable

from .writing import is_latin

#: English function words that are not also common words of the other Latin-script
#: languages seen in practice ("in", "die", "an", "so", "was" are left out for German: a
#: German claim taken for English would be read by an English-only model, while an English
#: claim taken for another language only meets the multilingual one).
_ENGLISH = frozenset(
    """
    the of and to is that with for by on are this from which were has their been its but not
    at as be have it they he she his her or an had would will there what about can who
    how many much did does do when where why whom whose than into
    """.split()
)
#: Function words of other Latin-script languages (German, French, Spanish, Italian,
#: Portuguese, Dutch, Romanian, Turkish, Vietnamese, Polish, Czech, Swedish, Indonesian)
#: that English text seldom writes: not ``care``, ``come``, ``per`` or ``van``, nor what
#: names and abbreviations bring (``Los Angeles``, ``Kim``, ``et al.``, ``AI``, ``I've``,
#: ``el``/``la``/``le`` in names). German ``die`` and ``hat`` stay: without them "Was hat
#: Lady Gaga gesungen?" reads as English, and a claim taken for another language only
#: costs time (its English page is read again by the multilingual model, which measured
#: at least as well as MiniLM on English XQuAD).
_OTHER = frozenset(
    """
    der das und ist nicht mit wer wurde welche welcher welches ein eine einer dem des zu von
    auf für sich auch wie les est une du pour dans qui sur pas au aux y es por para una se
    lo su sus il che di della sono het een niet ook și în pe cu sau lui nu bir bu ile için
    của là và các những được trong không się nie że jest je och att det som är på av för med
    di ini itu dengan untuk wann warum wo welchem welchen haben sind zur zum vom im ne hangi
    kaç nedir neden ce cine cum unde este fost qué cuál cuándo dónde quién cómo nào gì đâu
    bao quel quelle quand où comment quale quando que en die hat
    """.split()
)
_WORD = re.compile(r"[^\W\d_]+")
#: Words looked at: enough to decide, few enough to stay cheap on long pages.
SAMPLE_WORDS = 2000


def _share(text: str, words_of: frozenset[str]) -> float:
    words = _WORD.findall(text[: SAMPLE_WORDS * 12].lower())[:SAMPLE_WORDS]
    if not words:
        return 0.0
    return sum(1 for word in words if word in words_of) / len(words)


def english_share(text: str) -> float:
    """Share of the words of ``text`` (its first :data:`SAMPLE_WORDS`) that are English
    function words; 0.0 for text without words. English prose runs at 0.3 to 0.5."""
    return _share(text, _ENGLISH)


def is_english(texts: Iterable[str]) -> bool:
    """True when the texts (a page's passages, or a claim) read as English (see the module
    docstring). Text with no words at all (numbers, a table) counts as English."""
    text = "\n".join(texts)
    if not _WORD.search(text):
        return True
    if not is_latin(text):
        return False
    english, other = english_share(text), _share(text, _OTHER)
    if english == other == 0:  # no function word at all: English unless a letter says not
        return all(character.isascii() for character in text if character.isalpha())
    return english > 2 * other


@functools.lru_cache(maxsize=4096)
def claim_is_english(claim: str) -> bool:
    """:func:`is_english` of one claim, worked out once: a claim is ranked against every
    page it cites."""
    return is_english([claim])
