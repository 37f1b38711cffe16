"""The judge's votes on one citation (``--citations-judge-votes N``): a judge at temperature 0
still answers one request differently from one call to the next, so it may be asked N times
and the majority label kept.

The N requests are identical. They are sent one after the other, never at once, so that a
recording holds them in call order and a replay, which answers identical requests with the
recordings in the order they were made, gives each vote the answer it had. Each answer goes
through the guard (G1-G3) as a single one does: a vote whose quote fails counts as the label
the guard gives it. The most frequent label wins; a tie goes to the stricter label
(:data:`~pytest_citations.labels.LABEL_RANK`), and the verdict's quote and confidence are
those of the first vote with that label.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Awaitable, Callable, Sequence

from ..judges import Judgement
from ..judges.guard import Guarded, guard
from ..labels import Label, strictest


async def ask(call: Callable[[], Awaitable[Judgement]], votes: int) -> tuple[Judgement, ...]:
    """The judge's answers to ``votes`` calls of ``call``, made in turn; or, when the first
    answer came from a recording, to as many calls as the recording holds of that request (a
    replay is the recording, all of it, whatever a setting or a field says). An answer that
    could not be used (a judge error, a refusal, a reply that is not a verdict) ends the
    asking: the citation is unchecked whatever the remaining votes would say, and a replay
    stops where the recording did."""
    answers: list[Judgement] = []
    wanted = votes
    while len(answers) < wanted:
        judgement = await call()
        answers.append(judgement)
        if len(answers) == 1 and judgement.replayed and judgement.recorded:
            wanted = judgement.recorded
        if judgement.reason is not None:
            break
    return tuple(answers)


def recorded_votes(answers: Sequence[Judgement]) -> int | None:
    """How many calls the recording holds of the request the answers replayed (None when
    the first was answered live)."""
    if not answers or not answers[0].replayed or not answers[0].recorded:
        return None
    return answers[0].recorded


def _guarded(judgement: Judgement, passages: Sequence[str], page: str | None) -> Guarded:
    """One vote as the guard accepts it; an unusable answer keeps its label and reason."""
    if judgement.reason is not None:
        return Guarded(judgement.label, None, 0.0, judgement.reason)
    quote, confidence = judgement.evidence_quote, judgement.confidence
    return guard(judgement.label, quote, confidence, passages, page)


def tally(
    answers: Sequence[Judgement],
    passages: Sequence[str],
    votes: int = 1,
    page: str | None = None,
) -> tuple[Guarded, tuple[Label, ...]]:
    """The verdict of the judge's ``answers`` on one citation, and the label of each vote in
    call order (empty when the run asked for one vote, so that a single verdict stays as it
    was). An answer that could not be used is the verdict (the citation is unchecked);
    otherwise the majority label wins, a tie going to the stricter one. ``page``: the page
    the passages were cut from, which a quote must stand in as one span too."""
    ballots = [_guarded(judgement, passages, page) for judgement in answers]
    labels = tuple(ballot.label for ballot in ballots)
    listed = labels if votes > 1 else ()
    for judgement, ballot in zip(answers, ballots, strict=True):
        if judgement.reason is not None:
            return ballot, listed
    counts = Counter(labels)
    most = max(counts.values())
    winner = strictest(label for label, count in counts.items() if count == most)
    return next(ballot for ballot in ballots if ballot.label is winner), listed
