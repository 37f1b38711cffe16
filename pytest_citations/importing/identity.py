"""What stays the same when an application answers the same questions again: the case's id,
each claim's identity, and the cited URLs.

An application exported twice answers with new provider response ids (OpenAI ``resp_…`` and
``chatcmpl-…``, Anthropic ``msg_…``: new on every call) and may tag its links for analytics
(ChatGPT adds ``utm_source=openai``). None of that names the question or the page, so none of
it may name a case or a citation: the case id comes from the record's question id, else from
the question's text; a claim is its text as a reviewer reads it and the pages it cites; a URL
loses the documented tracking parameters and keeps every other parameter, in its order and
spelling.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from urllib.parse import urlsplit, urlunsplit

#: Query parameters that only say where a click came from, each documented as such by its
#: platform: Google Analytics' campaign parameters (``utm_source``, ``utm_medium``,
#: ``utm_campaign``, ``utm_term``, ``utm_content``, ``utm_id`` …, all ``utm_*``) and the
#: click identifiers ad platforms append: ``gclid`` (Google Ads auto-tagging), ``fbclid``
#: (Meta), ``msclkid`` (Microsoft Advertising). Others (``ref``, ``source``, ``id``) may
#: select the page itself and are kept.
TRACKING_PREFIXES = ("utm_",)
TRACKING_PARAMETERS = frozenset({"gclid", "fbclid", "msclkid"})

#: The ids providers give a response, new on every call: OpenAI Responses (``resp_``), Chat
#: Completions (``chatcmpl-``), Batch request lines (``batch_req_``), Anthropic Messages
#: (``msg_``), each followed by an opaque token.
_RESPONSE_ID = re.compile(r"(?:resp_|chatcmpl-|batch_req_|msg_)[A-Za-z0-9]{8,}")
_ID = re.compile(r"[^A-Za-z0-9_.-]+")
_WORD = re.compile(r"[a-z0-9]+")
_QUOTES = str.maketrans({"‘": "'", "’": "'", "‚": "'", "“": '"', "”": '"', "„": '"'})


def without_tracking(url: str) -> str:
    """``url`` without its tracking parameters; every other parameter stays as written, in
    its order (no re-encoding), and the fragment stays. A query left empty loses its ``?``."""
    parts = urlsplit(url)
    if not parts.query:
        return url
    kept = [piece for piece in parts.query.split("&") if not _is_tracking(piece)]
    if len(kept) == len(parts.query.split("&")):
        return url
    return urlunsplit(parts._replace(query="&".join(kept)))


def _is_tracking(piece: str) -> bool:
    name = piece.split("=", 1)[0]
    return name in TRACKING_PARAMETERS or name.startswith(TRACKING_PREFIXES)


def is_response_id(value: str) -> bool:
    """True when ``value`` has the shape of a provider's response id (new on every call)."""
    return _RESPONSE_ID.fullmatch(value) is not None


def normalised(text: str) -> str:
    """A question as its case id sees it: Unicode compatibility forms folded (NFKC),
    typographic quotes straightened, whitespace collapsed (an id names the question however
    it is typeset; a claim is compared as it reads, see :func:`claim_key`)."""
    return " ".join(unicodedata.normalize("NFKC", text).translate(_QUOTES).split())


def claim_key(text: str) -> str:
    """The identity of a claim's text across imports: the text as a reviewer reads it, its
    whitespace collapsed and its characters composed (NFC: the same letters, however the
    export encoded their accents). Nothing that reads otherwise is folded: "10² days" and
    "102 days", or "’" and "'", are different claims."""
    return " ".join(unicodedata.normalize("NFC", text).split())


def slug(text: str) -> str:
    """A record's own id as a case id: letters, digits and ``_.-``; "" when none is left."""
    return _ID.sub("-", text).strip("-")


def question_case_id(question: str) -> str:
    """A case id from the question alone: its first words and a short hash of its normalised
    text (case folded too), so that the same question gets the same id however it was
    answered."""
    digest = _digest(normalised(question).casefold())
    words = _WORD.findall(
        unicodedata.normalize("NFKD", question).encode("ascii", "ignore").decode("ascii").lower()
    )
    stem = "-".join(words[:6])[:48].strip("-")
    return f"{stem}-{digest[:8]}" if stem else f"question-{digest[:12]}"


def content_case_id(content: str) -> str:
    """A case id for a record with neither an id nor a question: a hash of its content (the
    only thing left that names it)."""
    return f"answer-{_digest(content)[:12]}"


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
