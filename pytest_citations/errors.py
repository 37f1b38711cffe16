"""Errors that stop the work. Everything else becomes a labelled verdict."""

from __future__ import annotations


class CitationsError(Exception):
    """Base class of the errors the engine raises."""


class MissingTokenError(CitationsError):
    """A required secret is not set; the message names the variable, never a value."""

    def __init__(self, variable: str, purpose: str = "") -> None:
        self.variable = variable
        detail = f" {purpose}" if purpose else ""
        super().__init__(f"{variable} is not set.{detail}")


class AuthenticationError(CitationsError):
    """A peer refused a secret (HTTP 401/403); names the variable that holds it."""

    def __init__(self, variable: str, service: str, status: int) -> None:
        self.variable = variable
        self.status = status
        super().__init__(
            f"{service} refused the credential in {variable} (HTTP {status}). "
            f"Check the value of {variable}."
        )


class ConfigurationError(CitationsError):
    """A setting has a value the engine cannot use."""


class RequestRefused(CitationsError):
    """A transport declined to send a request (an offline replay that lacks it, say).

    The verifier turns it into a verdict with reason ``request_refused`` for the citations
    that needed the request, and keeps the message (which must hold no secret) on the claim.
    """
