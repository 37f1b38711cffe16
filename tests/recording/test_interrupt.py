"""Interruptions never lose a cassette (issue 8): ``pytest --citations`` is stopped by SIGINT
and by SIGKILL before any request, while a request is in flight, after one case file was
recorded while the next is running, and while a large cassette is being written, in every
record mode. Afterwards each cassette is byte for byte what it was, or the whole new
recording: never lost, truncated or empty. A run after a SIGKILL is not disturbed by what
the killed one left behind, and removes it.

Each run is a real process that gets a real signal. To keep the suite to seconds, runs are
forked from a "zygote" process that has already imported pytest and the plugin (a fresh
interpreter spends most of a second importing them); the zygote reaps each run and reports
how it ended.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import select
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
import yaml
from plugin_helpers import (
    BOILING_URL,
    LEXICAL,
    NO_CACHE,
    PARTIAL_CLAIM,
    QUIET,
    REFUNDS_CLAIM,
    REFUNDS_URL,
    RETURNS_URL,
    STEERING_VARIABLES,
    SUPPORTED_CLAIM,
    TOKENS,
    single_claim_case,
)

from pytest_citations.sandbox import CrawlbaseEmulator, JudgeEmulator
from pytest_citations.sandbox import site as example_site

pytestmark = pytest.mark.skipif(
    not hasattr(os, "fork"), reason="the interruption suite forks its runs (POSIX only)"
)

#: Forks one ``pytest.main`` run per job line on stdin; answers ``{"pid"}`` at once and
#: ``{"status"}`` (``os.waitstatus_to_exitcode``) when the run has ended.
ZYGOTE = r"""
import io, json, os, signal, sys, traceback
import pytest
import pytest_citations.plugin  # the slow imports (numpy, httpx, vcrpy), done once

# A suite started with SIGINT ignored (nohup, trap "" INT) passes that on to every process it
# starts, and Python then never installs its KeyboardInterrupt handler: the runs this zygote
# forks must be interruptible as a user's terminal run is.
signal.signal(signal.SIGINT, signal.default_int_handler)

for line in iter(sys.stdin.readline, ""):
    job = json.loads(line)
    sys.stdout.flush()
    pid = os.fork()
    if pid == 0:
        try:
            os.chdir(job["cwd"])
            os.environ.update(job["env"])
            out = os.open(job["out"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
            os.dup2(out, 1)
            os.dup2(out, 2)
            os.close(out)
            null = os.open(os.devnull, os.O_RDONLY)
            os.dup2(null, 0)
            os.close(null)
            sys.stdin = open(os.devnull, encoding="utf-8")
            for fd, name in ((1, "stdout"), (2, "stderr")):
                raw = io.FileIO(fd, "w", closefd=False)
                setattr(sys, name, io.TextIOWrapper(raw, "utf-8", line_buffering=True))
            code = pytest.main(job["args"])
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(int(code))
        except BaseException:
            traceback.print_exc()
            sys.stderr.flush()
            os._exit(99)
    print(json.dumps({"pid": pid}), flush=True)
    _, status = os.waitpid(pid, 0)
    print(json.dumps({"status": os.waitstatus_to_exitcode(status)}), flush=True)
"""

#: The case file whose previous cassette is at stake: its recording has claim 1 only, so
#: that new_episodes has something to add.
CASE_A_BEFORE = single_claim_case("a", SUPPORTED_CLAIM, BOILING_URL)
CASE_A = (
    f"id: a\ncitations:\n  1: {BOILING_URL}\n  2: {REFUNDS_URL}\n"
    f"claims:\n  - text: {SUPPORTED_CLAIM}\n    cites: [1]\n"
    f"  - text: {REFUNDS_CLAIM}\n    cites: [2]\n"
)
#: Runs after a.yaml, and has no cassette yet.
CASE_B = single_claim_case("b", PARTIAL_CLAIM, RETURNS_URL)
#: What a complete recording of each file holds: its pages, and one judge call per claim.
COMPLETE = {"a": ({BOILING_URL, REFUNDS_URL}, 2), "b": ({RETURNS_URL}, 1)}
#: A page no case cites any more, kept in the large cassette (new_episodes and all keep
#: interactions they did not replay; rewrite drops them).
PADDING_URL = "https://example.org/archive/padding"
PADDING_BYTES = 4_000_000

MODES = ("none", "once", "new_episodes", "all", "rewrite")
SIGNALS = {"SIGINT": signal.SIGINT, "SIGKILL": signal.SIGKILL}
#: Where a run is stopped; "write" uses the large previous cassette.
POINTS = ("start", "request", "between-files", "write")
_TEMPORARY = re.compile(r"^\..+\.tmp$")
TIMEOUT = 30.0


# The zygote ------------------------------------------------------------------------------
def _ignore_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)


class Zygote:
    """A process that forks pytest runs on request (see :data:`ZYGOTE`)."""

    def __init__(self, *, sigint_ignored: bool = False) -> None:
        env = {
            name: value
            for name, value in os.environ.items()
            if name not in STEERING_VARIABLES and not name.startswith("PYTEST_")
        }
        self.process = subprocess.Popen(
            [sys.executable, "-c", ZYGOTE],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env=env,
            bufsize=0,
            # As a suite started with ``trap "" INT`` or under nohup starts it.
            preexec_fn=_ignore_sigint if sigint_ignored else None,
        )
        self._buffer = b""

    def _line(self, timeout: float) -> dict[str, Any] | None:
        assert self.process.stdout is not None
        deadline = time.monotonic() + timeout
        while b"\n" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self.process.stdout], [], [], left)[0]:
                return None
            chunk = os.read(self.process.stdout.fileno(), 4096)
            if not chunk:
                raise RuntimeError("the zygote died")
            self._buffer += chunk
        line, self._buffer = self._buffer.split(b"\n", 1)
        loaded: dict[str, Any] = json.loads(line)
        return loaded

    def start(self, cwd: Path, args: list[str], env: dict[str, str], out: Path) -> int:
        """Fork a run of ``pytest ARGS`` in ``cwd``; returns its pid."""
        assert self.process.stdin is not None
        job = {"cwd": str(cwd), "args": args, "env": env, "out": str(out)}
        self.process.stdin.write(json.dumps(job).encode() + b"\n")
        answer = self._line(TIMEOUT)
        assert answer is not None, "the zygote did not fork"
        return int(answer["pid"])

    def ended(self, timeout: float = 0.0) -> int | None:
        """The exit status of the current run once it has ended (-N: killed by signal N)."""
        answer = self._line(timeout)
        return None if answer is None else int(answer["status"])

    def close(self) -> None:
        """Stop the zygote."""
        assert self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait(timeout=TIMEOUT)


@pytest.fixture(scope="module")
def zygote() -> Iterator[Zygote]:
    """One zygote per test module (and xdist worker)."""
    forks = Zygote()
    try:
        yield forks
    finally:
        forks.close()


# Projects, emulators, runs ---------------------------------------------------------------
@contextlib.contextmanager
def emulated_web() -> Iterator[tuple[CrawlbaseEmulator, JudgeEmulator]]:
    """The example site, each page slow enough that a run can be caught mid-request."""
    with (
        CrawlbaseEmulator(TOKENS["CRAWLBASE_TOKEN"], TOKENS["CRAWLBASE_JS_TOKEN"]) as crawlbase,
        JudgeEmulator(TOKENS["OPENAI_API_KEY"], TOKENS["ANTHROPIC_API_KEY"]) as judge,
    ):
        example_site.install(crawlbase, judge)
        for url, latency in ((BOILING_URL, 0.1), (REFUNDS_URL, 0.1), (RETURNS_URL, 0.25)):
            # New pages: the example site's own objects are shared with other tests.
            crawlbase.add(url, markdown=crawlbase.pages[url].markdown, latency=latency)
        yield crawlbase, judge


def environment(crawlbase: CrawlbaseEmulator, judge: JudgeEmulator) -> dict[str, str]:
    """What a run needs to reach the emulators (tokens included: recording needs them)."""
    return {
        **TOKENS,
        "CRAWLBASE_API_URL": crawlbase.url,
        "OPENAI_BASE_URL": judge.openai_base_url,
        "CITATIONS_RETRIES": "0",
    }


def arguments(mode: str) -> list[str]:
    """``pytest --citations`` as the plugin's own tests run it, in ``mode``: b.yaml's partial
    claim is work to interrupt, not a failure, so contradicted alone fails a claim."""
    return [
        "--citations",
        *QUIET,
        *LEXICAL,
        *NO_CACHE,
        "--citations-fail-on=contradicted",
        "-v",
        f"--citations-record={mode}",
        "cases/",
    ]


def project(folder: Path, cassette: bytes | None) -> Path:
    """A project with ``cases/a.yaml`` (and its previous cassette) and ``cases/b.yaml``."""
    (folder / "cases").mkdir(parents=True)
    (folder / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    (folder / "cases" / "a.yaml").write_text(CASE_A, encoding="utf-8")
    (folder / "cases" / "b.yaml").write_text(CASE_B, encoding="utf-8")
    if cassette is not None:
        (folder / "cassettes" / "cases").mkdir(parents=True)
        (folder / "cassettes" / "cases" / "a.yaml").write_bytes(cassette)
    return folder


def _load(raw: bytes) -> Any:
    return yaml.load(raw.decode("utf-8"), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))


@pytest.fixture(scope="module")
def previous(zygote: Zygote, tmp_path_factory: pytest.TempPathFactory) -> dict[str, bytes]:
    """a.yaml's previous cassette, recorded with claim 1 only: ``small``, and ``large`` with
    a page of several megabytes that no case cites any more."""
    folder = project(tmp_path_factory.mktemp("previous"), None)
    (folder / "cases" / "a.yaml").write_text(CASE_A_BEFORE, encoding="utf-8")
    (folder / "cases" / "b.yaml").unlink()
    with emulated_web() as (crawlbase, judge):
        zygote.start(folder, arguments("once"), environment(crawlbase, judge), folder / "out")
        assert zygote.ended(TIMEOUT) == 0, (folder / "out").read_text(encoding="utf-8")
    small = (folder / "cassettes" / "cases" / "a.yaml").read_bytes()
    data = _load(small)
    paragraph = "An old page that no case cites any more. " * 20 + "\n\n"
    data["interactions"].append(
        {
            "request": {
                "method": "GET",
                "uri": f"http://127.0.0.1:1/?token=<CRAWLBASE_TOKEN>&url={PADDING_URL}"
                "&format=md&store=true&md_readability=true",
                "body": "",
                "headers": {},
            },
            "response": {
                "status": {"code": 200, "message": "OK"},
                "headers": {"original_status": ["200"], "url": [PADDING_URL]},
                "body": {"string": paragraph * (PADDING_BYTES // len(paragraph))},
            },
        }
    )
    dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
    large = yaml.dump(data, Dumper=dumper, allow_unicode=True, sort_keys=False).encode()
    return {"small": small, "large": large}


# Triggers: when to send the signal --------------------------------------------------------
Trigger = Callable[[], bool]


def _printed(out: Path, text: str) -> Trigger:
    def seen() -> bool:
        with contextlib.suppress(OSError):
            return text in out.read_text(encoding="utf-8", errors="replace")
        return False

    return seen


def _signature(path: Path) -> tuple[int, int, int] | None:
    try:
        status = path.stat()
    except OSError:
        return None
    return status.st_ino, status.st_size, status.st_mtime_ns


def _writing(folder: Path) -> Trigger:
    """A cassette is being written: a temporary file beside it, or a cassette that changed
    (the way a writer that writes in place gives itself away)."""
    before = {path.name: _signature(path) for path in folder.glob("*.yaml")}

    def seen() -> bool:
        try:
            names = os.listdir(folder)
        except OSError:
            return False
        if any(_TEMPORARY.match(name) for name in names):
            return True
        return any(
            _signature(folder / name) != before.get(name) for name in names if ".yaml" in name
        )

    return seen


def trigger(point: str, folder: Path, crawlbase: CrawlbaseEmulator) -> Trigger:
    """The moment a run is stopped at ``point``."""
    out = folder / "out"
    if point == "start":
        return _printed(out, "citations: record=")  # the header: nothing sent yet
    if point == "request":
        return lambda: crawlbase.max_in_flight > 0
    if point == "between-files":
        return _printed(out, "cases/a.yaml::a::precision")  # a.yaml done, b.yaml running
    return _writing(folder / "cassettes" / "cases")


@dataclass
class Outcome:
    """How one interrupted run ended."""

    stopped: bool  # the signal reached the run before it ended by itself
    status: int
    output: str


def run_and_stop(
    zygote: Zygote,
    folder: Path,
    mode: str,
    sent: signal.Signals,
    when: Trigger,
    env: dict[str, str],
) -> Outcome:
    """Start a run, send ``sent`` as soon as ``when`` holds, and wait for the run to end."""
    out = folder / "out"
    pid = zygote.start(folder, arguments(mode), env, out)
    deadline = time.monotonic() + TIMEOUT
    status = None
    stopped = False
    while status is None and time.monotonic() < deadline:
        if when():
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, sent)
                stopped = True
            break
        status = zygote.ended(0.0005)
    if status is None:
        status = zygote.ended(TIMEOUT)
    if status is None:
        os.kill(pid, signal.SIGKILL)
        pytest.fail(f"the run did not end in {TIMEOUT:g} s after {sent.name}")
    output = out.read_text(encoding="utf-8", errors="replace")
    # 0 and 1 are the ends a run reaches by itself (the signal came too late to matter).
    return Outcome(stopped and status not in (0, 1), status, output)


# What may be left ------------------------------------------------------------------------
def crawled_and_judged(raw: bytes) -> tuple[list[str], int]:
    """The pages a cassette holds (the padding page aside) and its judge calls; fails on a
    cassette that cannot be read or does not have vcrpy's layout."""
    data = _load(raw)
    assert isinstance(data, dict), "not a cassette"
    assert data.get("version") == 1, "no version"
    urls: list[str] = []
    judged = 0
    for interaction in data["interactions"]:
        request = interaction["request"]
        assert interaction["response"]["status"]["code"] in (200, 520)
        if request["method"] == "POST":
            judged += 1
        else:
            urls += parse_qs(urlsplit(request["uri"]).query)["url"]
    return [url for url in urls if url != PADDING_URL], judged


def check_cassette(
    path: Path, before: bytes | None, name: str, mode: str, padded: bool, context: str
) -> None:
    """The cassette is what it was, or a complete recording of its file."""
    now = path.read_bytes() if path.exists() else None
    if now == before:
        return
    assert mode != "none", f"{context}: replay-only mode changed {path.name}"
    assert now is not None, f"{context}: {path.name} was lost"
    assert now, f"{context}: {path.name} is empty"
    try:
        urls, judged = crawled_and_judged(now)
    except Exception as error:  # any reading failure is the finding
        pytest.fail(f"{context}: {path.name} cannot be read ({error!r}); {len(now)} bytes")
    pages, claims = COMPLETE[name]
    assert sorted(urls) == sorted(pages), f"{context}: {path.name} is incomplete: {urls}"
    assert judged == claims, f"{context}: {path.name} has {judged} of {claims} judge calls"
    if name == "a":
        kept = padded and mode in ("new_episodes", "all")
        assert (PADDING_URL.encode() in now) == kept, f"{context}: padding kept: {not kept}"


def temporary_files(folder: Path) -> list[str]:
    """Temporary cassette files under ``folder``."""
    return [path.name for path in folder.rglob("*") if _TEMPORARY.match(path.name)]


# The suite -------------------------------------------------------------------------------
@pytest.mark.parametrize("mode", MODES)
def test_an_interrupted_run_never_loses_a_cassette(
    zygote: Zygote, previous: dict[str, bytes], tmp_path: Path, mode: str
) -> None:
    stopped_at: list[str] = []
    for point in POINTS:
        size = "large" if point == "write" else "small"
        for name, sent in SIGNALS.items():
            context = f"{mode}, {name} at {point}"
            folder = project(tmp_path / f"{point}-{name}", previous[size])
            with emulated_web() as (crawlbase, judge):
                when = trigger(point, folder, crawlbase)
                outcome = run_and_stop(
                    zygote, folder, mode, sent, when, environment(crawlbase, judge)
                )
            if outcome.stopped:
                stopped_at.append(f"{point}/{name}")
            cassettes = folder / "cassettes" / "cases"
            check_cassette(
                cassettes / "a.yaml", previous[size], "a", mode, size == "large", context
            )
            check_cassette(cassettes / "b.yaml", None, "b", mode, False, context)
            if sent is signal.SIGINT:
                assert not temporary_files(folder), f"{context}: {temporary_files(folder)}"
                assert "INTERNALERROR" not in outcome.output, f"{context}:\n{outcome.output}"
    # The suite means something only if the signals came while there was work to lose.
    expected = {f"start/{name}" for name in SIGNALS}
    if mode != "none":
        expected |= {f"request/{name}" for name in SIGNALS}
        expected |= {f"between-files/{name}" for name in SIGNALS}
    if mode in ("new_episodes", "all", "rewrite", "once"):
        expected |= {f"write/{name}" for name in SIGNALS}
    assert expected <= set(stopped_at), f"never stopped at {sorted(expected - set(stopped_at))}"


@pytest.mark.parametrize("mode", ["new_episodes", "all"])
def test_the_next_run_is_not_disturbed_by_what_a_killed_run_left(
    zygote: Zygote, previous: dict[str, bytes], tmp_path: Path, mode: str
) -> None:
    folder = project(tmp_path / "killed", previous["large"])
    cassettes = folder / "cassettes" / "cases"
    with emulated_web() as (crawlbase, judge):
        env = environment(crawlbase, judge)
        # Killed as soon as its temporary file exists: the write is cut off mid-file.
        killed = run_and_stop(
            zygote, folder, mode, signal.SIGKILL, lambda: bool(temporary_files(cassettes)), env
        )
        assert killed.stopped
        left = temporary_files(cassettes)
        assert left, "the kill came after the write"
        assert (cassettes / "a.yaml").read_bytes() == previous["large"]

        zygote.start(folder, arguments(mode), env, folder / "out")
        status = zygote.ended(TIMEOUT)

    output = (folder / "out").read_text(encoding="utf-8")
    assert status == 0, output
    assert not temporary_files(folder)
    assert ".tmp" not in output  # never collected, never mentioned
    check_cassette(cassettes / "a.yaml", b"", "a", mode, True, "the next run")


def test_runs_stop_on_sigint_even_when_the_suite_ignores_it(
    previous: dict[str, bytes], tmp_path: Path
) -> None:
    """The suite run from a script with SIGINT ignored: its forked runs still stop on SIGINT
    (before, they ran to their end and every SIGINT case of the suite failed)."""
    forks = Zygote(sigint_ignored=True)
    try:
        folder = project(tmp_path / "ignored", previous["small"])
        with emulated_web() as (crawlbase, judge):
            outcome = run_and_stop(
                forks, folder, "new_episodes", signal.SIGINT,
                trigger("request", folder, crawlbase), environment(crawlbase, judge),
            )  # fmt: skip
    finally:
        forks.close()

    assert outcome.stopped, outcome.output
    assert outcome.status == pytest.ExitCode.INTERRUPTED, outcome.output
    check_cassette(
        folder / "cassettes" / "cases" / "a.yaml", previous["small"], "a", "new_episodes",
        False, "SIGINT ignored",
    )  # fmt: skip


@pytest.mark.parametrize("mode", ["new_episodes", "all", "rewrite"])
def test_an_interrupted_run_of_one_case_file_never_loses_its_cassette(
    zygote: Zygote, previous: dict[str, bytes], tmp_path: Path, mode: str
) -> None:
    """A run of exactly one case file verifies it directly, without the scheduler that
    verifies files ahead of their items: SIGINT while its requests are in flight or while
    its cassette is written still leaves the cassette whole (what it was, or complete), no
    temporary file, and no internal error (issue 8)."""
    stopped_at: list[str] = []
    for point in ("request", "write"):
        size = "large" if point == "write" else "small"
        context = f"{mode}, one file, SIGINT at {point}"
        folder = project(tmp_path / point, previous[size])
        (folder / "cases" / "b.yaml").unlink()
        with emulated_web() as (crawlbase, judge):
            when = trigger(point, folder, crawlbase)
            outcome = run_and_stop(
                zygote, folder, mode, signal.SIGINT, when, environment(crawlbase, judge)
            )
        if outcome.stopped:
            stopped_at.append(point)
        cassette = folder / "cassettes" / "cases" / "a.yaml"
        check_cassette(cassette, previous[size], "a", mode, size == "large", context)
        assert not temporary_files(folder), f"{context}: {temporary_files(folder)}"
        assert "INTERNALERROR" not in outcome.output, f"{context}:\n{outcome.output}"
        assert "Traceback" not in outcome.output, f"{context}:\n{outcome.output}"
    assert "request" in stopped_at, "never stopped while a request was in flight"
