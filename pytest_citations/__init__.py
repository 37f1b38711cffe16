"""pytest-citations: regression tests for the citations of RAG and LLM answers.

The engine (this package minus :mod:`pytest_citations.plugin`) never imports pytest.
"""

from __future__ import annotations

from .aggregate import Precision, aggregate
from .assertions import assert_not_contradicted, assert_precision, assert_supported, explain
from .errors import AuthenticationError, CitationsError, ConfigurationError, MissingTokenError
from .labels import Label, Reason
from .settings import Settings
from .sync import SyncVerifier
from .verdicts import CitationVerdict, ClaimVerdict, Usage
from .verifier import ClaimRequest, Verifier

__all__ = [
    "AuthenticationError",
    "CitationVerdict",
    "CitationsError",
    "ClaimRequest",
    "ClaimVerdict",
    "ConfigurationError",
    "Label",
    "MissingTokenError",
    "Precision",
    "Reason",
    "Settings",
    "SyncVerifier",
    "Usage",
    "Verifier",
    "aggregate",
    "assert_not_contradicted",
    "assert_precision",
    "assert_supported",
    "explain",
]
