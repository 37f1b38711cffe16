"""Fixtures of the service tests: the emulators once per module, the service with every
secret set and the default limits, and the emulators' counters reset per test."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
from ops_support import Web, emulators
from running import Service, serving


@pytest.fixture(scope="module")
def web(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Web]:
    """Both emulators serving the example site, shared by the tests of one module. The
    ``serve`` processes get this run's PYTHONPATH, so that they run the code under test
    rather than another installed copy."""
    with emulators(tmp_path_factory.mktemp("service")) as started:
        if os.environ.get("PYTHONPATH"):
            started.env["PYTHONPATH"] = os.environ["PYTHONPATH"]
        yield started


@pytest.fixture(scope="module")
def service(web: Web) -> Iterator[Service]:
    """The service with every secret set and the default limits."""
    with serving(web.env) as running:
        yield running


@pytest.fixture
def counters(web: Web) -> Web:
    """The shared emulators with their counters reset."""
    web.crawlbase.reset_counters()
    web.judge.reset_counters()
    return web
