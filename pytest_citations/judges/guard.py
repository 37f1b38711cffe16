"""The deterministic guard (G1–G3): a verdict counts only if its quote stands in the passages
and carries enough of them to be evidence ("Water" or "a" prove nothing)."""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass

from ..labels import Label, Reason
from .prompt import neutralize_fences

_QUOTES = str.maketrans(
    {
        "\u2018": "'",  # ‘
        "\u2019": "'",  # ’
        "\u201a": "'",  # ‚
        "\u201b": "'",  # ‛
        "\u2032": "'",  # ′
        "\u201c": '"',  # “
        "\u201d": '"',  # ”
        "\u201e": '"',  # „
        "\u201f": '"',  # ‟
        "\u2033": '"',  # ″
        "\u00ab": '"',  # «
        "\u00bb": '"',  # »
    }
)
_WHITESPACE = re.compile(r"\s+")

#: A quote must carry this many content words to be evidence, unless its passage has fewer.
MIN_QUOTE_WORDS = 3

# Function words carry no evidence. English and German: the languages of the examples and of
# the source documents; other languages' function words still count, which only errs lenient.
_STOPWORDS = frozenset(
    """
    a about above after again against all am an and any are as at be because been before being
    below between both but by can could did do does doing down during each few for from further
    had has have having he her here hers herself him himself his how i if in into is it its
    itself just me more most my myself no nor not now of off on once only or other our ours
    ourselves out over own same she should so some such than that the their theirs them
    themselves then there these they this those through to too under until up very was we were
    what when where which while who whom why will with would you your yours yourself yourselves
    aber als am an auch auf aus bei bin bis bist da dann das dass dem den der des die dir doch
    dort du durch ein eine einem einen einer eines er es fur für hat hatte ich ihr im in ist ja
    kann mit nach nicht noch nur ob oder sich sie sind so um und uns von vor war wie wir wird zu
    zum zur
    """.split()
)
# Scripts written without spaces between words: Thai, Lao, Myanmar, Khmer, Japanese kana, CJK
# ideographs (with extensions and compatibility forms), halfwidth katakana. Every two such
# characters count as one word (a typical Chinese word has two characters).
_UNSPACED = re.compile(
    "[\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff\u3040-\u30ff\u3400-\u4dbf"
    "\u4e00-\u9fff\uf900-\ufaff\uff66-\uff9f\U00020000-\U0003134f]"
)
_TOKEN = re.compile(r"\w+")

#: Labels the judge may give that claim evidence and so need a quote that passes the guard.
EVIDENCE_LABELS = frozenset({Label.SUPPORTED, Label.PARTIAL, Label.CONTRADICTED})


def normalize(text: str) -> str:
    """Neutralise fence-like tags as the prompt does, straighten typographic quotes and
    collapse whitespace (G1). Applied to the quote and to the passages alike, it compares
    what the judge saw, and a quote copied from the page itself still matches."""
    return _WHITESPACE.sub(" ", neutralize_fences(text).translate(_QUOTES)).strip()


def content_words(text: str) -> float:
    """How many words of ``text`` can carry evidence: word tokens of two or more characters
    that are not stopwords, any token with a digit, and half a word per character of a script
    written without spaces (Chinese, Japanese, Thai, …)."""
    tokens = [token.strip("_") for token in _TOKEN.findall(_UNSPACED.sub(" ", text).casefold())]
    spaced = sum(1 for token in tokens if _carries_evidence(token))
    return spaced + len(_UNSPACED.findall(text)) / 2


def _carries_evidence(token: str) -> bool:
    if any(character.isdigit() for character in token):
        return True  # "7" in "7 days" is evidence, though one character long
    return len(token) >= 2 and token not in _STOPWORDS


@functools.lru_cache(maxsize=8)
def _normalized_page(page: str) -> str:
    return normalize(page)


def holder(
    quote: str | None, passages: Sequence[str], page: str | None = None
) -> tuple[str | None, int | None]:
    """Why a quote is not evidence (None when it is), and the passage that holds it.

    ``evidence_quote_not_in_source`` when the normalized quote is empty or is not a substring
    of any normalized passage (G1), or, given the ``page`` the passages were cut from, not a
    substring of the normalized page either: a quote stands in the page as one contiguous
    span, never across the join of two pieces of it shown as one text.
    ``evidence_quote_too_short`` when in every passage that holds it, it carries fewer than
    :data:`MIN_QUOTE_WORDS` content words, or, where the whole passage has fewer, fewer than
    the passage (and never none). The passage is the first that holds the quote as evidence
    (or, for a quote too short, the first that holds it).
    """
    needle = normalize(quote or "")
    holders = [
        number for number, passage in enumerate(passages) if needle and needle in normalize(passage)
    ]
    if not holders or (page is not None and needle not in _normalized_page(page)):
        return Reason.QUOTE_NOT_IN_SOURCE, None
    carried = content_words(needle)
    for number in holders:
        needed = max(1.0, min(float(MIN_QUOTE_WORDS), content_words(normalize(passages[number]))))
        if carried >= needed:
            return None, number
    return Reason.QUOTE_TOO_SHORT, holders[0]


def quote_problem(
    quote: str | None, passages: Sequence[str], page: str | None = None
) -> str | None:
    """Why a quote is not evidence, or None when it is (see :func:`holder`)."""
    return holder(quote, passages, page)[0]


def quote_in_passages(quote: str, passages: Sequence[str]) -> bool:
    """True when the quote stands in one passage (G1) and is long enough to be evidence:
    the test every evidence quote passes, joint quotes (004, C2) included."""
    return quote_problem(quote, passages) is None


def locate(quote: str, passage: str) -> tuple[int, int] | None:
    """Where ``quote`` stands in ``passage`` as the guard reads both (G1: fences made inert,
    typographic quotes straightened, whitespace collapsed): the (start, end) of its span in
    the passage's own text, for a report to highlight; None when it is not there."""
    mapped = neutralize_fences(passage).translate(_QUOTES)  # each keeps the text's length
    text: list[str] = []
    positions: list[int] = []
    for position, character in enumerate(mapped):
        if character.isspace():
            if text and text[-1] != " ":
                text.append(" ")
                positions.append(position)
            continue
        text.append(character)
        positions.append(position)
    needle = normalize(quote)
    found = "".join(text).find(needle) if needle else -1
    if found < 0:
        return None
    return positions[found], positions[found + len(needle) - 1] + 1


@dataclass(frozen=True)
class Guarded:
    """A judgement after the guard: what the citation verdict will carry, which of the
    passages holds its quote, and where in that passage (the (start, end) of
    :func:`locate`, found once here so that no report searches for it again)."""

    label: Label
    evidence_quote: str | None
    confidence: float
    reason: str | None
    passage: int | None = None
    span: tuple[int, int] | None = None


def guard(
    label: Label,
    quote: str | None,
    confidence: float,
    passages: Sequence[str],
    page: str | None = None,
) -> Guarded:
    """Accept a judgement only when its quote stands in the passages as evidence (G2, G3),
    and, given the ``page`` they were cut from, in the page as one contiguous span.

    supported, partial and contradicted need a quote that passes :func:`quote_problem`;
    otherwise they become not_found with confidence 0 and its reason
    (``evidence_quote_not_in_source`` or ``evidence_quote_too_short``). A not_found carrying
    a quote absent from the passages gets ``evidence_quote_not_in_source``; a not_found never
    keeps a quote. The model's confidence survives only when the quote passes.
    """
    quote = quote if quote and quote.strip() else None
    if label in EVIDENCE_LABELS:
        problem, number = holder(quote, passages, page)
        if problem is None and quote is not None and number is not None:
            return Guarded(label, quote, confidence, None, number, locate(quote, passages[number]))
        return Guarded(Label.NOT_FOUND, None, 0.0, problem)
    if quote is not None and quote_problem(quote, passages, page) == Reason.QUOTE_NOT_IN_SOURCE:
        return Guarded(Label.NOT_FOUND, None, 0.0, Reason.QUOTE_NOT_IN_SOURCE)
    return Guarded(Label.NOT_FOUND, None, confidence, None)
