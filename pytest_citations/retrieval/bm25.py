"""Okapi BM25 over one page's passages: the lexical half of hybrid retrieval.

Small on purpose (a page has tens of passages, not millions): terms are case-folded words
(letters, digits and the combining marks that belong to them: a Hindi vowel sign or a Thai
tone mark is part of its word, though Python's ``\\w`` does not match it), and in scripts
written without spaces (Chinese, Japanese, Thai, …) overlapping character pairs, the usual way
to index such text without a dictionary. The idf is Lucene's
``log(1 + (N - n + 0.5) / (n + 0.5))``, which stays positive when a term is in most passages
(a page of three passages has no "rare" words by Okapi's original formula).
"""

from __future__ import annotations

import functools
import math
import re
import unicodedata
from collections import Counter
from collections.abc import Sequence

from .writing import has_unspaced, is_unspaced

#: Term-frequency saturation and length normalisation, the common defaults.
K1 = 1.2
B = 0.75


@functools.lru_cache(maxsize=1)
def _word() -> re.Pattern[str]:
    """``\\w`` and every combining mark (categories Mn, Mc, Me) of the first two planes:
    without them "हिन्दी" reads as three one-letter words and "คือ" loses its vowel."""
    ranges: list[str] = []
    start: int | None = None
    for code in range(0x300, 0x20000):
        mark = unicodedata.category(chr(code)).startswith("M")
        if mark and start is None:
            start = code
        elif not mark and start is not None:
            ranges.append(f"{re.escape(chr(start))}-{re.escape(chr(code - 1))}")
            start = None
    return re.compile(r"[\w" + "".join(ranges) + "]+")


def terms(text: str) -> list[str]:
    """The terms BM25 counts in ``text``: case-folded words, and character pairs inside runs of
    a script written without spaces (a lone character stands for itself)."""
    if not has_unspaced(text):
        return _word().findall(text.casefold())
    found: list[str] = []
    for word in _word().findall(text.casefold()):
        run: list[str] = []
        for character in word + " ":
            if character != " " and is_unspaced(character):
                run.append(character)
                continue
            if run:
                found.extend("".join(run[i : i + 2]) for i in range(max(1, len(run) - 1)))
                run = []
        spaced = "".join(" " if is_unspaced(c) else c for c in word).split()
        found.extend(spaced)
    return found


class BM25:
    """BM25 scores of a claim against a fixed list of passages."""

    def __init__(self, passages: Sequence[str], k1: float = K1, b: float = B) -> None:
        self.k1 = k1
        self.b = b
        self._counts = [Counter(terms(passage)) for passage in passages]
        self._lengths = [sum(counts.values()) for counts in self._counts]
        total = sum(self._lengths)
        self._average = total / len(self._lengths) if total else 1.0
        documents: Counter[str] = Counter()
        for counts in self._counts:
            documents.update(counts.keys())
        size = len(self._counts)
        self._idf = {
            term: math.log(1.0 + (size - n + 0.5) / (n + 0.5)) for term, n in documents.items()
        }

    def coverage(self, query: str) -> float:
        """Share of the query's distinct terms that occur in some passage (0 without terms):
        how much BM25 can say about this query on this page at all."""
        query_terms = set(terms(query))
        if not query_terms:
            return 0.0
        return sum(1 for term in query_terms if term in self._idf) / len(query_terms)

    def scores(self, query: str) -> list[float]:
        """One score per passage; 0 for a passage that shares no term with the query."""
        query_terms = Counter(terms(query))
        result: list[float] = []
        for counts, length in zip(self._counts, self._lengths, strict=True):
            norm = self.k1 * (1.0 - self.b + self.b * length / self._average)
            score = 0.0
            for term in query_terms:
                frequency = counts.get(term, 0)
                if frequency:
                    score += self._idf[term] * frequency * (self.k1 + 1.0) / (frequency + norm)
            result.append(score)
        return result
