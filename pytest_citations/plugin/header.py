"""The header's one line: every setting that decides the run's result, so that the line
says how to reproduce it (as pytest-randomly's seed line does)."""

from __future__ import annotations

import os

import pytest

from ..pipeline.settings import LIMITS
from .options import Options
from .scheduling import CASE_FILE_SCHEDULING


def header_line(config: pytest.Config, options: Options) -> str:
    """``citations: record=none judge=openai …`` for a run with ``--citations``."""
    judge, model = options.judge.provider, options.judge.model or "?"
    # Resolved: where recordings are read and written, whatever moved pytest's rootdir.
    cassettes = str(options.cassette_dir.resolve()) + os.sep
    line = (
        f"citations: record={options.record_mode.value} judge={judge} model={model} "
        f"cassettes={cassettes} embedder={options.embedding_model} "
        f"concurrency={options.network.concurrency} fail_on={','.join(options.fail_on)}"
    )
    if options.min_precision is not None:
        line += f" min_precision={options.min_precision:g}"
    # Given explicitly, they are pinned: a recorded choice made otherwise fails the replay.
    line += (
        f" evidence_words={options.evidence_words}" if "evidence_words" in options.pinned else ""
    )
    line += f" top_k={options.top_k}" if "top_k" in options.pinned else ""
    line += f" passage_words={options.passage_words}" if "passage_words" in options.pinned else ""
    line += f" judge_votes={options.judge_votes}" if "judge_votes" in options.pinned else ""
    line += "".join(
        f" {limit.name.replace('-', '_')}={options.limits[limit.field]:g}"
        for limit in LIMITS
        if limit.field in options.limits
    )
    line += " allow_unchecked" if options.allow_unchecked else ""
    line += f" shard={options.shard}" if options.shard is not None else ""
    if options.drift:
        line += " drift" + ("+update" if options.drift_update else "")
        line += f" drift_fail_on={','.join(options.drift_fail_on)}"
    return line + _scheduling(config)


def _scheduling(config: pytest.Config) -> str:
    """`` xdist=...`` for the header: which scheduling distributes the case files."""
    dist = config.getoption("dist", None)
    if not config.getoption("numprocesses", None) or dist in (None, "no"):
        return ""
    if dist == "load":
        return f" xdist={CASE_FILE_SCHEDULING}"
    if dist in ("loadfile", "each"):
        return f" xdist={dist}"
    return f" xdist={dist} (splits case files across workers: each verifies them again)"
