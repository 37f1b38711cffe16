"""The sandbox: the Crawlbase stand-in and the judge stand-in, started together on 127.0.0.1
with the sandbox's own credentials, serving the sandbox's web (:mod:`.web`).

The credentials are obviously fake (``sandbox-…``) and derived from the variable names the
package's registries declare, so that a shell holding them is told from one holding real
tokens: :func:`real_secrets` names the variables set to anything else, which the command
refuses to start beside (a recording must never mix real services with stand-ins).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from ..fetchers import FETCHERS
from ..fetchers.crawlbase import API_URL, JS_TOKEN, TOKEN
from ..judges import JUDGES
from ..judges.config import DEFAULT_PROVIDER
from . import web
from .crawlbase import CrawlbaseEmulator, CrawlRecord
from .judges import JudgeCall, JudgeEmulator

#: What every value the sandbox hands out starts with.
PREFIX = "sandbox-"


def sandbox_value(variable: str) -> str:
    """The sandbox's own value of a secret variable (``CRAWLBASE_TOKEN`` gives
    ``sandbox-crawlbase-token``): only the stand-ins accept it."""
    return PREFIX + variable.lower().replace("_", "-")


def secret_variables() -> tuple[str, ...]:
    """Every token and key variable a registered fetcher or judge sends."""
    found: dict[str, None] = {}
    backends: list[object] = [*FETCHERS.values(), *JUDGES.values()]
    for backend in backends:
        found.update(dict.fromkeys(getattr(backend, "secret_variables", ())))
    return tuple(found)


def real_secrets(environ: Mapping[str, str]) -> list[str]:
    """The secret variables ``environ`` sets to a value that is not the sandbox's own."""
    return [
        name
        for name in secret_variables()
        if environ.get(name, "").strip() and environ[name].strip() != sandbox_value(name)
    ]


class PortUnavailable(Exception):
    """A stand-in could not listen on its port (another program holds it, say)."""

    def __init__(self, stand_in: str, port: int, reason: str) -> None:
        super().__init__(f"the {stand_in} stand-in cannot listen on 127.0.0.1:{port}: {reason}")
        #: ``crawlbase`` or ``judge``.
        self.stand_in = stand_in
        self.port = port


@dataclass
class Sandbox:
    """Both stand-ins, running; what they answered so far is read with :meth:`new_requests`."""

    crawlbase: CrawlbaseEmulator
    judge: JudgeEmulator
    _seen: tuple[int, int] = field(default=(0, 0))

    @classmethod
    def start(cls, crawlbase_port: int = 0, judge_port: int = 0) -> Sandbox:
        """Start both on 127.0.0.1 (a port of 0: a free one). A port that cannot be bound
        raises :class:`PortUnavailable`, and nothing is left running."""
        crawlbase = CrawlbaseEmulator(token=sandbox_value(TOKEN), js_token=sandbox_value(JS_TOKEN))
        keys = {
            name: sandbox_value(variable)
            for name, judge in JUDGES.items()
            if (variable := getattr(judge, "key_variable", None))
        }
        judge = JudgeEmulator(keys=keys)
        web.install(crawlbase, judge)
        try:
            crawlbase.start(crawlbase_port)
        except OSError as error:
            raise PortUnavailable(
                "crawlbase", crawlbase_port, error.strerror or str(error)
            ) from error
        try:
            judge.start(judge_port)
        except OSError as error:
            crawlbase.stop()
            raise PortUnavailable("judge", judge_port, error.strerror or str(error)) from error
        return cls(crawlbase, judge)

    def stop(self) -> None:
        """Stop both."""
        self.crawlbase.stop()
        self.judge.stop()

    def environment(self) -> dict[str, str]:
        """The variables that point a run at the stand-ins, in the order to export them:
        Crawlbase's URL and tokens, then the default judge's base URL and key."""
        judge = JUDGES[DEFAULT_PROVIDER]
        base_url = str(getattr(judge, "base_url_variable", ""))
        key = str(getattr(judge, "key_variable", ""))
        return {
            API_URL: self.crawlbase.url,
            TOKEN: sandbox_value(TOKEN),
            JS_TOKEN: sandbox_value(JS_TOKEN),
            base_url: self.judge.base_url(DEFAULT_PROVIDER),
            key: sandbox_value(key),
        }

    def new_requests(self) -> tuple[list[CrawlRecord], list[JudgeCall]]:
        """The crawls and judge calls answered since the last call."""
        crawls, calls = self.crawlbase.requests, self.judge.calls
        seen_crawls, seen_calls = self._seen
        self._seen = (len(crawls), len(calls))
        return crawls[seen_crawls:], calls[seen_calls:]
