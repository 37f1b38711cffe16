"""The heuristic oracle: a deterministic judge that reads the claim and passages like a model.

Tests need verdicts that follow from the page text (a claim the page states is supported, one
whose figure differs is contradicted, one the page hedges is partial) without scripting each
claim, and that are the same on every run so recordings stay stable. The oracle gives them from
word overlap, numbers, negations and qualifiers; its quote is always a sentence of a passage,
so the package's quote guard accepts it. Tests that need another answer set a rule instead.
"""

from __future__ import annotations

import re
from typing import Any

_STOPWORDS = frozenset(
    {
        "a",
        "about",
        "above",
        "after",
        "again",
        "against",
        "all",
        "also",
        "am",
        "an",
        "and",
        "any",
        "are",
        "as",
        "at",
        "be",
        "because",
        "been",
        "before",
        "being",
        "between",
        "both",
        "but",
        "by",
        "can",
        "could",
        "did",
        "do",
        "does",
        "doing",
        "down",
        "during",
        "each",
        "few",
        "for",
        "from",
        "further",
        "had",
        "has",
        "have",
        "having",
        "he",
        "her",
        "here",
        "hers",
        "him",
        "his",
        "how",
        "i",
        "in",
        "into",
        "is",
        "it",
        "its",
        "itself",
        "just",
        "me",
        "more",
        "most",
        "my",
        "of",
        "off",
        "on",
        "once",
        "or",
        "other",
        "our",
        "ours",
        "out",
        "over",
        "own",
        "same",
        "she",
        "should",
        "so",
        "some",
        "such",
        "than",
        "that",
        "the",
        "their",
        "theirs",
        "them",
        "then",
        "there",
        "these",
        "they",
        "this",
        "those",
        "through",
        "to",
        "too",
        "under",
        "until",
        "up",
        "very",
        "was",
        "we",
        "were",
        "what",
        "when",
        "where",
        "which",
        "while",
        "who",
        "whom",
        "why",
        "will",
        "with",
        "would",
        "you",
        "your",
        "yours",
        "per",
        "via",
        "not",
        "no",
        "never",
        "cannot",
        "nor",
        "only",
        "except",
        "unless",
        "if",
    }
)
#: What :func:`oracle_verdict` does, in words, for people who read its verdicts.
IN_WORDS = (
    "it finds the page sentence that shares the most words with the claim, and says "
    "not_found when they share fewer than half of the claim's words, contradicted when a "
    "number or a negation differs, partial when the page adds a condition (only, unless, "
    "except, if) or gives no number where the claim does, else supported"
)
_NEGATIONS = frozenset({"not", "no", "never", "cannot"})
_QUALIFIERS = frozenset({"only", "except", "unless", "business", "if"})
_WORD = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")
_NUMBER = re.compile(r"(?<![\w.])(\d+(?:[.,]\d+)*)(\s*(?:%|percent\b|per cent\b))?", re.I)
_SENTENCE_SPLIT = re.compile(r"(?<=[.!?])\s+|\n+")
_MARKDOWN_PREFIX = re.compile(r"^(?:#{1,6}|>|[-*+]|\|)\s+")


def _words(text: str) -> list[str]:
    return _WORD.findall(text.lower().replace("\u2019", "'"))


def _stem(word: str) -> str:
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def _content_words(text: str) -> set[str]:
    return {
        _stem(word)
        for word in _words(text)
        if word not in _STOPWORDS and len(word) > 2 and not word.isdigit() and "'" not in word
    }


def _numbers(text: str) -> set[str]:
    return {
        digits.replace(",", "") + ("%" if percent else "")
        for digits, percent in _NUMBER.findall(text)
    }


def _has_negation(text: str) -> bool:
    return any(word in _NEGATIONS or word.endswith("n't") for word in _words(text))


def _sentences(passage: str) -> list[str]:
    sentences = []
    for piece in _SENTENCE_SPLIT.split(passage):
        sentence = _MARKDOWN_PREFIX.sub("", piece.strip()).strip()
        if sentence:
            sentences.append(sentence)
    return sentences


def oracle_verdict(claim: str, passages: list[str]) -> dict[str, Any]:
    """The deterministic heuristic verdict ``{"label", "evidence_quote", "confidence"}``.

    Picks the passage sentence sharing the most content words with the claim; not_found under
    50% overlap; then numbers (claim numbers missing while the sentence has other numbers ->
    contradicted; no numbers at all -> partial), negation mismatch -> contradicted, a qualifier
    only in the sentence (only/except/unless/business/if) -> partial, else supported. The quote
    is the chosen sentence, a contiguous substring of its passage.
    """
    not_found: dict[str, Any] = {"label": "not_found", "evidence_quote": None, "confidence": 0.3}
    claim_words = _content_words(claim)
    if not claim_words:
        return not_found
    best: tuple[int, int] | None = None
    best_sentence = ""
    for passage in passages:
        for sentence in _sentences(passage):
            words = _content_words(sentence)
            score = (len(claim_words & words), -len(words))
            if best is None or score > best:
                best, best_sentence = score, sentence
    if best is None or best[0] / len(claim_words) < 0.5:
        return not_found

    def verdict(label: str, confidence: float) -> dict[str, Any]:
        return {"label": label, "evidence_quote": best_sentence, "confidence": confidence}

    claim_numbers = _numbers(claim)
    sentence_numbers = _numbers(best_sentence)
    if not claim_numbers <= sentence_numbers:
        if sentence_numbers:
            return verdict("contradicted", 0.9)
        return verdict("partial", 0.6)
    if _has_negation(claim) != _has_negation(best_sentence):
        return verdict("contradicted", 0.9)
    if (set(_words(best_sentence)) & _QUALIFIERS) - set(_words(claim)):
        return verdict("partial", 0.6)
    return verdict("supported", 0.9)


def joint_oracle_verdict(claim: str, sourced: list[tuple[int, str]]) -> dict[str, Any]:
    """The heuristic joint verdict ``{"label", "quotes", "confidence"}`` (004, C2).

    Greedily picks, per source, the sentence that adds the most of the claim's content words;
    supported when the picked sentences cover 80% of the claim's words and every number of
    the claim, each quote being a sentence of the source it names.
    """
    not_found: dict[str, Any] = {"label": "not_found", "quotes": [], "confidence": 0.3}
    claim_words = _content_words(claim)
    if not claim_words:
        return not_found
    covered: set[str] = set()
    quotes: list[dict[str, Any]] = []
    numbers: set[str] = set()
    candidates = [
        (source, sentence) for source, passage in sourced for sentence in _sentences(passage)
    ]
    used_sources: set[int] = set()
    while True:
        best: tuple[int, int, str] | None = None
        for source, sentence in candidates:
            if source in used_sources:
                continue
            gain = len((claim_words & _content_words(sentence)) - covered)
            if gain and (best is None or gain > best[0]):
                best = (gain, source, sentence)
        if best is None:
            break
        _, source, sentence = best
        used_sources.add(source)
        covered |= claim_words & _content_words(sentence)
        numbers |= _numbers(sentence)
        quotes.append({"source": source, "quote": sentence})
    if len(covered) / len(claim_words) < 0.8 or not _numbers(claim) <= numbers:
        return not_found
    return {"label": "supported", "quotes": quotes, "confidence": 0.8}
