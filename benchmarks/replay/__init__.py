"""What a replay costs: ``pytest --citations`` replaying cassettes with their recorded
retrieval choices (no model), beside the legacy replay of the same cassettes with the
``retrieval:`` section cut out (the model loads and chooses the passages again).

On the plugin benchmark's world (200 claims citing 60 pages, 20 case files), recorded once
against the local emulators, and on the shipped examples as shipped, it prints cold replays
(fresh process, empty cache folder) and warm ones (the same folder again), peak RSS and
whether a model module was imported; then per-claim time and peak RSS at 1x, 3x and 10x the
world (copies from other seeds: nothing shared), and the core install's time and size in a
fresh venv. Each figure stands beside its target with "meets" or "misses".

Usage (from the repository root): python -m benchmarks.replay [--scale 1,3,10] [--repeat 3]
       [--skip-legacy-scale] [--skip-install] [--workdir DIR] [--json PATH] [--quick]
See benchmarks/README.md for every figure and how it is taken.
"""

from __future__ import annotations

# The scenario and emulators are the engine benchmark's.
from .. import engine as _engine  # noqa: F401  (puts this checkout on sys.path)
