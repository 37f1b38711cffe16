"""Kettle & Co's support assistant: a small cited-answer assistant that runs offline.

It answers a customer's question the way a RAG application does: it retrieves the help
pages closest to the question (:mod:`assistant.retrieval`), hands them to its model with the
system prompt (``prompt.txt``), and returns the model's answer with ``[n]`` markers and the
URLs they number, in the generic answer shape ``pytest-citations`` reads. Its model is
:mod:`assistant.model`: replies recorded for each prompt, so that the example needs no
provider account; a real assistant calls its LLM there.
"""

from __future__ import annotations

from dataclasses import dataclass

from .app import answer

__all__ = ["QUESTIONS", "Question", "answer"]


@dataclass(frozen=True)
class Question:
    """A question customers ask, with the id the assistant's logs give it."""

    id: str
    text: str


#: The questions the assistant's tests and its answer export cover.
QUESTIONS = (
    Question("warranty", "How long is the warranty on a kettle?"),
    Question("returns", "Can I return a kettle I have opened?"),
    Question("descaling", "How often should I descale my kettle?"),
    Question("delivery", "How long does delivery take, and what does it cost?"),
)
