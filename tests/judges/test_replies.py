"""Issue 8, "the real APIs' signals" (judge part): the verdict schemas use only keywords that
OpenAI's strict structured outputs accept, and a refusal, a reply cut at the token limit or an
empty reply each get their own reason while their token usage is still counted (J1, J2).

Everything goes through real httpx to the judge emulator (pytest_citations/sandbox/judges/),
which serves the providers' published response shapes, switched to a refusal, a truncation or
an empty reply by ``judge.rule(claim, stop=...)``.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from pytest_citations import Label, Reason
from pytest_citations.judges import JUDGES
from pytest_citations.judges.prompt import JOINT_SCHEMA, VERDICT_SCHEMA

URL = "https://example.org/water"
CLAIM = "Water boils at 100 degrees Celsius at sea level."
OTHER_URL = "https://example.org/ice"
OTHER_CLAIM = "Ice melts at 0 degrees Celsius."
PROVIDERS = list(JUDGES)

# -- J1: keywords strict mode accepts everywhere ------------------------------------------------

#: Keywords OpenAI's strict structured outputs have accepted in every release: no numeric or
#: string bounds (``minimum``/``maximum`` were rejected), no formats, no patterns.
STRICT_KEYWORDS = frozenset(
    {"type", "properties", "required", "additionalProperties", "items", "enum", "description"}
)


def _objects(schema: dict[str, Any]) -> list[dict[str, Any]]:
    """Every subschema of ``schema``, itself included."""
    found = [schema]
    for child in schema.get("properties", {}).values():
        found += _objects(child)
    if isinstance(schema.get("items"), dict):
        found += _objects(schema["items"])
    return found


@pytest.mark.parametrize("schema", [VERDICT_SCHEMA, JOINT_SCHEMA], ids=["verdict", "joint"])
def test_j1_schema_uses_only_keywords_strict_mode_accepts(schema: dict[str, Any]) -> None:
    for subschema in _objects(schema):
        assert set(subschema) <= STRICT_KEYWORDS, subschema
        if "object" in subschema.get("type", ()):
            # Strict mode: every property required, no others allowed.
            assert subschema["additionalProperties"] is False
            assert set(subschema["required"]) == set(subschema["properties"])


@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.parametrize("confidence", [1.5, -0.1])
def test_j1_confidence_range_is_still_checked_in_code(
    crawlbase, judge, verify, article, provider, confidence
):
    crawlbase.add(URL, markdown=article(CLAIM))
    judge.rule(CLAIM, label="supported", confidence=confidence)

    result, _ = verify(CLAIM, [URL], judge_provider=provider)

    assert result.citations[0].reason == Reason.JUDGE_INVALID_RESPONSE
    assert result.citations[0].confidence == 0.0


# -- J2: refusals, truncations, empty replies ---------------------------------------------------

#: (provider, emulator switch) → the reason the citation gets. The switch makes the emulator
#: answer as that provider does: OpenAI ``message.refusal`` / ``finish_reason``, Anthropic
#: ``stop_reason`` / an empty ``content`` list, Ollama ``done_reason``.
SIGNALS = [
    ("openai", "refusal", Reason.JUDGE_REFUSED),
    ("openai", "content_filter", Reason.JUDGE_REFUSED),
    ("openai", "length", Reason.JUDGE_TRUNCATED),
    ("openai", "empty", Reason.JUDGE_EMPTY_RESPONSE),
    ("anthropic", "refusal", Reason.JUDGE_REFUSED),
    ("anthropic", "length", Reason.JUDGE_TRUNCATED),
    ("anthropic", "context_window", Reason.JUDGE_TRUNCATED),
    ("anthropic", "empty", Reason.JUDGE_EMPTY_RESPONSE),
    ("ollama", "length", Reason.JUDGE_TRUNCATED),
    ("ollama", "empty", Reason.JUDGE_EMPTY_RESPONSE),
]
SIGNAL_IDS = [f"{provider}-{stop}" for provider, stop, _ in SIGNALS]


@pytest.mark.parametrize(("provider", "stop", "reason"), SIGNALS, ids=SIGNAL_IDS)
def test_j2_unusable_reply_gets_its_own_reason_and_its_tokens_count(
    crawlbase, judge, make_verifier, article, provider, stop, reason
):
    crawlbase.add(URL, markdown=article(CLAIM))
    crawlbase.add(OTHER_URL, markdown=article(OTHER_CLAIM, title="Ice"))
    judge.rule(CLAIM, stop=stop)

    async def scenario():
        async with make_verifier(judge_provider=provider) as verifier:
            first = await verifier.verify(CLAIM, [URL])
            second = await verifier.verify(OTHER_CLAIM, [OTHER_URL])
            return first, second, verifier.usage

    first, second, usage = asyncio.run(scenario())

    (citation,) = first.citations
    assert (citation.label, citation.reason) == (Label.NOT_FOUND, reason)
    assert citation.confidence == 0.0
    assert citation.evidence_quote is None
    assert second.label is Label.SUPPORTED  # the run goes on
    assert judge.call_count == 2  # an unusable reply is not retried
    assert usage.judge_calls == 2
    # The unusable reply was paid for: its tokens are in the totals.
    assert judge.calls[0].prompt_tokens > 0
    assert judge.calls[0].completion_tokens > 0
    assert usage.prompt_tokens == judge.tokens["prompt"]
    assert usage.completion_tokens == judge.tokens["completion"]


@pytest.mark.parametrize(("provider", "stop", "reason"), SIGNALS, ids=SIGNAL_IDS)
def test_j2_judgement_carries_the_reason_and_the_usage(
    judge, make_verifier, provider, stop, reason
):
    judge.rule(CLAIM, stop=stop)

    async def scenario():
        async with make_verifier(judge_provider=provider) as verifier:
            return await verifier.judge.judge(CLAIM, [CLAIM])

    judgement = asyncio.run(scenario())

    (call,) = judge.calls
    assert judgement.reason == reason
    assert judgement.label is Label.NOT_FOUND
    assert (judgement.prompt_tokens, judgement.completion_tokens) == (
        call.prompt_tokens,
        call.completion_tokens,
    )


@pytest.mark.parametrize(("provider", "stop", "reason"), SIGNALS, ids=SIGNAL_IDS)
def test_j2_joint_judgement_carries_the_reason_and_the_usage(
    judge, make_verifier, provider, stop, reason
):
    # A rule with ``quotes`` answers joint requests (004, C2); ``stop`` spoils that answer.
    judge.rule(CLAIM, stop=stop, quotes=[(1, CLAIM)])

    async def scenario():
        async with make_verifier(judge_provider=provider) as verifier:
            return await verifier.judge.judge_joint(CLAIM, [[CLAIM], ["Other text."]])

    judgement = asyncio.run(scenario())

    (call,) = judge.calls
    assert len(call.passages) == 2
    assert judgement.reason == reason
    assert judgement.quotes == ()
    assert (judgement.prompt_tokens, judgement.completion_tokens) == (
        call.prompt_tokens,
        call.completion_tokens,
    )


def test_j2_joint_refusal_does_not_support_and_its_tokens_count(crawlbase, judge, verify, article):
    """A claim no page supports alone goes to the joint judge (C2); a refused joint reply
    supports nothing and is still paid for."""
    history = "The museum was founded in 1881 by the city council."
    visit = "The museum opens every day at nine in the morning."
    claim = "The museum, founded in 1881, opens every day at nine."
    crawlbase.add(URL, markdown=article(history, title="History"))
    crawlbase.add(OTHER_URL, markdown=article(visit, title="Visit"))
    # Unspoilt, this rule would support the claim jointly; the refusal spoils every reply.
    judge.rule(claim, stop="refusal", quotes=[(1, history), (2, visit)])

    result, verifier = verify(claim, [URL, OTHER_URL])

    assert result.label is Label.NOT_FOUND
    assert result.joint_support == ()
    joint = [call for call in judge.calls if len(call.passages) > 1]
    assert len(joint) == 1
    assert verifier.usage.judge_calls == 3
    assert verifier.usage.prompt_tokens == judge.tokens["prompt"]
    assert verifier.usage.completion_tokens == judge.tokens["completion"]
