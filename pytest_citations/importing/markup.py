"""Markdown in answers: kept in the answer's record, never taken for a claim.

Web search models answer in markdown: ``## headings``, ``**Bold label:**`` lead-ins, bullet
lists, inline source links (``([ft.com](https://…))``) and trailing lists of sources. A claim
is a sentence the answer asserts, in plain text, so before the answer is split into claims
(C1) each line that is only structure (a heading, a rule, a table row, a bold label on a line
of its own, a line of source links) becomes a block of its own, and each sentence is read
back as plain text: emphasis and link syntax removed, a bold lead-in label dropped when a
sentence of its own follows it, and a sentence that is only markup, sources or a lead-in to a
list (``Recent figures include:``) is no claim at all. The answer itself keeps every
character.
"""

from __future__ import annotations

import re

from ..cases.claims import ExtractedClaim, extract_claims

_HEADING = re.compile(r"^\s{0,3}#{1,6}\s")
_RULE = re.compile(r"^\s{0,3}(?:(?:-\s*){3,}|(?:\*\s*){3,}|(?:_\s*){3,})$")
_TABLE = re.compile(r"^\s*\|")
_BULLET = re.compile(r"^\s*(?:[-*•+]|\d+[.)])\s+")
#: A line that is a bold label and nothing else ("**FTX Case Update:**").
_LABEL_LINE = re.compile(r"^\s*(?:(?:[-*•+]|\d+[.)])\s+)?\*\*[^*\n]+\*\*:?\s*$")
_LINK = re.compile(r"!?\[([^\]\n]*)\]\(([^)\s]*)\)")
#: A citation link in parentheses, as the web search models write it after a sentence.
_CITATION_LINK = re.compile(r"\s*\(\s*\[[^\]\n]*\]\([^)\s]*\)\s*\)")
#: A link after the end of a sentence: the sentence's source, not its words.
_TRAILING_LINK = re.compile(r"([.!?][\"'”’)]*)\s*\[[^\]\n]*\]\([^)\s]*\)\s*$")
_BARE_URL = re.compile(r"https?://\S+")
_MARKERS = re.compile(r"\[\s*\d+(?:\s*[,;–-]\s*\d+)*\s*\]")
_DOMAIN = re.compile(r"\b[\w-]+(?:\.[\w-]+)+\b")
_BOLD_LEAD = re.compile(r"^\*\*(?P<label>[^*]+?)\*\*\s*(?P<aside>\([^)]*\))?\s*:\s*(?P<rest>.+)$")
_BOLD_COLON = re.compile(r"^\*\*(?P<label>[^*]+?):\*\*\s*(?P<rest>.+)$")
_EMPHASIS = re.compile(r"(\*\*|__)(?=\S)(.+?)(?<=\S)\1|(?<![\w*])\*(?=\S)([^*\n]+?)(?<=\S)\*(?!\w)")
_CODE = re.compile(r"`([^`\n]+)`")


def is_structure(line: str) -> bool:
    """True for a line that is structure, not prose: a heading, a rule, a table row, a bold
    label on its own, or a line of source links."""
    return bool(
        _HEADING.match(line)
        or _RULE.match(line)
        or _TABLE.match(line)
        or _LABEL_LINE.match(line)
        or (line.strip() and is_sources(_BULLET.sub("", line)))
    )


def separated(text: str) -> str:
    """The text with a blank line around each structural line, so that the answer splitter
    takes each for a block of its own (no character but line ends is added)."""
    lines = text.split("\n")
    out: list[str] = []
    for line in lines:
        if is_structure(line):
            out.extend(["", line, ""])
        else:
            out.append(line)
    return "\n".join(out)


def prose_claims(text: str) -> list[ExtractedClaim]:
    """The sentences of the answer's prose, each with its markers: the structural lines left
    out whole (a bold title such as ``**1. Cat Survives**`` is no sentence, nor two)."""
    blocks: list[list[str]] = [[]]
    for line in text.split("\n"):
        if is_structure(line):
            blocks.append([])
        else:
            blocks[-1].append(line)
    return [claim for block in blocks for claim in extract_claims("\n".join(block))]


def is_sources(text: str) -> bool:
    """True when ``text`` holds links or URLs and nothing else but their labels, markers,
    domain names and punctuation (``[1] ft.com (https://…)``, ``- [Title](https://…)``)."""
    if not (_LINK.search(text) or _BARE_URL.search(text)):
        return False
    rest = _LINK.sub(" ", text)
    rest = _BARE_URL.sub(" ", rest)
    rest = _MARKERS.sub(" ", rest)
    rest = _DOMAIN.sub(" ", rest)
    rest = re.sub(r"\b(?:sources?|references?)\b", " ", rest, flags=re.IGNORECASE)
    return not re.search(r"\w", rest)


def _is_sentence(text: str) -> bool:
    """A sentence of its own: at least three words, opening with a capital, a digit or a
    quote."""
    first = text[:1]
    return len(text.split()) >= 3 and (first.isupper() or first.isdigit() or first in "\"'“‘")


def _lead_in(text: str) -> str:
    """The sentence without a bold lead-in label (``**Label:** Sentence.`` → ``Sentence.``);
    a label followed by a value that is no sentence (``**GOOG:** $187.07``) stays, in plain
    text."""
    for pattern in (_BOLD_LEAD, _BOLD_COLON):
        found = pattern.match(text)
        if found is None:
            continue
        rest = found.group("rest").strip()
        if _is_sentence(plain_text(rest)):
            return rest
        aside = found.groupdict().get("aside")
        label = found.group("label") + (f" {aside}" if aside else "")
        return f"{label}: {rest}"
    return text


def plain_text(text: str) -> str:
    """Text without markdown: link labels for links, no emphasis, citation links gone."""
    text = _CITATION_LINK.sub("", text)
    text = _TRAILING_LINK.sub(r"\1", text)
    text = _LINK.sub(lambda link: link.group(1), text)
    for _ in range(2):  # nested emphasis (***bold italic***)
        text = _EMPHASIS.sub(lambda m: m.group(2) if m.group(2) is not None else m.group(3), text)
    text = _CODE.sub(lambda code: code.group(1), text)
    text = re.sub(r"\s+([.,;:!?])", r"\1", " ".join(text.split()))
    return text.strip()


def span_text(span: str) -> str:
    """A provider's span as plain text, its list bullets gone (its labels kept, so that a
    span holding a headline the claim dropped still differs from the claim)."""
    return plain_text(" ".join(_BULLET.sub("", line) for line in span.split("\n")))


def claim_text(sentence: str) -> str | None:
    """A sentence of the answer as a claim, in plain text; None when it asserts nothing (a
    heading, a rule, a line of sources, a lead-in to a list, markup alone)."""
    stripped = _BULLET.sub("", sentence.strip())
    if _HEADING.match(stripped) or _RULE.match(stripped) or _TABLE.match(stripped):
        return None
    if is_sources(stripped) or _LABEL_LINE.match(stripped):
        return None
    text = plain_text(_lead_in(stripped))
    if not re.search(r"\w", text) or _is_lead_in(text) or _is_label(text):
        return None
    return text


def _is_label(text: str) -> bool:
    """A word or two with neither a figure nor a sentence end (a list item such as ``Cat``
    or ``Animal care``): it names, it does not assert."""
    return len(text.split()) < 3 and not re.search(r"[\d.!?]", text)


def _is_lead_in(text: str) -> bool:
    """A clause that only opens what follows (``Recent figures include:``): it ends with a
    colon and holds no sentence end before it."""
    return text.endswith(":") and not re.search(r"[.!?]", text[:-1])


def link_urls(text: str) -> list[str]:
    """The URLs of the markdown links and bare URLs in ``text``, in order, once each."""
    found = [link.group(2) for link in _LINK.finditer(text)]
    found += [url.rstrip(").,;") for url in _BARE_URL.findall(_LINK.sub(" ", text))]
    return list(dict.fromkeys(found))
