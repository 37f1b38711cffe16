"""Stand-ins of the remote services pytest-citations talks to: real HTTP servers on
127.0.0.1 that ``pytest-citations sandbox`` serves (to try recording without an account)
and the project's tests and benchmarks start.

``CrawlbaseEmulator`` serves the Crawlbase Crawling + Storage API; ``JudgeEmulator`` serves the
OpenAI, Anthropic and Ollama chat endpoints, with a deterministic heuristic in place of a
model. Both are context managers exposing ``.url``. :mod:`.site` and :mod:`.calibration_site`
are the pages of the shipped examples, :mod:`.web` the sandbox's, :mod:`.stand_ins` both
stand-ins started together. Nothing of the engine imports this package; a replay never loads
it.
"""

from __future__ import annotations

from .crawlbase import NOT_FOUND_MARKDOWN, CrawlbaseEmulator, CrawlRecord, FakePage, rid_for
from .judges import (
    AUTO,
    JudgeCall,
    JudgeEmulator,
    JudgeRule,
    oracle_verdict,
    parse_user_message,
)

__all__ = [
    "AUTO",
    "NOT_FOUND_MARKDOWN",
    "CrawlRecord",
    "CrawlbaseEmulator",
    "FakePage",
    "JudgeCall",
    "JudgeEmulator",
    "JudgeRule",
    "oracle_verdict",
    "parse_user_message",
    "rid_for",
]
