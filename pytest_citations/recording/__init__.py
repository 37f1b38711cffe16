"""Recording: every Crawlbase and judge request recorded in vcrpy cassettes, replayed
offline. The only package that touches vcrpy.

Rather than patching httpx globally, it plugs an httpx transport into the verifier's client
(:mod:`.transport`) and drives vcrpy's ``Cassette`` through its public methods
(:mod:`.library`), so that:

- the cassette in use follows the asyncio context (a case file's claims run concurrently
  inside its own cassette);
- every secret is scrubbed before anything is matched or written: the ``token`` query
  parameter becomes a placeholder naming its variable, credential headers are dropped,
  the token inside ``storage_url`` and any literal secret value are replaced;
- matching ignores scheme, host and port (recordings made against local emulators or
  through a proxy replay anywhere) and treats "JavaScript token" and "normal token with
  ``javascript=true``" as the same attempt, so a replay needs no token at all;
- judge requests match on their body, so a changed prompt never replays a stale verdict;
- traffic shared between case files (one fetch per URL per run) is copied into every
  cassette that needed it, so each cassette replays on its own;
- a request missing in replay fails only the citations that needed it, with a message
  naming the cassette and the command that records it, never the raw URL;
- a cassette that can only replay (mode ``none``, or ``once`` with an existing file)
  answers only from itself, never from work another file did earlier in the run.

Cassettes never lose data:

- a cassette is written only when the run of its case file (or test) completed, into a
  temporary file beside it that is renamed over it (an interruption leaves the old file);
- failures (401/402/403, 429, 5xx, timeouts, connection errors) are never recorded, and a
  run that met one for good leaves every cassette that depended on it as it was, saying so
  in :meth:`CassetteLibrary.notes`;
- a file that cannot be read is one clear error, never an empty cassette to record over;
- the file format is this package's own (:mod:`.files`: vcrpy's layout, readable YAML):
  a ``pytest_citations_vcr`` hook's serializer or persister is not used, its
  ``before_save_interaction`` and ``filter_sensitive_data`` are.

Cassettes can be signed (off by default, :mod:`.signing`): with ``CITATIONS_SIGNING_KEY``
every cassette written carries a signature over its content (:mod:`.sealing`), and with
trusted keys a cassette none of them signed as it is cannot be read (:mod:`.trust`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..atomic import sweep_temporary_files
from ..lazy import lazy_exports
from .client import recorded_client
from .files import CassetteClash, UnreadableCassette, parse_cassette, write_cassette
from .library import CassetteLibrary
from .scrub import VcrConfig, build_vcr, keep_builtin_scrubbing
from .session import CassetteSession, RecordMode
from .transport import CassetteTransport

if TYPE_CHECKING:
    from .plan import plan_recording

#: Imported on first use: only a recording run plans what it is about to record.
__getattr__ = lazy_exports(__name__, {"plan_recording": "plan"})

__all__ = [
    "CassetteClash",
    "CassetteLibrary",
    "CassetteSession",
    "CassetteTransport",
    "RecordMode",
    "UnreadableCassette",
    "VcrConfig",
    "build_vcr",
    "keep_builtin_scrubbing",
    "parse_cassette",
    "plan_recording",
    "recorded_client",
    "sweep_temporary_files",
    "write_cassette",
]
