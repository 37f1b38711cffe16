"""The judge's votes (``judge_votes``): each claim–URL pair judged N times in turn, the
majority label kept, a tie to the stricter label, each vote through the guard (G1-G3), and
an answer that cannot be used leaving the citation unchecked."""

from __future__ import annotations

import asyncio

import pytest

from pytest_citations import ClaimRequest, Label, Settings
from pytest_citations.errors import ConfigurationError
from pytest_citations.judges import Judgement
from pytest_citations.labels import Reason
from pytest_citations.pipeline.voting import tally

URL = "https://example.org/water"
CLAIM = "Water boils at 100 degrees Celsius at sea level."
OTHER = "Sea level pressure is one standard atmosphere in this reference article."
PASSAGES = [f"{CLAIM} {OTHER}"]


def test_three_votes_keep_the_majority_and_the_quote_of_its_first_vote(
    crawlbase, judge, verify, article
):
    crawlbase.add(URL, markdown=article(CLAIM, OTHER))
    judge.rule(CLAIM, labels=["supported", "contradicted", "supported"], quote=CLAIM)

    verdict, verifier = verify(CLAIM, [URL], judge_votes=3)

    citation = verdict.citations[0]
    assert [call.label for call in judge.calls] == ["supported", "contradicted", "supported"]
    assert judge.call_count == verifier.usage.judge_calls == 3
    assert (verdict.label, citation.label) == (Label.SUPPORTED, Label.SUPPORTED)
    assert citation.votes == (Label.SUPPORTED, Label.CONTRADICTED, Label.SUPPORTED)
    assert citation.agreed is False
    assert (citation.evidence_quote, citation.confidence) == (CLAIM, 0.9)
    data = citation.to_dict()
    assert (data["votes"], data["agreed"]) == (["supported", "contradicted", "supported"], False)


def test_a_tie_goes_to_the_stricter_label(crawlbase, judge, verify, article):
    crawlbase.add(URL, markdown=article(CLAIM, OTHER))
    judge.rule(CLAIM, labels=["supported", "contradicted"], quote=CLAIM)

    verdict, _ = verify(CLAIM, [URL], judge_votes=2)

    assert judge.call_count == 2
    assert verdict.label is Label.CONTRADICTED
    assert verdict.citations[0].votes == (Label.SUPPORTED, Label.CONTRADICTED)


def test_one_vote_is_a_single_call_and_its_verdict_carries_no_votes(
    crawlbase, judge, verify, article
):
    crawlbase.add(URL, markdown=article(CLAIM, OTHER))
    judge.rule(CLAIM, labels=["contradicted", "supported"], quote=CLAIM)

    verdict, _ = verify(CLAIM, [URL])

    assert judge.call_count == 1
    citation = verdict.citations[0]
    assert (citation.label, citation.votes, citation.agreed) == (Label.CONTRADICTED, (), True)
    assert "votes" not in citation.to_dict()
    assert "agreed" not in citation.to_dict()


def test_votes_that_agree_are_agreed(crawlbase, judge, verify, article):
    crawlbase.add(URL, markdown=article(CLAIM, OTHER))

    verdict, _ = verify(CLAIM, [URL], judge_votes=3)

    assert judge.call_count == 3
    citation = verdict.citations[0]
    assert citation.votes == (Label.SUPPORTED,) * 3
    assert citation.to_dict()["agreed"] is True


def test_an_answer_that_cannot_be_used_ends_the_asking_and_leaves_the_citation_unchecked(
    crawlbase, judge, verify, article
):
    crawlbase.add(URL, markdown=article(CLAIM, OTHER))
    judge.rule(CLAIM, raw="{not json")

    verdict, _ = verify(CLAIM, [URL], judge_votes=3)

    assert judge.call_count == 1
    citation = verdict.citations[0]
    assert citation.reason == Reason.JUDGE_INVALID_RESPONSE
    assert not citation.checked
    assert citation.votes == (Label.NOT_FOUND,)


def test_each_vote_goes_through_the_guard():
    """G2 per vote: supported without a real quote is a not_found vote; with one vote each of
    supported, not_found and contradicted, the tie goes to contradicted."""
    answers = [
        Judgement(Label.SUPPORTED, CLAIM, 0.8),
        Judgement(Label.SUPPORTED, "a quote that is nowhere in the passages", 0.9),
        Judgement(Label.CONTRADICTED, OTHER, 0.7),
    ]

    accepted, votes = tally(answers, PASSAGES, 3)

    assert votes == (Label.SUPPORTED, Label.NOT_FOUND, Label.CONTRADICTED)
    assert (accepted.label, accepted.evidence_quote, accepted.confidence) == (
        Label.CONTRADICTED,
        OTHER,
        0.7,
    )


def test_a_vote_the_guard_rejects_can_make_the_majority():
    answers = [
        Judgement(Label.SUPPORTED, "nowhere to be found", 0.9),
        Judgement(Label.SUPPORTED, CLAIM, 0.8),
        Judgement(Label.NOT_FOUND, None, 0.6),
    ]

    accepted, votes = tally(answers, PASSAGES, 3)

    assert votes == (Label.NOT_FOUND, Label.SUPPORTED, Label.NOT_FOUND)
    # The first not_found vote is the guard's (confidence 0, its reason).
    assert (accepted.label, accepted.confidence, accepted.reason) == (
        Label.NOT_FOUND,
        0.0,
        Reason.QUOTE_NOT_IN_SOURCE,
    )


def test_identical_pairs_share_their_votes(crawlbase, judge, make_verifier, article):
    crawlbase.add(URL, markdown=article(CLAIM, OTHER))
    judge.rule(CLAIM, labels=["supported", "contradicted", "supported"], quote=CLAIM)
    requests = [ClaimRequest.of(CLAIM, [URL]), ClaimRequest.of(CLAIM, [URL])]

    async def scenario():
        async with make_verifier(judge_votes=3) as verifier:
            return await verifier.verify_many(requests)

    first, second = asyncio.run(scenario())

    assert judge.call_count == 3
    assert first == second
    assert first.citations[0].votes == (Label.SUPPORTED, Label.CONTRADICTED, Label.SUPPORTED)


def test_votes_are_asked_in_turn_never_at_once(crawlbase, judge, verify, article):
    crawlbase.add(URL, markdown=article(CLAIM, OTHER))
    judge.latency = 0.05

    verify(CLAIM, [URL], judge_votes=4, concurrency=4)

    assert judge.call_count == 4
    assert judge.max_in_flight == 1


@pytest.mark.parametrize("votes", [0, -1])
def test_judge_votes_must_be_at_least_one(votes):
    with pytest.raises(ConfigurationError, match="judge_votes must be at least 1"):
        Settings(judge_votes=votes)
