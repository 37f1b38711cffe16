"""``python -m pytest_citations.cli``: the same as the ``pytest-citations`` command."""

from __future__ import annotations

from .main import main

raise SystemExit(main())
