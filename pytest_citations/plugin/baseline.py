"""The run's baseline (``--citations-baseline``), read once per process: the reporter
checks it before anything runs and reads the precision it stored, the session compares each
claim with it, and the update writes it (:mod:`pytest_citations.gating.baseline`)."""

from __future__ import annotations

import pytest

from ..gating.baseline import Baseline
from .options import Options

BASELINE_KEY = pytest.StashKey[Baseline]()


def baseline_of(config: pytest.Config, options: Options) -> Baseline | None:
    """The run's baseline, read on first use; a file that cannot be read is a
    :class:`~pytest_citations.errors.CitationsError` naming it."""
    if options.baseline is None:
        return None
    if BASELINE_KEY not in config.stash:
        config.stash[BASELINE_KEY] = Baseline.load(options.baseline)
    return config.stash[BASELINE_KEY]


__all__ = ["baseline_of"]
