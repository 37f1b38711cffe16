"""What the emulated model answers to one request: a test's rule, an obeyed order, or the oracle.

A test that needs a particular verdict for a claim sets a :class:`JudgeRule` (a label and quote,
literal ``raw`` content, or a spoiled reply). Without a rule, a gullible emulator obeys an
order a page smuggled outside its fences (:mod:`.injection`), and otherwise the heuristic
oracle (:mod:`.oracle`) judges the passages. The answer is provider-neutral; the wire modules
wrap it.
"""

from __future__ import annotations

import enum
import json
from dataclasses import dataclass
from typing import Any

from .injection import injected_order
from .oracle import joint_oracle_verdict, oracle_verdict
from .prompt import is_joint, parse_sources
from .replies import Stop


class _Auto(enum.Enum):
    AUTO = "auto"


AUTO = _Auto.AUTO
"""Rule quote default: use the oracle's chosen sentence (or null when it finds nothing)."""


@dataclass
class JudgeRule:
    """An explicit answer for one claim: a verdict, or ``raw`` literal content."""

    label: str = "supported"
    quote: str | _Auto | None = AUTO
    confidence: float = 0.9
    raw: str | None = None
    #: For joint requests: ``[(source, quote), ...]`` to answer instead of the oracle's.
    quotes: list[tuple[int, str]] | None = None
    #: Spoil every reply this rule answers (see :data:`Stop`).
    stop: Stop | None = None
    #: A label per call, in turn (the sequence repeats once it is used up): a judge that
    #: answers the same request differently from one call to the next. Empty: ``label``.
    labels: tuple[str, ...] = ()
    #: How many single requests the rule has answered (which of ``labels`` comes next).
    answered: int = 0

    def next_label(self) -> str:
        """The label of the next single request this rule answers, counting it."""
        if not self.labels:
            return self.label
        label = self.labels[self.answered % len(self.labels)]
        self.answered += 1
        return label


@dataclass(frozen=True)
class Answer:
    """The model's answer before a provider wraps it."""

    #: The content string sent (a JSON verdict, or a rule's ``raw`` text).
    content: str
    #: The verdict object behind the content (None for ``raw`` content).
    verdict: dict[str, Any] | None
    #: The label the content carries, as the call log records it.
    label: str | None
    stop: Stop | None


def answer(
    rule: JudgeRule | None, user_text: str, claim: str, passages: list[str], gullible: bool
) -> Answer:
    """The answer to a request whose user message is ``user_text``.

    A rule's ``raw`` content wins; then, without a rule, a gullible model's injected order;
    then the oracle, whose verdict a rule overrides (single requests: every rule; joint
    requests: only rules with ``quotes``). A rule's ``stop`` applies to the requests it
    answers.
    """
    joint = is_joint(user_text)
    order = injected_order(user_text) if gullible and rule is None else None
    stop = rule.stop if rule is not None and (not joint or rule.quotes is not None) else None
    if rule is not None and rule.raw is not None:
        return Answer(rule.raw, None, _raw_label(rule.raw), stop)
    verdict: dict[str, Any]
    if order is not None:
        # A gullible model: the page's forged "SYSTEM:" order replaces its own judgement.
        verdict = order.joint() if joint else order.single()
        return Answer(json.dumps(verdict, ensure_ascii=False), verdict, order.label, stop)
    if joint:
        verdict = _joint_verdict(rule, claim, user_text)
    else:
        verdict = _single_verdict(rule, claim, passages)
    return Answer(json.dumps(verdict, ensure_ascii=False), verdict, str(verdict["label"]), stop)


def _raw_label(raw: str) -> str | None:
    """The label of ``raw`` content when it is a JSON object (its ``label``, even missing)."""
    try:
        parsed = json.loads(raw)
    except ValueError:
        return None
    return str(parsed.get("label")) if isinstance(parsed, dict) else None


def _joint_verdict(rule: JudgeRule | None, claim: str, user_text: str) -> dict[str, Any]:
    """The joint oracle's verdict, or a joint rule's (only rules with ``quotes`` apply)."""
    verdict = joint_oracle_verdict(claim, parse_sources(user_text))
    if rule is not None and rule.quotes is not None:
        verdict = {
            "label": rule.label,
            "quotes": [{"source": src, "quote": q} for src, q in rule.quotes],
            "confidence": rule.confidence,
        }
    return verdict


def _single_verdict(rule: JudgeRule | None, claim: str, passages: list[str]) -> dict[str, Any]:
    """The oracle's verdict, or the rule's (its quote left to ``AUTO`` is the oracle's)."""
    verdict = oracle_verdict(claim, passages)
    if rule is not None:
        quote = verdict["evidence_quote"] if rule.quote is AUTO else rule.quote
        verdict = {"label": rule.label, "evidence_quote": quote, "confidence": rule.confidence}
    return verdict
