"""Benchmark of the drift check against the local emulators.

The performance world of ``benchmarks/engine`` (60 pages, 200 claims; its ``scenario``) is
split into case files and recorded once, the way the plugin records (one cassette per case
file). Then the emulator's web changes: 10 % of the pages are edited (half of them in the
paragraph a recorded verdict quotes, the number of a fact sentence removed; half in a
paragraph no verdict rests on), 3 % move (one to a new address, one to the homepage) and 3 %
die (a 404, a soft 404). The benchmark works out, from the cassettes and the page texts alone
(not through the drift code), the status every citation must get and which citations must be
judged again.

Then it runs, each against fresh emulators serving the changed web:

- the drift check (``run_drift``) over every case file;
- the same with the update mode, on a fresh copy of the recordings, followed by a second
  drift check that must find the updated recordings honest, and a check that every cassette
  without a re-checked citation kept its bytes;
- a full re-record (``--citations-record=all``, as the plugin records: one case file after
  the other), for comparison.

It prints crawls (= one fetch sequence per distinct URL), judge calls (= citations whose
evidence changed, no more), the statuses against the planted truth (all must match) and the
wall time of each run. The exit status is 1 when a check fails.

Usage (from the repository root): ``nice -n 10 python -m benchmarks.drift`` (``--help``).
Modules: ``world`` (case files, the recorder, what each recorded verdict rests on),
``planting`` (the changes and the truth), ``__main__`` (the runs, the checks, the table).
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# The package (its emulators in ``pytest_citations.sandbox`` too) from this checkout.
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
