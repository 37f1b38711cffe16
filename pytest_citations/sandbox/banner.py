"""What the sandbox prints: how to point a run at it, what its pages show, what its judge is;
then one line per request it answers, and a last line when it stops. Lines only: the command
prints them."""

from __future__ import annotations

import textwrap

from .crawlbase import CrawlRecord
from .judges import JudgeCall
from .judges.oracle import IN_WORDS
from .stand_ins import Sandbox
from .web import SHOWN

WIDTH = 88


def _paragraph(text: str) -> list[str]:
    return textwrap.wrap(text, WIDTH, break_on_hyphens=False)


def banner(sandbox: Sandbox) -> list[str]:
    """Everything the sandbox says once it listens."""
    width = max(len(shown.url) for shown in SHOWN)
    return [
        *_paragraph(
            "pytest-citations sandbox: stand-ins of the Crawlbase API and of an "
            "OpenAI-compatible judge, on 127.0.0.1 only. No account, and nothing leaves "
            "this machine."
        ),
        "",
        *_paragraph(
            "Export these in the shell that runs pytest (the tokens are the sandbox's own; "
            "only its stand-ins accept them):"
        ),
        "",
        *(f"export {name}={value}" for name, value in sandbox.environment().items()),
        "",
        "Pages to cite, and the fetch rule each shows (any other URL answers 404):",
        *(f"  {shown.url:<{width}}  {shown.shows}" for shown in SHOWN),
        "",
        *_paragraph(
            f"The judge is a deterministic stand-in, never a real judgement: {IN_WORDS}. "
            "What you record against the sandbox shows how pytest-citations works, not what "
            "a model would say about a page."
        ),
        "",
        "Serving until Ctrl-C; each request it answers is printed below.",
    ]


def crawl_line(record: CrawlRecord) -> str:
    """One crawl the Crawlbase stand-in answered."""
    how = " (JavaScript)" if record.javascript else ""
    refused = "" if record.token_kind != "invalid" else ": refused, not a sandbox token"
    return f"crawl  {record.target_url}{how}{refused}"


def judge_line(call: JudgeCall) -> str:
    """One call the judge stand-in answered."""
    if call.status == 401:
        return "judge  refused, not a sandbox key"
    return f"judge  {call.label or f'HTTP {call.status}'}: {call.claim}"


def request_lines(sandbox: Sandbox) -> list[str]:
    """A line for each request the stand-ins answered since the last call."""
    crawls, calls = sandbox.new_requests()
    return [*map(crawl_line, crawls), *map(judge_line, calls)]


def stopped(sandbox: Sandbox) -> str:
    """The last line: what the stand-ins answered while they ran."""
    crawls, calls = sandbox.crawlbase.crawl_count, sandbox.judge.call_count
    return (
        f"Stopped after {crawls} crawl{'s' * (crawls != 1)} and "
        f"{calls} judge call{'s' * (calls != 1)}."
    )
