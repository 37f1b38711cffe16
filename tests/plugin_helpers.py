"""Shared helpers of the plugin's end-to-end tests (under ``tests/plugin``, ``tests/cases``, …).

Every test drives pytest as a user does, through ``pytester``, with the plugin loaded from
its entry point. Remote services are the real HTTP emulators of ``pytest_citations.sandbox``
on 127.0.0.1, reached through the documented environment variables only; nothing of the
plugin is monkeypatched.

Layers:

- :data:`TOKENS` and the example pages of :mod:`pytest_citations.sandbox.site` (re-exported
  as URLs);
- :class:`Web`: both emulators, started with :meth:`Citations.web`, which points the
  environment at them and, on leaving, stops them and removes every token, so that what
  follows is provably offline and tokenless;
- the ``citations`` fixture (:class:`Citations`): a ``pytester`` with a clean environment
  and helpers to write case files and run ``pytest --citations`` with the lexical embedder.

The ``citations`` fixture itself is in ``tests/conftest.py``.
"""

from __future__ import annotations

import contextlib
import json
import re
import textwrap
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

# Imported here, in the outer process, on purpose: pytester's in-process runs drop every
# module they import when they end, and numpy (which the plugin imports) cannot be imported
# twice in one process. Imported once out here, the plugin is shared by every inner run.
import pytest_citations.plugin  # noqa: F401
from pytest_citations.pipeline.settings import environment_variables
from pytest_citations.sandbox import CrawlbaseEmulator, JudgeEmulator
from pytest_citations.sandbox import site as example_site

#: Credentials the emulators accept in these tests. Distinctive, so a leak is easy to grep.
CRAWLBASE_TOKEN = "plugin-cb-normal-6d1f0e"
CRAWLBASE_JS_TOKEN = "plugin-cb-js-9a4c2b"
OPENAI_API_KEY = "sk-plugin-openai-3e7b51"
ANTHROPIC_API_KEY = "sk-ant-plugin-80c4d2"
TOKENS = {
    "CRAWLBASE_TOKEN": CRAWLBASE_TOKEN,
    "CRAWLBASE_JS_TOKEN": CRAWLBASE_JS_TOKEN,
    "OPENAI_API_KEY": OPENAI_API_KEY,
    "ANTHROPIC_API_KEY": ANTHROPIC_API_KEY,
}

#: Every environment variable that steers the plugin or the engine: cleared for each test so
#: that the developer's shell never leaks into a result. The package's own and those of
#: every registered judge and fetcher come from the registry (tests/test_registry.py).
STEERING_VARIABLES = (
    *environment_variables(),
    "PYTEST_ADDOPTS",
    "PYTEST_XDIST_AUTO_NUM_WORKERS",
    # Under GitHub Actions (this project's own CI), inner runs must neither annotate the
    # job with their test files nor append to its job summary.
    "GITHUB_ACTIONS",
    "GITHUB_STEP_SUMMARY",
    "GITHUB_WORKSPACE",
    # What the reports link a claim's line with (reports/info.py, SourceLinks): a run of this
    # project's CI must not link its inner runs' claims into this repository.
    "GITHUB_SERVER_URL",
    "GITHUB_REPOSITORY",
    "GITHUB_SHA",
    "GITHUB_RUN_ID",
    "CITATIONS_SOURCE_SHA",
    "CITATIONS_ARTIFACT",
)

# The emulated web of the shipped examples (pytest_citations/sandbox/site.py).
BOILING_URL = example_site.BOILING_URL
OLD_REPORT_URL = example_site.OLD_REPORT_URL
RETURNS_URL = example_site.RETURNS_URL
REFUNDS_URL = example_site.REFUNDS_URL
SOFTWARE_URL = example_site.SOFTWARE_URL
ALTITUDE_APP_URL = example_site.ALTITUDE_APP_URL
MOVED_URL = example_site.MOVED_URL
SOFT_404_URL = example_site.SOFT_404_URL
PDF_URL = example_site.PDF_URL

#: What the judge emulator's oracle says about claims against those pages.
SUPPORTED_CLAIM = "Water boils at 100 °C at sea level."
CONTRADICTED_CLAIM = "On mountains water boils at 50 °C."
REFUNDS_CLAIM = "Refunds go to the original payment method."
PARTIAL_CLAIM = example_site.PARTIAL_RETURNS_CLAIM  # a judge rule says partial
NOT_FOUND_CLAIM = "Opened software licences cannot be returned."  # against RETURNS_URL
ALTITUDE_CLAIM = "At high altitude water boils at a lower temperature."  # JS-only page

#: A case with one supported claim (plus a dead link) and one contradicted claim.
BOILING_CASE = f"""\
id: boiling-point
question: At what temperature does water boil at sea level?
answer: Water boils at 100 °C at sea level [1][2]. On mountains it boils at 50 °C [1].
citations:
  1: {BOILING_URL}
  2: {OLD_REPORT_URL}
claims:
  - text: {SUPPORTED_CLAIM}
    cites: [1, 2]
  - text: {CONTRADICTED_CLAIM}
    cites: [1]
"""

#: A case whose claims come out partial, supported and not_found.
RETURNS_CASE = f"""\
id: returns-policy
question: Can business customers return opened hardware?
citations:
  1: {RETURNS_URL}
  2: {REFUNDS_URL}
claims:
  - text: {PARTIAL_CLAIM}
    cites: [1]
  - text: {REFUNDS_CLAIM}
    cites: [2]
  - text: {NOT_FOUND_CLAIM}
    cites: [1]
"""

#: Nine claim–URL pairs: 2 supported, 3 unreachable (http_404 twice, soft_404), 2 not_found
#: (the judge's, and a PDF), 1 partial, 1 contradicted; so citation_precision=0.2222 (2/9)
#: and reachable_precision=0.3333 (2/6). Claim labels: supported, supported, contradicted,
#: partial, not_found.
GONE_URL = "https://example.org/gone"
NINE_CASE = f"""\
id: nine
citations:
  1: {BOILING_URL}
  2: {OLD_REPORT_URL}
  3: {REFUNDS_URL}
  4: {GONE_URL}
  5: {RETURNS_URL}
  6: {SOFT_404_URL}
  7: {PDF_URL}
claims:
  - text: {SUPPORTED_CLAIM}
    cites: [1, 2]
  - text: {REFUNDS_CLAIM}
    cites: [3, 4]
  - text: {CONTRADICTED_CLAIM}
    cites: [1]
  - text: {PARTIAL_CLAIM}
    cites: [5]
  - text: {NOT_FOUND_CLAIM}
    cites: [5, 6, 7]
"""

#: The option that names failing labels, alone or with its value (not
#: ``--citations-fail-on-regression``, a gate of its own).
GATE_OPTION = re.compile(r"--citations-fail-on(=|$)")
#: The ini key that names failing labels, as a line of an ini or TOML file sets it (not
#: ``citations_fail_on_regression``, a gate of its own).
INI_FAIL_ON = re.compile(r"^\s*citations_fail_on\s*=", re.MULTILINE)

#: The ``gate=`` of :class:`Citations`'s runs that add no ``--citations-fail-on``: the
#: plugin's default gate (every label but ``supported`` fails a claim), or labels the run's
#: own arguments or the project's ini file name. Any other ``gate`` is the failing labels.
DEFAULT_GATE = "default"
ARGS_GATE = "args"
INI_GATE = "ini"

#: Arguments every in-process run gets: the lexical embedder (never torch) and no cache.
LEXICAL = ("--citations-embedder", "lexical")
NO_CACHE = ("-p", "no:cacheprovider")
#: Hypothesis's pytest plugin re-imports hypothesis in each in-process run (pytester drops
#: the modules a run imported), which costs seconds a run and tests nothing of ours.
QUIET = ("-p", "no:hypothesispytest")


def single_claim_case(case_id: str, claim: str, *urls: str) -> str:
    """A case file with one claim citing ``urls`` as markers 1..n."""
    citations = "\n".join(f"  {n}: {url}" for n, url in enumerate(urls, start=1))
    cites = ", ".join(str(n) for n in range(1, len(urls) + 1))
    claims = f"claims:\n  - text: {claim}\n    cites: [{cites}]\n"
    return f"id: {case_id}\ncitations:\n{citations}\n{claims}"


@dataclass
class Web:
    """The two emulators a recording talks to (their counters stay readable after stop)."""

    crawlbase: CrawlbaseEmulator
    judge: JudgeEmulator

    @property
    def requests(self) -> int:
        """Every request either emulator answered (crawls, storage reads, judge calls)."""
        return self.crawlbase.crawl_count + self.crawlbase.storage_count + self.judge.call_count


class Citations:
    """A ``pytester`` for ``pytest --citations``: case files, emulators and runs.

    Every run that loads the plugin's gate (:meth:`run`, :meth:`run_subprocess`,
    :meth:`record`) takes a required keyword-only ``gate``, so that a reader of the test sees
    which labels fail a claim, and a call that forgets it is a ``TypeError``:

    - ``gate="default"``: the plugin's own default, which fails every label but
      ``supported``; neither the arguments nor the project's ini file may name labels;
    - ``gate="contradicted"`` (any labels ``--citations-fail-on`` takes): the helper passes
      ``--citations-fail-on=LABELS``; neither the arguments nor the ini file may name any;
    - ``gate="args"``: the run's own arguments name them (``--citations-fail-on``);
    - ``gate="ini"``: the project's ini file names them (``citations_fail_on``) and the
      arguments do not.

    A ``gate`` that does not match what the run's arguments and ini file say is a
    ``ValueError``, before pytest runs.
    """

    def __init__(self, pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
        self.pytester = pytester
        self.monkeypatch = monkeypatch

    def _gate(self, gate: str, args: tuple[str | Path, ...]) -> tuple[str, ...]:
        """The arguments that give the run ``gate`` (see the class), checked against the
        run's own arguments and the project's ini file."""
        in_args = any(GATE_OPTION.match(str(arg)) for arg in args)
        named = ARGS_GATE if in_args else INI_GATE if self._ini_names_labels() else None
        if gate in (ARGS_GATE, INI_GATE) and gate != named:
            raise ValueError(f"gate={gate!r}, but the failing labels come from: {named}")
        if gate not in (ARGS_GATE, INI_GATE) and named is not None:
            raise ValueError(f"gate={gate!r}, but the run's {named} name failing labels")
        if gate in (ARGS_GATE, INI_GATE, DEFAULT_GATE):
            return ()
        return (f"--citations-fail-on={gate}",)

    def _ini_names_labels(self) -> bool:
        """Whether an ini file of the project folder sets ``citations_fail_on``."""
        for name in ("pytest.ini", ".pytest.ini", "tox.ini", "setup.cfg", "pyproject.toml"):
            ini = self.path / name
            if ini.is_file() and INI_FAIL_ON.search(ini.read_text(encoding="utf-8")):
                return True
        return False

    @property
    def path(self) -> Path:
        """The project folder (pytester's tmp dir, also the rootdir and cwd)."""
        return self.pytester.path

    def write(self, relative: str, text: str) -> Path:
        """Write a file (dedented) under the project folder, creating folders."""
        path = self.path / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")
        return path

    def cassette(self, relative: str = "cases/boiling.yaml") -> Path:
        """The cassette of a case file under the default cassette folder."""
        return self.path / "cassettes" / relative

    def run(self, *args: str | Path, gate: str, lexical: bool = True) -> pytest.RunResult:
        """``pytest --citations ARGS`` in process with ``gate`` (see the class), lexical
        embedder, no cache provider."""
        extra = (*LEXICAL, *NO_CACHE) if lexical else ()
        labels = self._gate(gate, args)
        return self.pytester.runpytest("--citations", *QUIET, *extra, *labels, *map(str, args))

    def run_subprocess(
        self, *args: str | Path, gate: str, lexical: bool = True, cache: bool = False
    ) -> pytest.RunResult:
        """``pytest --citations ARGS`` with ``gate`` (see the class) in a fresh Python process
        (real stdout and stderr)."""
        labels = self._gate(gate, args)
        extra = (*(LEXICAL if lexical else ()), *(() if cache else NO_CACHE), *labels)
        return self.pytester.runpytest_subprocess("--citations", *QUIET, *extra, *map(str, args))

    def run_tests(self, *args: str | Path) -> pytest.RunResult:
        """``pytest ARGS`` in process without ``--citations`` (ordinary tests using the
        fixture), lexical embedder, no cache provider."""
        return self.pytester.runpytest(*QUIET, *LEXICAL, *NO_CACHE, *map(str, args))

    def run_plain(self, *args: str | Path) -> pytest.RunResult:
        """``pytest ARGS`` in process, without ``--citations``."""
        return self.pytester.runpytest(*QUIET, *NO_CACHE, *map(str, args))

    @contextlib.contextmanager
    def web(
        self,
        *,
        tokens: dict[str, str] | None = None,
        site: bool = True,
        latency: float = 0.0,
    ) -> Iterator[Web]:
        """Start both emulators (serving the example site unless ``site=False``), point the
        environment at them and set ``tokens`` (default :data:`TOKENS`; a ``None`` value
        leaves a variable unset). On leaving, stop them and unset every token."""
        values = dict(TOKENS if tokens is None else tokens)
        with (
            CrawlbaseEmulator(
                token=values.get("CRAWLBASE_TOKEN") or CRAWLBASE_TOKEN,
                js_token=values.get("CRAWLBASE_JS_TOKEN") or CRAWLBASE_JS_TOKEN,
                latency=latency,
            ) as crawlbase,
            JudgeEmulator(
                openai_key=values.get("OPENAI_API_KEY") or OPENAI_API_KEY,
                anthropic_key=values.get("ANTHROPIC_API_KEY") or ANTHROPIC_API_KEY,
            ) as judge,
        ):
            if site:
                example_site.install(crawlbase, judge)
            self.monkeypatch.setenv("CRAWLBASE_API_URL", crawlbase.url)
            for variable, url in judge.base_urls().items():
                self.monkeypatch.setenv(variable, url)
            for variable in TOKENS:
                if values.get(variable):
                    self.monkeypatch.setenv(variable, values[variable])
                else:
                    self.monkeypatch.delenv(variable, raising=False)
            try:
                yield Web(crawlbase, judge)
            finally:
                for variable in TOKENS:
                    self.monkeypatch.delenv(variable, raising=False)

    def record(
        self, *args: str | Path, gate: str, mode: str = "once"
    ) -> tuple[pytest.RunResult, Web]:
        """Record with ``gate`` (see the class) against fresh emulators, then stop them:
        ``(result, web)``."""
        with self.web() as web:
            result = self.run(f"--citations-record={mode}", *args, gate=gate)
        return result, web


def load_report(path: Path) -> dict[str, Any]:
    """A JSON report written by ``--citations-report``."""
    loaded: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return loaded


def claims_by_nodeid(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Every claim record of a JSON report, by node id."""
    return {claim["nodeid"]: claim for case in report["cases"] for claim in case["claims"]}


def junit_testcases(path: Path) -> dict[str, ET.Element]:
    """The ``<testcase>`` elements of a junit XML file, by ``classname::name``-ish key
    (the item's name, e.g. ``claim-1``, prefixed with its case's classname)."""
    root = ET.parse(path).getroot()
    return {f"{case.get('classname')}.{case.get('name')}": case for case in root.iter("testcase")}


def interactions(cassette: Path) -> list[dict[str, Any]]:
    """The interactions stored in a cassette file."""
    import yaml

    loaded = yaml.safe_load(cassette.read_text(encoding="utf-8")) or {}
    found: list[dict[str, Any]] = loaded.get("interactions", [])
    return found


def crawled_urls(cassette: Path) -> list[str]:
    """The target URL of every Crawlbase crawl stored in a cassette."""
    from urllib.parse import parse_qs, urlsplit

    urls = []
    for interaction in interactions(cassette):
        query = parse_qs(urlsplit(interaction["request"]["uri"]).query)
        if "url" in query:
            urls.append(query["url"][0])
    return urls
