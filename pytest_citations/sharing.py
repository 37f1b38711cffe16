"""Which piece of work an HTTP request belongs to.

The verifier shares one fetch per URL and one judge call per identical request across the
whole run. A transport that records traffic (the plugin's cassettes) needs to know which
requests make up a shared piece of work, and who reused it, to copy those requests into
every recording that depends on them. This module carries that knowledge, and nothing else.
"""

from __future__ import annotations

from collections.abc import Hashable
from contextvars import ContextVar
from typing import Protocol

#: The key of the work (``("fetch", url)``, ``("judge", …)``) the current task performs.
current_work: ContextVar[Hashable | None] = ContextVar("citations_current_work", default=None)


class WorkObserver(Protocol):
    """Told, in the caller's context, each time a piece of work is needed (new or reused)."""

    def used(self, key: Hashable) -> None:
        """``key`` was needed by the code running in the current context."""
        ...

    def scope(self) -> Hashable | None:
        """Who may share work done in the current context: None for the whole run, or a key
        that keeps it to one scope (a replay-only cassette answers only from itself)."""
        ...
