"""The Crawlbase and judge emulators of ``pytest_citations.sandbox`` for one run, in a child
process (default: their Python work and memory stay out of the measured process, as remote
services' do) or in threads of this process, and the engine settings that point at them.
"""

from __future__ import annotations

import json
import multiprocessing
from collections import Counter
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from typing import Any

from pytest_citations import Settings
from pytest_citations.sandbox import CrawlbaseEmulator, FakePage, JudgeEmulator

CRAWL_TOKEN = "normal-token"  # the emulator's defaults
JS_TOKEN = "js-token"
OPENAI_KEY = "sk-test-openai"


def _schema_name(body: dict[str, Any]) -> str:
    response_format = body.get("response_format") or {}
    return str((response_format.get("json_schema") or {}).get("name", ""))


def _emulator_stats(cb: CrawlbaseEmulator, judge: JudgeEmulator) -> dict[str, Any]:
    """What the emulators received: requests, credits, judge calls by kind, concurrency."""
    calls = judge.calls
    bodies = Counter(json.dumps(call.body, sort_keys=True) for call in calls)
    return {
        "crawl": cb.crawl_count,
        "storage": cb.storage_count,
        "judge": len(calls),
        # Joint-support checks (004, C2) use their own schema; the rest are per citation.
        "judge_joint": sum(1 for call in calls if _schema_name(call.body) == "joint_verdict"),
        "judge_duplicates": sum(count - 1 for count in bodies.values()),
        "credits": cb.credits,
        "per_url": dict(Counter(record.target_url for record in cb.requests)),
        "crawl_max_in_flight": cb.max_in_flight,
        "judge_max_in_flight": judge.max_in_flight,
        "judge_tokens": judge.tokens["total"],
    }


def _serve_emulators(conn: Connection, pages: dict[str, FakePage], latency: float) -> None:
    """Child process: serve both emulators until told to stop; answer "stats" requests."""
    with (
        CrawlbaseEmulator(CRAWL_TOKEN, JS_TOKEN, latency=latency, default_page=pages.get) as cb,
        JudgeEmulator(OPENAI_KEY, latency=latency) as judge,
    ):
        conn.send((cb.url, judge.openai_base_url))
        while True:
            command = conn.recv()
            if command == "stats":
                conn.send(_emulator_stats(cb, judge))
            else:
                break


class Emulators:
    """Fresh emulators for one run. ``mode="process"`` keeps their Python work (HTTP parsing,
    the judge oracle) and their memory out of the measured process, as remote services are."""

    _conn: Connection  # process mode: the pipe to the child
    _process: BaseProcess
    _cb: CrawlbaseEmulator  # thread mode
    _judge: JudgeEmulator

    def __init__(self, pages: dict[str, FakePage], latency: float, mode: str) -> None:
        self.pages, self.latency, self.mode = pages, latency, mode
        self.crawl_url = self.openai_base_url = ""

    def __enter__(self) -> Emulators:
        if self.mode == "process":
            context = multiprocessing.get_context("spawn")
            self._conn, child = context.Pipe()
            self._process = context.Process(
                target=_serve_emulators, args=(child, self.pages, self.latency), daemon=True
            )
            self._process.start()
            child.close()
            self.crawl_url, self.openai_base_url = self._conn.recv()
        else:
            self._cb = CrawlbaseEmulator(
                CRAWL_TOKEN, JS_TOKEN, latency=self.latency, default_page=self.pages.get
            ).start()
            self._judge = JudgeEmulator(OPENAI_KEY, latency=self.latency).start()
            self.crawl_url, self.openai_base_url = self._cb.url, self._judge.openai_base_url
        return self

    def stats(self) -> dict[str, Any]:
        if self.mode == "process":
            self._conn.send("stats")
            stats: dict[str, Any] = self._conn.recv()
            return stats
        return _emulator_stats(self._cb, self._judge)

    def __exit__(self, *exc: object) -> None:
        if self.mode == "process":
            self._conn.send("stop")
            self._process.join(timeout=10)
            self._conn.close()
        else:
            self._cb.stop()
            self._judge.stop()


def settings_for(emulators: Emulators, concurrency: int, embedding_model: str) -> Settings:
    """The engine's settings for one run: the emulators' tokens and addresses, the OpenAI
    judge, ``concurrency``, and no disk cache for embeddings."""
    environment = {
        "CRAWLBASE_TOKEN": CRAWL_TOKEN,
        "CRAWLBASE_JS_TOKEN": JS_TOKEN,
        "OPENAI_API_KEY": OPENAI_KEY,
        "CRAWLBASE_API_URL": emulators.crawl_url,
        "OPENAI_BASE_URL": emulators.openai_base_url,
    }
    return Settings.from_env(
        environment,
        judge_provider="openai",
        concurrency=concurrency,
        embedding_model=embedding_model,
        embedding_cache_dir=None,
    )
