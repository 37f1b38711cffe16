"""The ``citation_verifier`` fixture: verify claims inside ordinary tests, with the test's
own cassette."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

# The package, not its names: the importer loads when a test checks an answer (PEP 562).
from .. import importing
from ..assertions import (
    active_verifier,
    assert_not_contradicted,
    assert_supported,
    explain,
    explain_unchecked,
)
from ..errors import CitationsError
from ..gating.criteria import describe_unchecked
from ..gating.messages import unchecked_message
from ..labels import Label
from ..pipeline.verifier import ClaimRequest
from ..recording import CassetteSession
from ..sanitize import strip_controls
from ..verdicts import ClaimVerdict
from .session import CitationsSession, session_of

#: Set on a test item once its call phase has a report: the test ran to its end (passed or
#: failed), so what its fixture recorded is complete and may be written.
CALL_DONE_KEY = pytest.StashKey[bool]()


@pytest.fixture
def citation_verifier(request: pytest.FixtureRequest) -> Iterator[CitationVerifier]:
    """Verify claims against URLs inside a test; traffic goes to the test's own cassette
    (``<cassettes>/<test dir>/<module>/<Class>.<test>.yaml``) and replays offline by default.
    The cassette is written only when the test ran to its end."""
    try:
        session = session_of(request.config)
    except pytest.UsageError as error:
        # Recording without its token: one usage error for the run, as for case files,
        # rather than an error with a traceback in every test that uses the fixture.
        pytest.exit(str(error), returncode=pytest.ExitCode.USAGE_ERROR)
    item = request.node
    assert isinstance(item, pytest.Item)  # a function-scoped fixture's node is its test
    path = session.test_cassette_path(item, opening=True)
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

    def check_answer(self, response: Any, format: str = "auto") -> list[ClaimVerdict]:
        """Verify every claim of one answer object, in this test's cassette: an OpenAI
        Responses or Chat Completions response, an Anthropic message, a Perplexity answer, a
        LangChain or LlamaIndex result, or the generic ``answer`` with ``citations`` (a dict,
        or an SDK object with ``model_dump()``); ``format`` names the shape, ``auto`` detects
        it. The answer is split into claims as ``pytest-citations import`` splits it; returns
        their verdicts in the answer's order. A citation that could not be checked fails the
        test, as in :meth:`verify`; so does an answer of no shape it reads."""
        __tracebackhide__ = True
        try:
            requests = importing.claim_requests(response, format)
        except importing.AnswerFormatError as error:
            pytest.fail(
                strip_controls(f"check_answer cannot read the answer: {error}"), pytrace=False
            )
        return self._checked(self._run(requests))

    def _run(self, requests: Sequence[ClaimRequest]) -> list[ClaimVerdict]:
        verdicts = self._session.verify_in(self._cassette, requests)
        self.verdicts += verdicts
        return verdicts

    def _checked(self, verdicts: list[ClaimVerdict]) -> list[ClaimVerdict]:
        __tracebackhide__ = True
        allowed = self._session.options.allow_unchecked
        for verdict in verdicts:
            # A request missing from the cassette is never a label, whatever the run allows.
            if not verdict.complete and (not allowed or verdict.never_a_label):
                said = explain_unchecked(verdict)
                message = unchecked_message(verdict, describe_unchecked(verdict), said)
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


#: Comparisons whose failure :func:`label_comparison` explains.
_COMPARISONS = ("==", "!=", "is", "is not", "in", "not in")


def label_comparison(op: str, left: object, right: object) -> list[str] | None:
    """The explanation of a failed comparison with a label (``assert verdict.label ==
    "supported"``): the labels as words, then the verdict they belong to, as
    ``assert_supported`` shows it. The verdict is the test's last one with that label, from
    the ``citation_verifier`` of the running test; without one, only the first line."""
    label = left if isinstance(left, Label) else right if isinstance(right, Label) else None
    if label is None or op not in _COMPARISONS:
        return None

    def shown(value: object) -> str:
        return repr(value.value) if isinstance(value, Label) else repr(value)

    lines = [f"{shown(left)} {op} {shown(right)}"]
    verifier = active_verifier.get()
    verdicts: list[ClaimVerdict] = list(getattr(verifier, "verdicts", ()))
    # The claim's own label first; else a claim one of whose citations has it.
    matching = [v for v in verdicts if v.label is label] or [
        v for v in verdicts if any(c.label is label for c in v.citations)
    ]
    if matching:
        if len(matching) > 1:
            lines.append(f"the last of {len(matching)} verdicts of this test with that label:")
        lines += explain(matching[-1]).splitlines()
    return [strip_controls(line) for line in lines]
