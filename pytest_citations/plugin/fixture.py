"""The ``citation_verifier`` fixture: verify claims inside ordinary tests, with the test's
own cassette."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from ..assertions import active_verifier, assert_not_contradicted, assert_supported, explain
from ..errors import CitationsError
from ..gating.criteria import describe_unchecked
from ..recording import CassetteSession
from ..sanitize import strip_controls
from ..verdicts import ClaimVerdict
from ..verifier import ClaimRequest
from .outcomes import unchecked_message
from .session import CitationsSession, session_of

#: Set on a test item once its call phase has a report: the test ran to its end (passed or
#: failed), so what its fixture recorded is complete and may be written.
CALL_DONE_KEY = pytest.StashKey[bool]()


@pytest.fixture
def citation_verifier(request: pytest.FixtureRequest) -> Iterator[CitationVerifier]:
    """Verify claims against URLs inside a test; traffic goes to the test's own cassette
    (``<cassettes>/<test module>/<test name>.yaml``) and replays offline by default. The
    cassette is written only when the test ran to its end."""
    try:
        session = session_of(request.config)
    except pytest.UsageError as error:
        # Recording without its token: one usage error for the run, as for case files,
        # rather than an error with a traceback in every test that uses the fixture.
        pytest.exit(str(error), returncode=pytest.ExitCode.USAGE_ERROR)
    path = session.test_cassette_path(request.path, request.node.name, request.node.nodeid)
    try:
        cassette = session.library.open(path)
    except CitationsError as error:  # a damaged cassette, a clash: one clear line
        pytest.fail(strip_controls(str(error)), pytrace=False)
    verifier = CitationVerifier(session, cassette)
    token = active_verifier.set(verifier)
    try:
        yield verifier
    finally:
        active_verifier.reset(token)
        if request.node.stash.get(CALL_DONE_KEY, False):
            cassette.close()
        else:
            cassette.abandon("the test did not run to its end")


class CitationVerifier:
    """What the ``citation_verifier`` fixture gives a test."""

    def __init__(self, session: CitationsSession, cassette: CassetteSession) -> None:
        self._session = session
        self._cassette = cassette
        self.verdicts: list[ClaimVerdict] = []

    @property
    def cassette(self) -> Path:
        """This test's cassette file."""
        return self._cassette.path

    def verify(self, claim: str, urls: Sequence[str] | str) -> ClaimVerdict:
        """Verify one claim against its cited URLs; returns the claim's verdict. Fails the
        test when a citation could not be checked (a request missing from its cassette,
        named with the command that records it; a judge or crawler error) rather than
        returning a verdict nobody checked, unless the run allows unchecked citations."""
        __tracebackhide__ = True
        listed = [urls] if isinstance(urls, str) else list(urls)
        return self._checked(self._run([ClaimRequest.of(claim, listed)]))[0]

    def _run(self, requests: Sequence[ClaimRequest]) -> list[ClaimVerdict]:
        verdicts = self._session.verify_in(self._cassette, requests)
        self.verdicts += verdicts
        return verdicts

    def _checked(self, verdicts: list[ClaimVerdict]) -> list[ClaimVerdict]:
        __tracebackhide__ = True
        if self._session.options.allow_unchecked:
            return verdicts
        for verdict in verdicts:
            if not verdict.complete:
                message = unchecked_message(verdict, describe_unchecked(verdict), explain(verdict))
                pytest.fail(strip_controls(message), pytrace=False)
        return verdicts

    def assert_supported(self, claim: str, urls: Sequence[str] | str) -> ClaimVerdict:
        """Fail unless the claim is supported; see :func:`pytest_citations.assert_supported`."""
        __tracebackhide__ = True
        return assert_supported(claim, urls, verifier=self)

    def assert_not_contradicted(self, claim: str, urls: Sequence[str] | str) -> ClaimVerdict:
        """Fail when a cited page contradicts the claim."""
        __tracebackhide__ = True
        return assert_not_contradicted(claim, urls, verifier=self)

    @staticmethod
    def explain(verdict: ClaimVerdict) -> str:
        """The readable explanation used in failure messages."""
        return explain(verdict)


def note_call_done(item: pytest.Item, call: pytest.CallInfo[Any]) -> None:
    """Remember that a test's call phase ended (an interrupted one never gets here)."""
    if call.when == "call":
        item.stash[CALL_DONE_KEY] = True
