"""Errors that stop the work. Everything else becomes a labelled verdict."""

from __future__ import annotations

from collections.abc import Sequence


class CitationsError(Exception):
    """Base class of the errors the engine raises."""


class MissingTokenError(CitationsError):
    """Required secrets are not set; the message names every variable, never a value."""

    def __init__(self, variables: str | Sequence[str], purpose: str = "") -> None:
        self.variables = [variables] if isinstance(variables, str) else list(variables)
        self.variable = self.variables[0]
        verb = "is" if len(self.variables) == 1 else "are"
        detail = f" {purpose}" if purpose else ""
        super().__init__(f"{' and '.join(self.variables)} {verb} not set.{detail}")


class AccountError(CitationsError):
    """A peer refused the account behind a secret: nothing more can be checked this run."""

    variable: str


class AuthenticationError(AccountError):
    """A peer refused a secret (HTTP 401/403); names the variable that holds it."""

    def __init__(self, variable: str, service: str, status: int) -> None:
        self.variable = variable
        self.status = status
        super().__init__(
            f"{service} refused the credential in {variable} (HTTP {status}). "
            f"Check the value of {variable}."
        )


class CreditsExhaustedError(AccountError):
    """Crawlbase answered HTTP 402: the account behind a token has no credits left."""

    def __init__(self, variable: str) -> None:
        self.variable = variable
        self.status = 402
        super().__init__(
            f"Crawlbase answered HTTP 402: the account of {variable} is out of credits. "
            "Add credits (or use another account's token) and run again; nothing was "
            "recorded for the requests that failed."
        )


class SignatureRefused(Exception):
    """A cassette whose signature a replay with trusted keys does not accept: ``problem``
    says why, as a clause about the file (``it is not signed``). Here, not beside the keys
    (:mod:`pytest_citations.recording.signing`), so that what catches it never loads them."""

    def __init__(self, problem: str) -> None:
        self.problem = problem
        super().__init__(problem)


class ConfigurationError(CitationsError):
    """A setting has a value the engine cannot use."""


class RequestRefused(CitationsError):
    """A transport declined to send a request (an offline replay that lacks it, say).

    The verifier turns it into a verdict with reason ``request_refused`` for the citations
    that needed the request, and keeps the message (which must hold no secret) on the claim.
    """


class OverBudget(RequestRefused):
    """The run's budget did not cover a request, which was therefore not sent (see
    :mod:`pytest_citations.network.budget`): nothing was sent, and the citations that needed
    it are unchecked with reason ``over_budget``. Like a request missing from an offline
    replay, never counted as a label: a later run with budget left records it."""
