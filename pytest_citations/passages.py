"""Splitting fetched markdown into passages of about equal length (R1)."""

from __future__ import annotations

import re

DEFAULT_MAX_WORDS = 200
_BLANK_LINE = re.compile(r"\n\s*\n")


def split_passages(markdown: str, max_words: int = DEFAULT_MAX_WORDS) -> list[str]:
    """Split on blank lines, then pack paragraphs into passages of up to ``max_words`` words.

    Words are counted with ``str.split()``, so no tokenizer is needed. A paragraph longer
    than the cap is cut on word boundaries; shorter paragraphs share a passage until the
    next one would overflow; blank blocks are dropped. Paragraphs keep their own lines
    inside a passage (joined by a blank line), so a quote the judge copies from one
    paragraph is still a substring of the passage.
    """
    if max_words < 1:
        raise ValueError("max_words must be at least 1")
    text = markdown.replace("\r\n", "\n").replace("\r", "\n")
    pieces: list[list[str]] = []
    for paragraph in _BLANK_LINE.split(text):
        words = paragraph.split()
        if len(words) > max_words:
            pieces.extend(
                words[start : start + max_words] for start in range(0, len(words), max_words)
            )
        elif words:
            pieces.append(words)

    passages: list[str] = []
    current: list[str] = []
    current_words = 0
    for words in pieces:
        if current and current_words + len(words) > max_words:
            passages.append("\n\n".join(current))
            current, current_words = [], 0
        current.append(" ".join(words))
        current_words += len(words)
    if current:
        passages.append("\n\n".join(current))
    return passages
