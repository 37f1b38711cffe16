"""Fixtures of the drift tests (issue 12): a world of pages, case files and cassettes on the
emulators of ``pytest_citations.sandbox`` (see :mod:`drift_world`)."""

from __future__ import annotations

from pathlib import Path

import pytest
from drift_world import World

from pytest_citations.sandbox import CrawlbaseEmulator, JudgeEmulator


@pytest.fixture
def world(
    crawlbase: CrawlbaseEmulator, judge: JudgeEmulator, settings: object, tmp_path: Path
) -> World:
    """The example pages served, no case file yet."""
    made = World(tmp_path, crawlbase, judge, settings())  # type: ignore[operator]
    made.serve()
    return made
