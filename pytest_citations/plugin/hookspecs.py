"""Hooks that a ``conftest.py`` or plugin can implement to extend pytest-citations."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from ..pipeline.backends import Backends


@pytest.hookspec(firstresult=False)
def pytest_citations_vcr(config: pytest.Config, vcr: Any) -> None:
    """Adjust the ``vcr.VCR`` object that records and replays cassettes.

    Register extra matchers or serializers, add scrubbing (``before_record_response``),
    change ``match_on``. The built-in scrubbing of tokens and credential headers always runs.
    """


@pytest.hookspec(firstresult=False)
def pytest_citations_backends(config: pytest.Config, backends: Backends) -> None:
    """Register fetchers and judges by name: ``backends.judges["mine"] = factory``.

    A judge factory takes ``(config, requester)``, ``config`` a
    :class:`~pytest_citations.judges.JudgeConfig` (the model it asks and its base URL, read
    from the variables the factory declares), and returns an object with ``name``,
    ``model`` and ``async judge(claim, passages)``; a fetcher factory takes
    ``(config, requester, usage)``, ``config`` what its ``configure(environ)`` returns (None
    without one), and returns an object with ``async crawl(url, *, readability,
    javascript)``. Select them with ``--citations-judge NAME`` / ini
    ``citations_fetcher = NAME``.
    """
