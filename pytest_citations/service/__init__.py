"""The HTTP service: ``GET /health`` and ``POST /verify`` over the engine, with its OpenAPI
description at ``/openapi.json`` and interactive docs at ``/docs``.

A thin shell built on FastAPI and served by uvicorn (the optional ``service`` extra).
"""

from __future__ import annotations

from .access import Access
from .app import create_app, missing_secrets, parse_request
from .models import BODY_TIMEOUT, MAX_BODY_BYTES, MAX_CLAIM_CHARS, MAX_URLS, Limits
from .server import HEADER_TIMEOUT, MAX_CONNECTIONS, ServerLimits, serve

__all__ = [
    "BODY_TIMEOUT",
    "HEADER_TIMEOUT",
    "MAX_BODY_BYTES",
    "MAX_CLAIM_CHARS",
    "MAX_CONNECTIONS",
    "MAX_URLS",
    "Access",
    "Limits",
    "ServerLimits",
    "create_app",
    "missing_secrets",
    "parse_request",
    "serve",
]
