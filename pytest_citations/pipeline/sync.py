"""A synchronous face for the async verifier, for pytest items, fixtures and scripts.

The verifier lives on its own event loop in a background thread, so it can be called from
any thread, including tests that already run an event loop of their own.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Coroutine, Sequence
from typing import Any, TypeVar

from ..network.usage import Usage
from ..verdicts import ClaimVerdict
from .verifier import ClaimRequest, Verifier

T = TypeVar("T")


class SyncVerifier:
    """Owns a :class:`Verifier` and a loop thread; call :meth:`close` when done."""

    def __init__(self, verifier: Verifier) -> None:
        self.verifier = verifier
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(
            target=self._loop.run_forever, name="citations-loop", daemon=True
        )
        self._thread.start()
        self._closed = False
        self._call(verifier.__aenter__())

    def _call(self, coroutine: Coroutine[Any, Any, T]) -> T:
        if self._closed:
            coroutine.close()
            raise RuntimeError("this verifier is closed")
        return asyncio.run_coroutine_threadsafe(coroutine, self._loop).result()

    @property
    def loop(self) -> asyncio.AbstractEventLoop:
        """The loop the verifier lives on (schedule work on it with ``call_soon_threadsafe``)."""
        return self._loop

    def run(self, coroutine: Coroutine[Any, Any, T]) -> T:
        """Run any coroutine on the verifier's loop and wait for its result."""
        return self._call(coroutine)

    @property
    def usage(self) -> Usage:
        """What the verifier has spent so far."""
        return self.verifier.usage

    def verify(self, claim: str, urls: Sequence[str]) -> ClaimVerdict:
        """Verify one claim against its cited URLs."""
        return self._call(self.verifier.verify(claim, urls))

    def verify_many(self, requests: Sequence[ClaimRequest]) -> list[ClaimVerdict]:
        """Verify claims concurrently; results in the order given."""
        return self._call(self.verifier.verify_many(requests))

    def stored_page(self, rid: str) -> str:
        """The stored markdown of a page by rid."""
        return self._call(self.verifier.stored_page(rid))

    def close(self) -> None:
        """Close the verifier, stop the loop and join its thread; idempotent."""
        if self._closed:
            return
        try:
            self._call(self.verifier.aclose())
        finally:
            self._closed = True
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join()
            self._loop.close()

    def __enter__(self) -> SyncVerifier:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
