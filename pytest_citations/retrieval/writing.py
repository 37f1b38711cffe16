"""Writing systems: how much text a stretch holds, where its sentences end, where it may be cut.

Passages, lexical retrieval and embedding windows all need a size and cut points that mean the
same in every script. Words counted with ``str.split()`` work for scripts that put
spaces between words (Latin, Greek, Cyrillic, Arabic, Devanagari, Hangul, …) but not for those
that do not: a Chinese paragraph is one "word", a Thai paragraph a handful. So text is
measured in *units*: a whitespace-separated word is one unit, and a character of a script
written without spaces counts as the share of an English word it carries on average. The
shares were read off parallel text (XQuAD: the same 24 articles in English, Chinese and Thai:
0.63 English words per Chinese character, 0.23 per Thai letter, combining marks excluded) and
rounded; kana carry less than a Han character (Japanese runs about 2.2 characters per English
word with roughly 40% Han). Everything here is pure Python, deterministic and model-free.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Iterator
from functools import lru_cache

#: Units carried by one character of each script written without spaces.
HAN_UNITS = 0.6  # CJK ideographs: Chinese and Japanese kanji
KANA_UNITS = 0.35  # hiragana, katakana (full and half width)
SOUTHEAST_ASIAN_UNITS = 0.25  # Thai, Lao, Khmer, Myanmar letters (combining marks count 0)

_HAN = (
    (0x3400, 0x4DBF),
    (0x4E00, 0x9FFF),
    (0xF900, 0xFAFF),
    (0x20000, 0x3134F),
)
_KANA = ((0x3040, 0x30FF), (0x31F0, 0x31FF), (0xFF66, 0xFF9F))
_SOUTHEAST_ASIAN = ((0x0E00, 0x0EFF), (0x1000, 0x109F), (0x1780, 0x17FF))
#: Any character of the three groups above: text without one takes the fast paths below.
_ANY_UNSPACED = re.compile(
    "[" + "".join(f"{chr(low)}-{chr(high)}" for low, high in _HAN + _KANA + _SOUTHEAST_ASIAN) + "]"
)

#: Characters that end a sentence in some script. ``.``, ``!`` and ``?`` end one only before
#: a space or the end (``3.5``, ``e.g.x`` do not); the others end one wherever they stand.
_SPACED_ENDS = ".!?"
_ANYWHERE_ENDS = (
    "。！？．｡"  # CJK ideographic and full-width forms
    "।॥"  # Devanagari danda, double danda (Hindi, Marathi, Nepali, Sanskrit)
    "؟۔"  # Arabic question mark, Urdu full stop
    "።፧"  # Ethiopic
    "။"  # Myanmar section
    "។៕"  # Khmer
    "‼⁇⁈⁉"  # doubled marks
)
#: Closing quotes and brackets that belong to the sentence they follow.
_CLOSERS = "\"'”’»)]}」』）】〕》〉"
#: Clause marks: the second-best place to cut a sentence that is too long.
_CLAUSE_MARKS = ",;:，、；：،؛—–"

#: Thai, Lao, Khmer and Myanmar put a space where English puts a sentence or clause end, and
#: none between words: a space between two letters of those scripts ends a sentence (one
#: beside a number or a foreign word only sets it apart: "ครั้งที่ 12 จัด").
_SOUTHEAST_ASIAN_LETTER = r"[\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff]"
_SOUTHEAST_ASIAN_SPACE = rf"(?<={_SOUTHEAST_ASIAN_LETTER})\s+(?={_SOUTHEAST_ASIAN_LETTER})"
_SENTENCE_END = re.compile(
    rf"[{re.escape(_ANYWHERE_ENDS)}]+[{re.escape(_CLOSERS)}]*\s*"
    rf"|[{re.escape(_SPACED_ENDS)}]+[{re.escape(_CLOSERS)}]*(?:\s+|$)"
    rf"|{_SOUTHEAST_ASIAN_SPACE}"
)
_ENDS_WITH_SENTENCE = re.compile(
    rf"[{re.escape(_ANYWHERE_ENDS + _SPACED_ENDS)}][{re.escape(_CLOSERS)}]*\s*$"
)
_WORD = re.compile(r"\S+\s*|\s+")
_CLAUSE_END = re.compile(rf"[{re.escape(_CLAUSE_MARKS)}][{re.escape(_CLOSERS)}]*\s*")


def _in(code: int, ranges: tuple[tuple[int, int], ...]) -> bool:
    return any(low <= code <= high for low, high in ranges)


@lru_cache(maxsize=4096)
def char_units(character: str) -> float:
    """Units one character carries when it stands in a run written without spaces; 0 for
    characters of spaced scripts (their word counts once, whatever its length)."""
    code = ord(character)
    if _in(code, _HAN):
        return HAN_UNITS
    if _in(code, _KANA):
        return KANA_UNITS
    if _in(code, _SOUTHEAST_ASIAN):
        return 0.0 if unicodedata.category(character).startswith("M") else SOUTHEAST_ASIAN_UNITS
    return 0.0


def has_unspaced(text: str) -> bool:
    """True when ``text`` holds a character of a script written without spaces."""
    return _ANY_UNSPACED.search(text) is not None


def is_unspaced(character: str) -> bool:
    """True for characters of scripts written without spaces between words."""
    code = ord(character)
    return _in(code, _HAN) or _in(code, _KANA) or _in(code, _SOUTHEAST_ASIAN)


def word_units(word: str) -> float:
    """Units of one whitespace-free token: 1, or its characters' shares when it is written in
    a script without spaces (never less than 1: a token is at least a word)."""
    return max(1.0, sum(char_units(character) for character in word))


def units(text: str) -> float:
    """How much text ``text`` holds, in English-word units (see the module docstring). Equal
    to ``len(text.split())`` for text in spaced scripts."""
    if not _ANY_UNSPACED.search(text):
        return float(len(text.split()))
    return round(sum(word_units(word) for word in text.split()), 6)


def is_latin(text: str) -> bool:
    """True when most letters of ``text`` are Latin (or there are none): the pages R1 was
    written for, whose passages keep R1's word cuts unchanged."""
    latin = other = 0
    for character in text:
        if not character.isalpha():
            continue
        if character < "\u0250" or "LATIN" in unicodedata.name(character, ""):
            latin += 1
        else:
            other += 1
    return latin >= other


#: Letters looked at to tell a text's script: enough to decide, cheap on long pages.
SCRIPT_SAMPLE = 2000


def script_of(text: str) -> str:
    """The script most letters of ``text`` (its first :data:`SCRIPT_SAMPLE` letters) are
    written in, by the first word of their Unicode names: ``LATIN``, ``GREEK``,
    ``CYRILLIC``, ``ARABIC``, ``DEVANAGARI``, ``CJK`` (Han), ``HIRAGANA``, ``HANGUL``,
    ``THAI``, …; ``LATIN`` for text without letters."""
    counts: dict[str, int] = {}
    seen = 0
    for character in text:
        if not character.isalpha():
            continue
        name = "LATIN" if character < "\u0250" else unicodedata.name(character, "LATIN")
        script = name.split(" ", 1)[0]
        counts[script] = counts.get(script, 0) + 1
        seen += 1
        if seen >= SCRIPT_SAMPLE:
            break
    return max(counts, key=lambda script: counts[script]) if counts else "LATIN"


def _cut_after(text: str, marks: re.Pattern[str]) -> list[tuple[int, int]]:
    """``(start, end)`` of the pieces of ``text`` cut after each match of ``marks``; together
    they cover it exactly."""
    spans: list[tuple[int, int]] = []
    start = 0
    for match in marks.finditer(text):
        if match.end() > start:
            spans.append((start, match.end()))
            start = match.end()
    if start < len(text):
        spans.append((start, len(text)))
    return spans


@functools.lru_cache(maxsize=4096)
def script_of_claim(claim: str) -> str:
    """:func:`script_of` of one claim, worked out once: a claim is ranked against every page
    it cites."""
    return script_of(claim)


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` of each sentence of ``text``; together they cover it exactly. A span
    keeps its end mark, closing quotes and the whitespace after them."""
    return _cut_after(text, _SENTENCE_END)


def ends_sentence(text: str) -> bool:
    """Whether ``text`` ends with the end of a sentence (an end mark of any script, maybe in
    closing quotes); text in Thai and its neighbours, which marks no ends, never does."""
    return bool(_ENDS_WITH_SENTENCE.search(text))


def clause_spans(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` of each clause of ``text`` (cut after clause marks), covering it."""
    return _cut_after(text, _CLAUSE_END)


def word_spans(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` of the smallest pieces ``text`` may be cut into without cutting a word:
    a whitespace-separated word with the space after it, or, inside a run of a script written
    without spaces, one character with its combining marks (a grapheme). Thai, Lao, Khmer and
    Myanmar have no word marks a splitter can see without a dictionary, so a cut there falls
    between graphemes only when the run has no space for longer than a passage."""
    if not _ANY_UNSPACED.search(text):
        return [match.span() for match in _WORD.finditer(text)]
    spans: list[tuple[int, int]] = []
    for match in _WORD.finditer(text):
        start, end = match.span()
        token = match.group(0)
        if not _ANY_UNSPACED.search(token):
            spans.append((start, end))
            continue
        piece_start = start
        for offset in range(1, len(token)):
            character = token[offset]
            previous = token[offset - 1]
            if character.isspace() or unicodedata.category(character).startswith("M"):
                continue
            if is_unspaced(character) or is_unspaced(previous):
                spans.append((piece_start, start + offset))
                piece_start = start + offset
        spans.append((piece_start, end))
    return spans


def _pack(
    text: str, spans: list[tuple[int, int]], budget: float, finer: int
) -> Iterator[tuple[int, int]]:
    """Greedily join consecutive spans into pieces of at most ``budget`` units; a span larger
    than the budget is cut at the next finer level (sentences → clauses → words)."""
    start: int | None = None
    end = 0
    held = 0.0
    for span_start, span_end in spans:
        size = units(text[span_start:span_end])
        if size > budget + _SLACK and finer < len(_LEVELS):
            if start is not None:
                yield start, end
                start, held = None, 0.0
            piece = text[span_start:span_end]
            inner = [(span_start + a, span_start + b) for a, b in _LEVELS[finer](piece)]
            yield from _pack(text, inner, budget, finer + 1)
            continue
        if start is not None and held + size > budget + _SLACK:
            yield start, end
            start, held = None, 0.0
        if start is None:
            start = span_start
        end = span_end
        held += size
    if start is not None:
        yield start, end


_LEVELS = (sentence_spans, clause_spans, word_spans)
#: Sums of fractional units carry rounding error: 5 × 6.0 must still fit in 30.
_SLACK = 1e-6


def cut(text: str, budget: float) -> list[tuple[int, int]]:
    """Cut ``text`` into consecutive spans of at most ``budget`` units (a single word or
    grapheme may exceed it), at sentence ends of every script where possible, then at clause
    marks, then between words, never inside one. The spans cover ``text`` in order."""
    if budget <= 0:
        raise ValueError("budget must be more than 0")
    return list(_pack(text, [(0, len(text))], budget, 0))


def windows(passage: str, size: float | None) -> list[str]:
    """The passage as windows of at most ``size`` units, each starting half a window after
    the last, the last ending with the passage; the passage itself when it fits (or when
    ``size`` is None: the embedder reads any length). Windows are slices of the passage
    (whitespace collapsed) cut between words."""
    if size is None or units(passage) <= size:
        return [passage]
    spans = word_spans(passage)
    sizes = [units(passage[start:end]) for start, end in spans]
    found: list[str] = []
    first = 0
    while True:
        held = 0.0
        last = first
        while last < len(spans) and (held + sizes[last] <= size or last == first):
            held += sizes[last]
            last += 1
        found.append(" ".join(passage[spans[first][0] : spans[last - 1][1]].split()))
        if last >= len(spans):
            return found
        # Next window: half a window on, but never past the point where one more fits.
        moved = 0.0
        step = first
        while step < last - 1 and moved < size / 2:
            moved += sizes[step]
            step += 1
        first = max(step, first + 1)


def edge(passage: str, size: float, head: bool) -> str:
    """The first (``head``) or last ``size`` units of a passage, cut between words."""
    spans = word_spans(passage)
    if not head:
        spans = spans[::-1]
    held = 0.0
    taken: list[tuple[int, int]] = []
    for start, end in spans:
        held += units(passage[start:end])
        if taken and held > size:
            break
        taken.append((start, end))
    low = min(start for start, _ in taken) if taken else 0
    high = max(end for _, end in taken) if taken else 0
    return " ".join(passage[low:high].split())


def sentences(passage: str) -> list[str]:
    """The sentences of a passage, whitespace collapsed: each line (a heading, a list item,
    a paragraph) cut at sentence ends of its script. What an embedder that scores a passage
    by its best sentence reads (evidence is a sentence or two, and a vector of a whole
    passage blurs it)."""
    found: list[str] = []
    for line in passage.split("\n"):
        for start, end in sentence_spans(line):
            text = " ".join(line[start:end].split())
            if text:
                found.append(text)
    return found
