"""What a replay with trusted keys makes of a cassette whose signature it does not accept
(:mod:`.signing`): one error naming the file, why, and the three ways out, raised for every
claim of the file as a damaged file's is; never a label."""

from __future__ import annotations

from ..errors import CitationsError
from ..pipeline.settings import SIGNING_KEY_VARIABLE
from .files import UnreadableCassette


class UntrustedCassette(UnreadableCassette):
    """A cassette refused because of its signature (``problem``: not signed, edited after
    it was recorded, signed by a key that is not trusted)."""

    def __init__(self, shown: str, problem: str, record_command: str) -> None:
        self.shown = shown
        self.problem = problem
        CitationsError.__init__(
            self,
            f"cassette {shown} is refused: {problem}. A replay with trusted keys accepts only "
            "cassettes signed by one of them. Restore it from version control; if the change "
            f"was reviewed, sign it ({SIGNING_KEY_VARIABLE} set) with: pytest-citations "
            f"cassettes sign {shown}; or delete it and record it again with "
            f"{SIGNING_KEY_VARIABLE} set: {record_command}",
        )
