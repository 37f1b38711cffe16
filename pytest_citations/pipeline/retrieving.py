"""The retrieval step of the pipeline: the passages the judge is shown for a claim against a
fetched page. A recording that holds the choice answers it (no model runs, on any machine);
otherwise retrieval's model side (:mod:`.model`, built on first need) chooses them, and a
recording that records keeps the choice."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from ..fetchers import FetchResult
from ..judges import Judgement
from ..retrieval.embedders import canonical_name
from ..retrieval.selection import Selection
from ..retrieval.validity import choice_problem
from .recall import ChoiceKey, Recall
from .voting import recorded_votes

if TYPE_CHECKING:
    from ..retrieval.embedders.base import Embedder
    from .model import RetrievalModel
    from .settings import Settings

_CHOSE = "chose the passages with"
#: What a setting given for a replay is compared with in a recorded choice: its option, the
#: recorded value, and what the recording did with it.
_PINNED: dict[str, tuple[str, Callable[[Selection], object], str]] = {
    "embedding_model": ("--citations-embedder", lambda chosen: chosen.chooser.setting, _CHOSE),
    "evidence_words": (
        "--citations-evidence-words",
        lambda chosen: chosen.chooser.evidence_words,
        _CHOSE,
    ),
    "top_k": ("--citations-top-k", lambda chosen: chosen.chooser.top_k, _CHOSE),
    "passage_words": (
        "--citations-passage-words",
        lambda chosen: chosen.chooser.passage_words,
        _CHOSE,
    ),
    "judge_votes": ("--citations-judge-votes", lambda chosen: chosen.votes, "asked the judge with"),
}


@dataclass(frozen=True)
class Chosen:
    """The passages chosen for a claim against a page (None: none to show), and whether they
    were chosen now rather than recalled from the recording."""

    key: ChoiceKey
    selection: Selection | None
    fresh: bool = False

    @property
    def votes(self) -> int:
        """How many times the judge is asked about the passages."""
        return (self.selection.votes if self.selection is not None else None) or 1


class RetrievalStep:
    """Chooses (or recalls) the passages of each claim against each page for one verifier."""

    def __init__(
        self,
        settings: Settings,
        recall: Recall | None = None,
        embedder: Embedder | None = None,
    ) -> None:
        self.settings = settings
        self._recall = recall
        self._embedder = embedder
        self._model: RetrievalModel | None = None

    def model(self) -> RetrievalModel:
        """Retrieval's model side, built the first time a choice must be made now."""
        if self._model is None:
            # Imported here, once: numpy and the embedders load only for a choice made now,
            # never for a replay that recalls every choice.
            from .model import RetrievalModel

            self._model = RetrievalModel(self.settings, self._embedder)
        return self._model

    @property
    def replaying(self) -> bool:
        """Whether the active recording only replays (claims need no vectors ahead)."""
        return self._recall is not None and self._recall.replays()

    async def choose(self, claim: str, url: str, page: FetchResult) -> Chosen:
        """The selection for ``claim`` against ``page``: recalled, or chosen now (for
        :meth:`keep`). Raises :class:`~pytest_citations.errors.RequestRefused` where a
        replay holds no choice and retrieval cannot run here, or a recorded choice
        contradicts a setting the run pinned."""
        key = ChoiceKey(claim, url, page.digest)
        recalled = self._recall.recall(key) if self._recall is not None else None
        if recalled is not None:
            assert self._recall is not None
            problem = choice_problem(page.text, recalled)
            if problem is not None:
                raise self._recall.refuse(
                    key,
                    f"its recorded choice of passages is not one "
                    f"retrieval makes from the recorded page: {problem}",
                )
            self._check_pinned(key, recalled)
            return Chosen(key, recalled)
        model = self.model()
        missing = model.retriever.missing()
        if missing and self._recall is not None and self._recall.replays():
            raise self._recall.unchosen(key, missing)
        ranking = self._recall.ranking() if self._recall is not None else None
        return Chosen(key, await model.choose(claim, page, ranking), fresh=True)

    def keep(self, chosen: Chosen) -> None:
        """Keep a choice made now where the active recording records: once the judge call
        it was made for has answered, so that a recording never holds a choice without its
        call (one the run's budget did not send, say)."""
        if chosen.fresh and chosen.selection is not None and self._recall is not None:
            self._recall.keep(chosen.key, chosen.selection)

    def _check_pinned(self, key: ChoiceKey, selection: Selection) -> None:
        """A setting the run was given explicitly must be the one the recording used:
        replaying a choice made otherwise, or fewer or more of the judge's recorded votes,
        would not be what was asked for."""
        assert self._recall is not None
        for field, (flag, recorded_value, done) in _PINNED.items():
            if field not in self.settings.pinned:
                continue
            asked = getattr(self.settings, field)
            asked = canonical_name(asked) if field == "embedding_model" else asked
            recorded = recorded_value(selection)
            if recorded is not None and asked != recorded:
                raise self._recall.refuse(
                    key,
                    (
                        f"it {done} {flag} {recorded}, and this run asks for {asked}: drop the "
                        "option to replay the recording, or record it again with the option"
                    ),
                )

    def account(self, chosen: Chosen, answers: Sequence[Judgement]) -> Chosen:
        """The choice with the number of times the judge was asked about it. A replay is the
        recording, all of it: when the answers came from a recording, they are every call it
        holds of the pair's request, as many as its retrieval entry states (when it states
        a number) and the run pinned (``--citations-judge-votes``); anything else raises
        :class:`~pytest_citations.errors.RequestRefused` naming the recording and the claim."""
        selection = chosen.selection
        assert selection is not None
        recorded = recorded_votes(answers)
        if recorded is None:  # asked live
            return replace(chosen, selection=replace(selection, votes=selection.votes or 1))
        assert self._recall is not None
        stated = None if chosen.fresh else selection.votes
        why = None
        if stated is not None and stated != recorded:
            why = (
                f"its retrieval entry says votes: {stated}, and the recording holds "
                f"{recorded} judge calls for it"
            )
        elif "judge_votes" in self.settings.pinned and self.settings.judge_votes != recorded:
            why = (
                f"it asked the judge with --citations-judge-votes {recorded}, and this run asks "
                f"for {self.settings.judge_votes}: drop the option to replay the recording, or "
                "record it again with the option"
            )
        elif len(answers) < recorded:
            why = (
                f"the recording holds {recorded} judge calls for it, and {recorded - len(answers)} "
                f"of them were left unplayed (answer {len(answers)} ended the asking)"
            )
        if why is not None:
            raise self._recall.refuse(chosen.key, why)
        return replace(chosen, selection=replace(selection, votes=recorded))

    async def warm(self, claims: Sequence[str]) -> None:
        """Embed the claims in one batch ahead of any page (none: nothing to build)."""
        if claims:
            await self.model().warm(claims)

    async def aclose(self) -> None:
        """Stop retrieval's model side, where it was built."""
        model, self._model = self._model, None
        if model is not None:
            await model.aclose()
