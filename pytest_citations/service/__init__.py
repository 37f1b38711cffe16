"""The HTTP service: ``GET /health`` and ``POST /verify`` over the engine, with its OpenAPI
description at ``/openapi.json`` and interactive docs at ``/docs``.

A thin shell built on FastAPI and served by uvicorn (the optional ``service`` extra:
``pip install 'pytest-citations[service]'``).
"""

from __future__ import annotations

from .app import create_app, missing_secrets, parse_request, serve
from .models import MAX_BODY_BYTES, MAX_CLAIM_CHARS, MAX_URLS, Limits

__all__ = [
    "MAX_BODY_BYTES",
    "MAX_CLAIM_CHARS",
    "MAX_URLS",
    "Limits",
    "create_app",
    "missing_secrets",
    "parse_request",
    "serve",
]
