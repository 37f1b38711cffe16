"""The ``pytest-citations`` command: ``verify``, ``batch``, ``drift``, ``stored-page``,
``import``, ``schema`` and ``serve``, one module each, thin shells over the engine, the
drift check and the importer.

Exit codes: 0 done; 1 a claim had a failing label (``verify --fail-on``), a drift status of
``drift --fail-on``, a citation could
not be checked (unless ``--allow-unchecked``), some batch lines or import records were
skipped, or a stored page was not found; 2 usage or configuration error (every missing
variable is named at once, or a service cannot be reached); 3 a service refused a
credential or the account has no credits left.
"""

from __future__ import annotations

from .main import build_parser, main

__all__ = ["build_parser", "main"]
