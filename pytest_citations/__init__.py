"""pytest-citations: regression tests for the citations of RAG and LLM answers.

The public API is :data:`__all__`: the verifier and its settings, the verdict types and
labels, the assertion helpers, and the protocols a new judge or fetcher implements. Every
other module is internal and may change. The engine (everything but ``plugin``, ``cli`` and
``service``) never imports pytest.
"""

from __future__ import annotations

from .assertions import assert_answer, assert_not_contradicted, assert_precision, assert_supported
from .distribution import __version__ as __version__
from .errors import AuthenticationError, CitationsError, ConfigurationError, MissingTokenError
from .fetchers import Crawler, PageResponse
from .gating.precision import Precision
from .judges import Judge, JudgeConfig, Judgement
from .labels import Label, Reason
from .network.usage import Usage
from .pipeline.settings import Settings
from .pipeline.sync import SyncVerifier
from .pipeline.verifier import ClaimRequest, Verifier
from .verdicts import CitationVerdict, ClaimVerdict

__all__ = [
    "AuthenticationError",
    "CitationVerdict",
    "CitationsError",
    "ClaimRequest",
    "ClaimVerdict",
    "ConfigurationError",
    "Crawler",
    "Judge",
    "JudgeConfig",
    "Judgement",
    "Label",
    "MissingTokenError",
    "PageResponse",
    "Precision",
    "Reason",
    "Settings",
    "SyncVerifier",
    "Usage",
    "Verifier",
    "assert_answer",
    "assert_not_contradicted",
    "assert_precision",
    "assert_supported",
]
