"""Benchmark of the verification engine against the local emulators.

200 claims cite 60 distinct URLs (pages of about 2,000 words) served by the Crawlbase emulator;
the OpenAI-compatible judge emulator labels them. Both answer every fetch and every judge call
after ``--latency`` seconds. For each concurrency limit a fresh :class:`Verifier` (fresh
in-memory embedding cache) verifies every claim with ``verify_many``, and the benchmark prints
what each emulator saw, credits, judge calls, wall time, peak memory and the ideal wall time:

    ideal = ceil(fetch requests / N) * latency + ceil(judge calls / N) * latency
            + time to embed the same passages and claims alone (same process, model loaded)

PASS needs, at every limit: crawl requests == the count the fetch rules predict for the cited
pages (per URL); per-citation judge calls == distinct claim-URL pairs that reached the judge,
joint-support calls (004, C2) == distinct (claim, judged URL set) that need one, no identical
judge request twice; and wall <= 1.5 * ideal. The exit status is 1 on FAIL. The tracemalloc
peak comes from a separate, untimed run (tracing slows the HTTP stack about fourfold).

Usage (from the repository root): python -m benchmarks.engine [--concurrency 4 16]
       [--claims 200] [--urls 60] [--latency 0.2] [--embedder minilm|lexical] [--json PATH]
See benchmarks/README.md for every figure.

Modules: ``scenario`` (pages and claims from the seed, with the prose of ``prose``),
``expectations`` (what the fetch rules and judge calls must be, independently of the engine),
``emulators`` (the Crawlbase and judge emulators of ``pytest_citations.sandbox``, in a child
process or in threads), ``instrumentation`` (timed embedder, request timing, CPU and memory;
one run), ``report`` (figures, checks, the printed table and the JSON), ``__main__``
(arguments, runs).
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# The package (its emulators in ``pytest_citations.sandbox`` too) from this checkout.
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
