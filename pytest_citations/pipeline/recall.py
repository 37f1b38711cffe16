"""What a recording remembers of retrieval: the passages chosen for a claim against a page,
so that a replay sends the judge what the recording sent without running a model. The
cassettes implement :class:`Recall`; the verifier asks it before it chooses."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from ..errors import RequestRefused
from ..retrieval.selection import Selection


@dataclass(frozen=True)
class ChoiceKey:
    """A choice's identity: the claim, the cited URL, and the page's digest (a page whose
    text changed is another page)."""

    claim: str
    url: str
    page: str


class Recall(Protocol):
    """The recording retrieval's choices go to and come from, in the caller's context."""

    def recall(self, key: ChoiceKey) -> Selection | None:
        """The selection the active recording holds for ``key``; None when it holds none."""
        ...

    def keep(self, key: ChoiceKey, selection: Selection) -> None:
        """Keep a selection made now, where the active recording records."""
        ...

    def replays(self) -> bool:
        """Whether the active recording only replays (nothing chosen now is kept)."""
        ...

    def ranking(self) -> int | None:
        """The ranking that made the active recording's judge calls where it holds no choice
        of passages for them: 1 (the top passages) for a recording made before choices were
        kept, which a replay and an upgrade must choose with; None: today's."""
        ...

    def refuse(self, key: ChoiceKey, why: str) -> RequestRefused:
        """The error for a choice a replay cannot make (``why``), naming the recording and
        the command that adds what it lacks."""
        ...

    def unchosen(self, key: ChoiceKey, missing: Sequence[str]) -> RequestRefused:
        """The error for a replay that holds no choice for ``key`` where retrieval cannot
        run (``missing``: the modules it lacks), naming the commands that add the choice."""
        ...
