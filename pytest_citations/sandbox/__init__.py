"""Real HTTP emulators of the remote services pytest-citations talks to (tests, benchmarks).

``CrawlbaseEmulator`` serves the Crawlbase Crawling + Storage API; ``JudgeEmulator`` serves the
OpenAI, Anthropic and Ollama chat endpoints. Both are context managers exposing ``.url``.
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
