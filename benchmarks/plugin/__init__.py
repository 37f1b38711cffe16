"""Benchmark of ``pytest --citations`` itself against the local emulators.

The world of ``benchmarks.engine`` (200 claims citing 60 pages, every fetch and judge answer
after ``--latency`` seconds) is written as ``--files`` case files; pytest runs them in this
process with the model already loaded, first live (recording fresh cassettes), then as a
cold replay (the cassettes just written, no embedding cache, the emulators stopped).

    ideal live = embedding alone + one round of network per phase
    goal: live wall <= 1.2 x ideal at every limit; cold replay <= embedding alone + 8 s

Usage (from the repository root): python -m benchmarks.plugin [--concurrency 4 16]
       [--claims 200] [--urls 60] [--files 20] [--latency 0.2] [--embedder minilm|lexical]
       [--repeat 3] [--json PATH]; python -m benchmarks.plugin.timeline [--concurrency 16]
       times every model call of one live run.
"""

from __future__ import annotations

# The scenario, emulators and embedding measurements are the engine benchmark's.
from .. import engine as _engine  # noqa: F401  (puts this checkout on sys.path)
