"""Citation markers placed at the sentences a provider's character offsets point into.

Offset-based formats say "``text[start:end]`` is supported by this URL". The case file says
the same thing with a ``[n]`` marker at the end of each sentence the span touches, so that
the answer splitter (:func:`pytest_citations.cases.claims.extract_claims`) gives each sentence its
citations. A span that is itself a markdown link (OpenAI's web search writes
``([site](https://…))`` after the sentence and points the annotation at it) is a rendering of
the citation, not a claim: the link is removed and its marker goes to the sentence before it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from ..cases.claims import split_sentences
from .markup import separated

#: A markdown link, optionally in parentheses, and nothing else.
_LINK = re.compile(r"\(?\s*\[[^\]\n]*\]\([^)\s]*\)\s*\)?")


@dataclass(frozen=True)
class Marked:
    """A span of the answer and the marker of the source attached to it."""

    start: int
    end: int
    marker: str


def is_link(text: str, start: int, end: int) -> bool:
    """True when ``text[start:end]`` is one markdown link, optionally in parentheses."""
    return _LINK.fullmatch(text, start, end) is not None


def _link_range(text: str, start: int, end: int) -> tuple[int, int] | None:
    """The range to cut when ``text[start:end]`` is a markdown link: the link with its
    parentheses and the spaces before it; None when the span is ordinary text."""
    if not is_link(text, start, end):
        return None
    bare = text[start:end].lstrip().startswith("[")
    if bare and text[start - 1 : start] == "(" and text[end : end + 1] == ")":
        start, end = start - 1, end + 1
    while start > 0 and text[start - 1] in " \t":
        start -= 1
    return start, end


def _cut_links(text: str, spans: Sequence[Marked]) -> tuple[str, list[Marked]]:
    """The text without citation links; each link's span becomes a point where it stood."""
    cuts: list[tuple[int, int]] = []
    for span in spans:
        found = _link_range(text, span.start, span.end)
        if found:
            cuts.append(found)
    if not cuts:
        return text, list(spans)
    merged: list[tuple[int, int]] = []
    for start, end in sorted(cuts):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))

    def moved(offset: int) -> int:
        shift = 0
        for start, end in merged:
            if offset >= end:
                shift += end - start
            elif offset > start:
                return start - shift  # inside a cut: where the cut now is
        return offset - shift

    kept = []
    position = 0
    for start, end in merged:
        kept.append(text[position:start])
        position = end
    kept.append(text[position:])
    return "".join(kept), [Marked(moved(s.start), moved(s.end), s.marker) for s in spans]


def sentence_ranges(text: str) -> list[tuple[int, int]] | None:
    """``(start, end)`` of each sentence the splitter finds, as offsets into ``text``; None
    when a sentence cannot be found in the text (the splitter rewrote more than spacing)."""
    compact: list[str] = []
    positions: list[int] = []
    for index, character in enumerate(text):
        if not character.isspace():
            compact.append(character)
            positions.append(index)
    haystack = "".join(compact)
    ranges: list[tuple[int, int]] = []
    cursor = 0
    for sentence in split_sentences(separated(text)):
        needle = "".join(sentence.split())
        if not needle:
            continue
        found = haystack.find(needle, cursor)
        if found < 0:
            return None
        cursor = found + len(needle)
        ranges.append((positions[found], positions[cursor - 1] + 1))
    return ranges


#: What may open a span without belonging to the sentence it opens: the end of the previous
#: sentence (an Anthropic block that begins ". You can …").
_LEADING = " \t\n.,;:!?)]}\"'”’…"


def _is_point(span: Marked, text: str) -> bool:
    return not text[span.start : span.end].strip()


def _trimmed(span: Marked, text: str) -> Marked:
    start, end = span.start, span.end
    while start < end and text[start] in _LEADING:
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return Marked(start, end, span.marker) if start < end else span


def _targets(
    span: Marked, ranges: Sequence[tuple[int, int]], points: Sequence[int], text: str
) -> list[int]:
    """Indexes of the sentences a span supports. A span of text supports the sentences it
    overlaps. A point (a removed citation link) supports the sentences of its line written
    since the previous point: the web search models put one link after each sentence, or one
    after a paragraph drawn from one page; the paragraph's sentences share that link."""
    if not _is_point(span, text):
        span = _trimmed(span, text)
        return [
            index
            for index, (start, end) in enumerate(ranges)
            if start < span.end and span.start < end
        ]
    before = [index for index, (start, _) in enumerate(ranges) if start < max(span.start, 1)]
    if not before:
        return [0] if ranges else []
    last = before[-1]
    line_start = text.rfind("\n", 0, ranges[last][0]) + 1
    previous = max((point for point in points if point < span.start), default=0)
    lower = max(line_start, previous)
    return [index for index in before if ranges[index][0] >= lower] or [last]


def _sort_key(marker: str) -> tuple[int, str]:
    return (int(marker), "") if marker.isdigit() else (1 << 30, marker)


def place_markers(text: str, spans: Sequence[Marked]) -> str:
    """The text with each span's marker at the end of every sentence the span supports."""
    if not spans:
        return text
    text, spans = _cut_links(text, spans)
    ranges = sentence_ranges(text)
    anchors = sorted({span.start for span in spans if _is_point(span, text)})
    ends: dict[int, list[str]] = {}
    for span in spans:
        if ranges is None:
            points = [span.end]  # no sentence map: the marker goes where the span ends
        else:
            points = [ranges[i][1] for i in _targets(span, ranges, anchors, text)]
        for point in points:
            markers = ends.setdefault(point, [])
            if span.marker not in markers:
                markers.append(span.marker)
    for point in sorted(ends, reverse=True):
        group = "".join(f"[{marker}]" for marker in sorted(ends[point], key=_sort_key))
        before = text[point - 1 : point]
        # "… $55.[1]" as Perplexity writes it; "… from $55 [1]" where no punctuation ends it.
        joint = " " if before.isalnum() else ""
        text = text[:point] + joint + group + text[point:]
    return text
