"""Claims from answers (C1, C2): split an answer at sentence boundaries, keep each sentence's
citation markers (``[1]``, ``[1][3]``, ``[1, 3]``) and strip them from the claim text.

A sentence ends at ``.``, ``!`` or ``?`` followed by space and a capital, a digit or a quote,
or at a line break. Abbreviations (``e.g.``, ``Dr.``, ``Warner Bros.``, ``approx.``, ``No. 5``,
``(b. 2001)``), dotted initialisms (``U.S.``, ``The A.V. Club``), initials (``J. R. R.``),
German abbreviations (``z. B.``, ``u. a.``, ``Nr.``, ``bzw.``), decimals (``3.5``) and units
(``5 kg. of``) do not end one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

#: Abbreviations that end in a period without ending a sentence (lowercase, without the dot).
ABBREVIATIONS = frozenset(
    """
    e.g i.e etc vs cf approx ca al resp incl excl esp viz mr mrs ms dr prof st sr jr mt
    ft no nos vol fig figs p pp ch sec art para eq ed eds inc ltd co corp llc plc gmbh
    ag bros dept est min max avg jan feb mar apr jun jul aug sep sept oct nov dec mon
    tue tues wed thu thur thurs fri sat sun kg g mg lb lbs oz km m cm mm mi yd in hr
    hrs sec secs yr yrs mo mos pct u.s u.k u.n e.u a.m p.m b d c fl r
    nr bzw usw vgl ggf evtl sog bzgl ebd hrsg mio mrd tsd jh jhd geb gest abs bspw
    """.split()
)

#: Abbreviations that stand before a number ("No. 5", "Fig. 3", "p. 12", "Jan. 5", "min. 30"):
#: there they end no sentence, but before a capital they are the word that ends one ("The
#: answer is no. Refunds take …", "The committee sat. It voted …").
_BEFORE_NUMBERS = frozenset(
    """
    no nos vol fig figs p pp ch sec art para eq ed eds est min max avg jan feb mar apr
    jun jul aug sep sept oct nov dec mon tue tues wed thu thur thurs fri sat sun
    b d c fl r
    """.split()
)
#: Units and company suffixes: ordinary words that end a sentence before a capital or a
#: number ("It weighs 5 kg. That is heavy"); before a lowercase word ("5 kg. of flour")
#: nothing ends a sentence anyway.
_WORD_LIKE = frozenset(
    """
    kg g mg lb lbs oz km m cm mm mi yd in ft hr hrs secs yr yrs mo mos pct inc ltd co
    corp llc plc gmbh ag dept
    """.split()
)
#: German abbreviations written as two or three spaced parts ("z. B.", "u. a.", "d. h.",
#: "i. d. R."): no dot inside them ends a sentence.
_SPACED_ABBREVIATION = re.compile(
    r"(?<![\w.])(?:i\. ?d\. ?R|z\. ?B|z\. ?T|u\. ?a|u\. ?U|u\. ?Ä|d\. ?h|o\. ?ä|o\. ?g|"
    r"s\. ?o|s\. ?u|v\. ?a|m\. ?E|i\. ?A|n\. ?Chr|v\. ?Chr)\.",
)
#: A dotted initialism: "U.S.", "A.V.", "J.R.R.", "e.g." (the token before its last dot).
_INITIALISM = re.compile(r"(?:[A-Za-z]\.)+[A-Za-z]")

_MARKER_GROUP = re.compile(r"\[\s*\d+(?:\s*[,;–-]\s*\d+)*\s*\]")
_MARKERS_RUN = re.compile(r"(?:\s*\[\s*\d+(?:\s*[,;–-]\s*\d+)*\s*\])+")
_END = re.compile(r"[.!?]+[\"'”’)\]]*")


@dataclass(frozen=True)
class ExtractedClaim:
    """A sentence of an answer: its text without markers, and the markers it cited."""

    text: str
    markers: tuple[str, ...]


def _expand(group: str) -> list[str]:
    numbers: list[str] = []
    for part in re.split(r"\s*[,;]\s*", group.strip("[] \t")):
        bounds = re.split(r"\s*[–-]\s*", part)
        if len(bounds) == 2 and bounds[0].isdigit() and bounds[1].isdigit():
            low, high = int(bounds[0]), int(bounds[1])
            if 0 < high - low < 50:
                numbers.extend(str(n) for n in range(low, high + 1))
                continue
        if part.isdigit():
            numbers.append(str(int(part)))
    return numbers


def _ends_sentence(text: str, end: int, punct_start: int, protected: set[int]) -> bool:
    """Whether the punctuation at ``punct_start..end`` closes a sentence; dots at the
    ``protected`` offsets (inside spaced abbreviations) never do."""
    rest = text[end:]
    following = rest.lstrip()
    if not following:
        return True
    if punct_start in protected:
        return False
    if not rest[:1].isspace() and not rest.startswith("["):
        return False  # "3.5", "e.g.x", "U.S.-made"
    if text[punct_start] in "!?":
        return following[:1].isupper() or following[:1] in "\"'“‘(" or following[:1].isdigit()
    word = re.search(r"([A-Za-z][A-Za-z.]*)$", text[:punct_start])
    token = word.group(1).lower() if word else ""
    first = following[:1]
    key = token.rstrip(".")
    if token and (token in ABBREVIATIONS or key in ABBREVIATIONS):
        if key in _BEFORE_NUMBERS:
            if first.isdigit():
                return False  # "No. 5", "Fig. 3"
        elif key not in _WORD_LIKE:
            return False  # "Dr. Smith", "e.g. Apples", "U.S. Army", "Warner Bros.' 2020"
    if _INITIALISM.fullmatch(token):
        return False  # "The A.V. Club", "J.R.R. Tolkien"
    if (
        len(token) == 1
        and text[punct_start - 1].isupper()
        and text[punct_start - 2 : punct_start - 1] in ("", " ", "(", ".", '"', "'")
    ):
        return False  # an initial: "J. Smith" (but not "100 °C. It")
    return first.isupper() or first.isdigit() or first in "\"'“‘(["


def split_sentences(answer: str) -> list[str]:
    """The answer's sentences, each with its trailing citation markers kept."""
    sentences: list[str] = []
    for block in re.split(r"\n\s*\n|\n(?=\s*(?:[-*•]|\d+[.)])\s)", answer):
        text = " ".join(block.split())
        text = re.sub(r"^(?:[-*•]|\d+[.)])\s+", "", text)
        protected = {
            match.start() + offset
            for match in _SPACED_ABBREVIATION.finditer(text)
            for offset, character in enumerate(match.group(0))
            if character == "."
        }
        start = 0
        for match in _END.finditer(text):
            end = match.end()
            markers = _MARKERS_RUN.match(text, end)
            if markers:
                end = markers.end()
            if _ends_sentence(text, end, match.start(), protected):
                sentence = text[start:end].strip()
                if sentence:
                    sentences.append(sentence)
                start = end
        tail = text[start:].strip()
        if tail:
            sentences.append(tail)
    return sentences


def extract_claims(answer: str) -> list[ExtractedClaim]:
    """One claim per sentence: markers collected (in order, once) and removed from the text."""
    claims: list[ExtractedClaim] = []
    for sentence in split_sentences(answer):
        markers: list[str] = []
        for group in _MARKER_GROUP.findall(sentence):
            for marker in _expand(group):
                if marker not in markers:
                    markers.append(marker)
        text = _MARKER_GROUP.sub("", sentence)
        text = re.sub(r"\s+([.,;:!?])", r"\1", " ".join(text.split())).strip()
        if re.search(r"\w", text):
            claims.append(ExtractedClaim(text, tuple(markers)))
    return claims
