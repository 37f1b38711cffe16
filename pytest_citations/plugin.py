"""The pytest plugin: options, collection of case files, the ``citation_verifier`` fixture,
the header, the summary and the JSON report. Every hook delegates in a few lines."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from . import hookspecs
from .assertions import active_verifier, assert_not_contradicted, assert_supported, explain
from .backends import Backends
from .cases import looks_like_case_file
from .csvreport import write_csv
from .errors import CitationsError
from .gating.baseline import Baseline
from .gating.calibration import Agreement
from .gating.criteria import describe_unchecked
from .html import write_html
from .items import (
    CASE_FILE_SCHEDULING,
    CASE_PROPERTY,
    DEFAULT_CASE_GLOBS,
    FILE_ERROR_PROPERTY,
    RECORD_PROPERTY,
    RUNTIME_KEY,
    CaseFile,
    CollectionErrors,
    case_file_scheduler,
    looks_like_cassette,
    matches_any,
    unchecked_message,
)
from .recording import RecordMode
from .report import RunReport, merge_usage
from .runtime import LIMITS, Options, Runtime, build_settings, check_recording_secrets
from .sanitize import strip_controls
from .verdicts import ClaimVerdict

OPTIONS_KEY = pytest.StashKey[Options]()
COLLECTION_KEY = pytest.StashKey[CollectionErrors]()


def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:
    """Declare ``pytest_citations_vcr`` and ``pytest_citations_backends``."""
    pluginmanager.add_hookspecs(hookspecs)


def pytest_addoption(parser: pytest.Parser) -> None:
    """Command-line options and ini keys; precedence: command line > environment > ini."""
    group = parser.getgroup("citations", "citation checks of LLM answers (pytest-citations)")
    group.addoption(
        "--citations",
        action="store_true",
        default=False,
        help="collect YAML case files (*.yaml, *.yml) as citation checks.",
    )
    group.addoption(
        "--citations-record",
        choices=[mode.value for mode in RecordMode],
        default=None,
        help="cassette record mode (default: none = replay only, offline).",
    )
    group.addoption(
        "--citations-judge",
        default=None,
        help="judge provider: openai (default), anthropic, ollama.",
    )
    group.addoption("--citations-model", default=None, help="judge model of the provider.")
    group.addoption(
        "--citations-concurrency",
        type=int,
        default=None,
        help="requests in flight at once (default 4, env BATCH_CONCURRENCY).",
    )
    group.addoption(
        "--citations-cassette-dir",
        default=None,
        help="cassette folder (default: cassettes/ at the rootdir).",
    )
    group.addoption(
        "--citations-report",
        default=None,
        metavar="PATH",
        help="write the JSON report of every case, claim and citation to PATH.",
    )
    group.addoption(
        "--citations-html",
        default=None,
        metavar="PATH",
        help="write a self-contained HTML report (quotes highlighted, filter by label) to PATH.",
    )
    group.addoption(
        "--citations-csv",
        default=None,
        metavar="PATH",
        help="write one CSV row per citation (000's batch report) to PATH.",
    )
    group.addoption(
        "--citations-min-precision",
        default=None,
        metavar="X",
        help="fail a case, and the run, whose citation precision is below X.",
    )
    group.addoption(
        "--citations-fail-on",
        default=None,
        metavar="LABELS",
        help="comma-separated claim labels that fail a claim (default contradicted).",
    )
    group.addoption(
        "--citations-embedder",
        default=None,
        help="embedding model name or path (default all-MiniLM-L6-v2).",
    )
    group.addoption(
        "--citations-audit",
        default=None,
        metavar="PATH",
        help="append every citation verdict to an SQLite audit index at PATH.",
    )
    group.addoption(
        "--citations-min-supported-share",
        default=None,
        metavar="X",
        help="fail a case, and the run, whose share of fully supported claims is "
        "below X (004, C7).",
    )
    group.addoption(
        "--citations-baseline",
        default=None,
        metavar="PATH",
        help="compare claim labels with the baseline at PATH; worse labels fail.",
    )
    group.addoption(
        "--citations-update-baseline",
        action="store_true",
        default=False,
        help="write this run's labels to the baseline (unused entries are removed "
        "only after a full run).",
    )
    group.addoption(
        "--citations-calibrate",
        action="store_true",
        default=False,
        help="report the judge's agreement with the claims' human 'expect:' labels.",
    )
    group.addoption(
        "--citations-allow-unchecked",
        action="store_true",
        default=False,
        help="count citations that could not be checked (fetch or judge errors, missing "
        "recordings) as their labels instead of making their claims errors.",
    )
    for limit in LIMITS:
        group.addoption(
            limit.flag,
            dest=limit.option,
            default=None,
            metavar="N" if limit.integer else "SECONDS",
            help=f"{limit.help}; env {limit.env}, ini {limit.ini}.",
        )
        parser.addini(limit.ini, limit.help)
    parser.addini(
        "citations_allow_unchecked",
        "count citations that could not be checked as their labels (default false)",
        type="bool",
        default=False,
    )
    parser.addini("citations_record_mode", "cassette record mode (default none)")
    parser.addini(
        "citations_forbid_contradicted_topics",
        "topics whose contradicted claims always fail",
        type="args",
    )
    parser.addini(
        "citations_numbers_traceable",
        "every number and date of a claim must stand in its evidence",
        type="bool",
        default=False,
    )
    parser.addini("citations_min_supported_share", "minimum share of fully supported claims")
    parser.addini(
        "citations_uncited_allowed",
        "uncited claims may pass when marked general: true and free of figures",
        type="bool",
        default=True,
    )
    parser.addini("citations_baseline", "path of the baseline file")
    parser.addini(
        "citations_min_agreement",
        "calibration gate: kappa (default), accuracy=X or balanced_accuracy=X",
    )
    parser.addini("citations_cassette_dir", "cassette folder, relative to the rootdir")
    parser.addini("citations_judge", "judge provider")
    parser.addini("citations_model", "judge model")
    parser.addini("citations_concurrency", "requests in flight at once")
    parser.addini("citations_report", "path of the JSON report")
    parser.addini("citations_min_precision", "minimum citation precision per case and run")
    parser.addini("citations_fail_on", "claim labels that fail a claim", type="args")
    parser.addini("citations_embedding_model", "embedding model name or path")
    parser.addini("citations_audit_db", "path of the SQLite audit index")
    parser.addini("citations_fetcher", "fetcher backend name (default crawlbase)")
    parser.addini(
        "citations_files",
        "glob-style patterns of case files, like python_files (default *.yaml *.yml)",
        type="args",
        default=list(DEFAULT_CASE_GLOBS),
    )


def pytest_configure(config: pytest.Config) -> None:
    """Read the options once and start the reporter when case files are collected."""
    options = Options.from_config(config)
    config.stash[OPTIONS_KEY] = options
    if options.enabled:
        _register_reporter(config, options)
        # A broken case file must not stop the other files; a broken Python module must
        # stop the run exactly as it does without --citations. The guard decides which.
        guard = CollectionErrors()
        config.stash[COLLECTION_KEY] = guard
        config.pluginmanager.register(guard, "citations-collection")


def _runtime(config: pytest.Config) -> Runtime:
    """The session's runtime, built on first use by items and the fixture alike."""
    if RUNTIME_KEY not in config.stash:
        options = config.stash[OPTIONS_KEY]
        runtime = Runtime(config, options)
        try:
            check_recording_secrets(options, runtime.settings)
        except pytest.UsageError:
            runtime.close()
            raise
        config.stash[RUNTIME_KEY] = runtime
    return config.stash[RUNTIME_KEY]


def pytest_sessionstart(session: pytest.Session) -> None:
    """Start the runtime early when case files will run, so a usage error comes first."""
    options = session.config.stash[OPTIONS_KEY]
    if not options.enabled:
        return
    if _is_xdist_controller(session.config):
        # The controller verifies nothing, but a missing token must be one usage error
        # here, before any worker starts (each would crash on it, again and again).
        check_recording_secrets(options, build_settings(options, None))
        return
    _runtime(session.config)


def pytest_collection_finish(session: pytest.Session) -> None:
    """Tell the cassette library every source that will record, before anything runs, so
    that two sources sharing one cassette (a case file and a test, say) both fail with the
    clash rather than the second one quietly overwriting the first's recording."""
    sources: list[tuple[str, Path, str]] = []
    for item in session.items:
        case_file = item.getparent(CaseFile)
        if case_file is not None:
            sources.append(("case", case_file.path, ""))
        elif "citation_verifier" in getattr(item, "fixturenames", ()):
            sources.append(("test", item.path, item.name))
    if not sources or _is_xdist_controller(session.config):
        return
    try:
        runtime = _runtime(session.config)
    except pytest.UsageError as error:  # recording without its token: one usage error
        pytest.exit(str(error), returncode=pytest.ExitCode.USAGE_ERROR)
    for kind, path, name in dict.fromkeys(sources):
        if kind == "case":
            runtime.cassette_path(path)
        else:
            runtime.test_cassette_path(path, name)


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> CaseFile | None:
    """Case files, only with ``--citations``: files matching ``citations_files`` that hold
    a case key; never a cassette, never another tool's YAML."""
    config = parent.config
    options = config.stash[OPTIONS_KEY]
    if not options.enabled or not matches_any(file_path, config.getini("citations_files")):
        return None
    if options.cassette_dir.resolve() in file_path.resolve().parents:
        return None
    try:
        text = file_path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        text = None  # unreadable: the case file reports it, with its name
    if text is not None and (looks_like_cassette(text) or not looks_like_case_file(text)):
        return None
    case_file: CaseFile = CaseFile.from_parent(parent, path=file_path)
    config.stash[COLLECTION_KEY].case_files.add(case_file.nodeid)
    return case_file


def pytest_report_header(config: pytest.Config) -> list[str] | None:
    """One line that says how to reproduce the run."""
    options = config.stash[OPTIONS_KEY]
    if not options.enabled:
        return None
    model = options.model or Backends().judge_variable(options.judge, "default_model") or "?"
    return [
        f"citations: record={options.record_mode.value} judge={options.judge} model={model} "
        f"cassettes={_shown(options.cassette_dir, config.rootpath)} "
        f"embedder={options.embedding_model} concurrency={options.concurrency} "
        f"fail_on={','.join(options.fail_on)}"
        + (f" min_precision={options.min_precision:g}" if options.min_precision is not None else "")
        + "".join(
            f" {limit.name.replace('-', '_')}={options.limits[limit.field]:g}"
            for limit in LIMITS
            if limit.field in options.limits
        )
        + (" allow_unchecked" if options.allow_unchecked else "")
        + _scheduling(config)
    ]


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """Under xdist's default ``load`` scheduling, keep each case file on one worker so that
    ``-n N`` costs exactly what a serial run costs."""
    if config.stash[OPTIONS_KEY].enabled and config.getoption("dist", None) == "load":
        return case_file_scheduler(config, log, config.getini("citations_files"))
    return None


def _scheduling(config: pytest.Config) -> str:
    """`` xdist=...`` for the header: which scheduling distributes the case files."""
    dist = config.getoption("dist", None)
    if not config.getoption("numprocesses", None) or dist in (None, "no"):
        return ""
    if dist == "load":
        return f" xdist={CASE_FILE_SCHEDULING}"
    if dist in ("loadfile", "each"):
        return f" xdist={dist}"
    return f" xdist={dist} (splits case files across workers: each verifies them again)"


def _shown(path: Path, root: Path) -> str:
    try:
        return str(path.relative_to(root)) + "/"
    except ValueError:
        return str(path)


def pytest_report_teststatus(
    report: pytest.TestReport, config: pytest.Config
) -> tuple[str, str, tuple[str, dict[str, bool]]] | None:
    """Verbose output shows each claim's label, and unverified citations even on a pass."""
    if report.when != "call" or not report.passed:
        return None
    record = _record(report)
    if record is None:
        return None
    unverified = [c for c in record["citations"] if c["label"] in ("not_found", "unreachable")]
    word = f"PASSED [{record['label']}]"
    if unverified:
        word += " " + ", ".join(
            f"{c['label']}:{c['reason']}" if c["reason"] else c["label"] for c in unverified
        )
        return "passed", ".", (word, {"yellow": True})
    return "passed", ".", (word, {"green": True})


def _record(report: pytest.TestReport) -> dict[str, Any] | None:
    for name, value in report.user_properties:
        if name == RECORD_PROPERTY:
            loaded: dict[str, Any] = json.loads(str(value))
            return loaded
    return None


def pytest_sessionfinish(session: pytest.Session) -> None:
    """Hand this process's spending to the xdist controller, then close the runtime."""
    config = session.config
    runtime = config.stash.get(RUNTIME_KEY, None)
    if runtime is None:
        return
    usage = runtime.usage
    notes = runtime.library.notes()
    if hasattr(config, "workeroutput"):
        config.workeroutput["citations_usage"] = usage.to_dict()
        config.workeroutput["citations_cassette_notes"] = notes
    elif REPORTER_KEY in config.stash:
        reporter = config.stash[REPORTER_KEY]
        reporter.report.usage.add(usage)
        reporter.add_cassette_notes(notes)
    runtime.close()
    del config.stash[RUNTIME_KEY]


def pytest_unconfigure(config: pytest.Config) -> None:
    """Unregister the reporter and close whatever is still open."""
    runtime = config.stash.get(RUNTIME_KEY, None)
    if runtime is not None:
        runtime.close()
        del config.stash[RUNTIME_KEY]
    reporter = config.stash.get(REPORTER_KEY, None)
    if reporter is not None:
        del config.stash[REPORTER_KEY]
        config.pluginmanager.unregister(reporter)
    guard = config.stash.get(COLLECTION_KEY, None)
    if guard is not None:
        del config.stash[COLLECTION_KEY]
        config.pluginmanager.unregister(guard)


def _is_xdist_worker(config: pytest.Config) -> bool:
    return hasattr(config, "workerinput")


def _is_xdist_controller(config: pytest.Config) -> bool:
    return bool(getattr(config.option, "numprocesses", None)) and not _is_xdist_worker(config)


class CitationsReporter:
    """Merges claim and case records (local or from xdist workers), prints the summary and
    the release decision, writes the JSON report and the baseline, and gates the run on the
    suite's precision and supported share (like ``--cov-fail-under``) and on the judge's
    calibration."""

    def __init__(self, config: pytest.Config, options: Options) -> None:
        self.config = config
        self.options = options
        self.report = RunReport()
        self.run_failures: list[str] = []
        #: Suite thresholds that unchecked citations could still meet: not decided.
        self.run_incomplete: list[str] = []
        self.agreement: Agreement | None = None
        self.baseline_lines: list[str] = []
        #: Cassettes this run left as they were, and why (from every process).
        self.cassette_notes: list[str] = []

    def add_cassette_notes(self, notes: list[str]) -> None:
        """Add the cassette notes of one process (this one or an xdist worker)."""
        self.cassette_notes += [note for note in notes if note not in self.cassette_notes]

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        # A claim that could not be checked is an error in setup; its record is there.
        if report.when != "call" and not (report.when == "setup" and report.failed):
            return
        for name, value in report.user_properties:
            if name == RECORD_PROPERTY:
                self.report.add_claim(json.loads(str(value)))
            elif name == CASE_PROPERTY:
                self.report.add_case(json.loads(str(value)))
            elif name == FILE_ERROR_PROPERTY:
                self.report.add_file_error(json.loads(str(value)))

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: Any, error: Any) -> None:
        output = getattr(node, "workeroutput", {})
        if "citations_usage" in output:
            merge_usage(self.report.usage, output["citations_usage"])
        self.add_cassette_notes(list(output.get("citations_cassette_notes", [])))

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        if not self.report:
            return
        criteria = self.options.criteria
        precision = self.report.precision
        share = self.report.supported_share
        # Unchecked citations might each have been supported: a threshold they could still
        # meet is undecided (incomplete), one they could not is a failure.
        open_citations, open_claims = self.report.unchecked()
        if criteria.min_precision is not None and (
            precision.citation is None or precision.citation < criteria.min_precision
        ):
            missed = f"min_precision: suite {precision.lines()[0]} below {criteria.min_precision:g}"
            best = (precision.supported + open_citations) / (precision.total or 1)
            if open_citations and best >= criteria.min_precision:
                self.run_incomplete.append(f"{missed}, with {open_citations} citations unchecked")
            else:
                self.run_failures.append(missed)
        if criteria.min_supported_share is not None and (
            share.value is None or share.value < criteria.min_supported_share
        ):
            missed = (
                f"min_supported_share: suite share {share} below {criteria.min_supported_share:g}"
            )
            best = (share.supported + open_claims) / (share.total or 1)
            if open_claims and best >= criteria.min_supported_share:
                self.run_incomplete.append(f"{missed}, with {open_claims} claims unchecked")
            else:
                self.run_failures.append(missed)
        self._calibrate()
        self._baseline(session)
        if self.options.report is not None:
            self.report.write_json(self.options.report)
        html_path = self.config.getoption("citations_html", None)
        if html_path:
            write_html(
                Path(html_path), self.report.to_dict(), self._run_lines(), "pytest-citations report"
            )
        csv_path = self.config.getoption("citations_csv", None)
        if csv_path:
            write_csv(Path(csv_path), self.report.claims_for_csv())
        if (self.run_failures or self.run_incomplete) and session.exitstatus == pytest.ExitCode.OK:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED

    def _calibrate(self) -> None:
        pairs = [(c["expect"], c["label"]) for c in self.report.claims if c.get("expect")]
        if not (self.options.calibrate or self.options.min_agreement) or not pairs:
            return
        self.agreement = Agreement.of(pairs)
        if self.options.min_agreement is not None:
            metric, minimum = self.options.min_agreement
            value = getattr(self.agreement, metric)
            if value is None or value < minimum:
                self.run_failures.append(
                    f"min_agreement: judge {metric} {value if value is None else f'{value:.4f}'}"
                    f" below {minimum:g}"
                )

    def _baseline(self, session: pytest.Session) -> None:
        path = self.options.baseline
        if path is None:
            return
        baseline = Baseline.load(path)
        claims = self.report.claims
        changes = [(c["nodeid"], c.get("baseline", {})) for c in claims]
        regressions = [n for n, b in changes if b.get("change") == "regression"]
        improvements = [(n, b) for n, b in changes if b.get("change") == "improvement"]
        new = [n for n, b in changes if b.get("change") == "new"]
        ran_files = {c["file"] for c in claims}
        unused = [n for n in baseline.unused(c["nodeid"] for c in claims)]
        lines = [
            f"baseline {_shown_file(path, self.config.rootpath)}: {len(regressions)} regressed, "
            f"{len(improvements)} improved, {len(new)} new, {len(unused)} unused"
        ]
        lines += [f"  improved: {n} ({b.get('old_label')} -> better)" for n, b in improvements]
        lines += [f"  regressed: {n}" for n in regressions]
        lines += [f"  unused: {n}" for n in unused]
        if self.options.update_baseline:
            full_run = _is_full_run(self.config)
            root = self.config.rootpath
            removable = [
                n
                for n in unused
                if full_run
                and (n.split("::", 1)[0] in ran_files or not (root / n.split("::", 1)[0]).exists())
            ]
            # A claim that could not be checked says nothing about its label: keep the old.
            checked = [c for c in claims if c.get("decision") != "incomplete"]
            baseline.updated(checked, removable).write(path)
            kept = len(unused) - len(removable)
            lines.append(
                f"baseline updated: {len(claims)} claims written, {len(removable)} unused removed"
                + (f", {kept} kept (not a full run of their files)" if kept else "")
            )
        self.baseline_lines = lines

    def _run_lines(self) -> list[str]:
        """Summary figures for the HTML report: precision, share, costs, decision."""
        lines = [*self.report.precision.lines(), f"supported_share={self.report.supported_share}"]
        lines.append(self.report.usage_line())
        release = self.report.release_lines(self.run_failures, self.run_incomplete)
        return lines + [line for line in release if line.startswith("Release decision")]

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if not self.report:
            return

        def write(line: str, **markup: bool) -> None:
            # Records are cleaned where they are made; this also covers worker records.
            terminalreporter.write_line(strip_controls(line), **markup)

        terminalreporter.section("citations")
        for line in self.report.table_lines():
            write(line)
        unverified = self.report.unverified()
        if unverified:
            write("")
            write("citations not verified:")
            for nodeid, citation in unverified:
                reason = f" ({citation['reason']})" if citation.get("reason") else ""
                write(f"  {nodeid}: {citation['label']}{reason} {citation['url']}")
        notes = [
            f"  {c['nodeid']}: {c['label']}"
            + (
                f" (supported instead by {', '.join(c['misattributed_to'])})"
                if c.get("misattributed_to")
                else ""
            )
            + (f" (jointly by {', '.join(c['joint_support'])})" if c.get("joint_support") else "")
            for c in self.report.claims
            if c["label"] in ("contradicted", "uncited", "misattributed", "partial")
            or c.get("joint_support")
        ]
        if notes:
            write("")
            write("claims to look at:")
            for line in notes:
                write(line)
        write("")
        for line in self.report.precision.lines():
            write(line)
        write(f"supported_share={self.report.supported_share}")
        write(self.report.usage_line())
        for line in self.baseline_lines:
            write(line)
        if self.agreement is not None:
            write("")
            for line in self.agreement.lines():
                write(line)
        release = self.report.release_lines(self.run_failures, self.run_incomplete)
        if release:
            write("")
            for line in release:
                decided = line.lower().rsplit("release decision: ", 1)[-1]
                write(
                    line,
                    red=decided.startswith("fail"),
                    yellow=decided.startswith("incomplete"),
                    green=decided.startswith("pass"),
                )
        if self.options.report is not None:
            write(f"citations report: {self.options.report}")
        for failure in self.run_failures:
            if failure.startswith("min_precision"):
                minimum = self.options.criteria.min_precision
                write(
                    f"FAIL Required citation precision of {minimum:g} not reached: "
                    f"{self.report.precision.lines()[0]}",
                    red=True,
                )
            else:
                write(f"FAIL {failure}", red=True)
        for undecided in self.run_incomplete:
            write(f"INCOMPLETE {undecided}", yellow=True)
        if self.cassette_notes:
            write("")
            write("cassettes not written (nothing of a failed or interrupted run is recorded):")
            for note in self.cassette_notes:
                write(f"  {note}", yellow=True)
        incomplete = self.report.incomplete_claims()
        if incomplete:
            count = len(incomplete)
            write(
                f"{count} claim{'s' if count != 1 else ''} could not be checked (see the errors "
                "above): fix the cause and run again, or count unchecked citations as their "
                "labels with --citations-allow-unchecked",
                yellow=True,
            )


def _is_full_run(config: pytest.Config) -> bool:
    """No selection narrowed the run (``-k``, ``-m``, ``--deselect``, ``--lf``, or a node id
    such as ``cases/x.yaml::case::claim-1`` that runs part of a file)."""
    option = config.option
    return not (
        getattr(option, "keyword", "")
        or getattr(option, "markexpr", "")
        or getattr(option, "deselect", None)
        or getattr(option, "lf", False)
        or (getattr(option, "failedfirst", False) and False)
        or any("::" in str(arg) for arg in config.args)
    )


def _shown_file(path: Path, root: Path) -> str:
    try:
        return str(path.relative_to(root))
    except ValueError:
        return str(path)


REPORTER_KEY = pytest.StashKey[CitationsReporter]()


def _register_reporter(config: pytest.Config, options: Options) -> None:
    if _is_xdist_worker(config):
        return
    reporter = CitationsReporter(config, options)
    config.stash[REPORTER_KEY] = reporter
    config.pluginmanager.register(reporter, "citations-reporter")


#: Set on a test item once its call phase has a report: the test ran to its end (passed or
#: failed), so what its fixture recorded is complete and may be written.
CALL_DONE_KEY = pytest.StashKey[bool]()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    """Note that a test's call phase ended (an interrupted one never gets here)."""
    report = yield
    if call.when == "call":
        item.stash[CALL_DONE_KEY] = True
    return report


@pytest.fixture
def citation_verifier(request: pytest.FixtureRequest) -> Iterator[CitationVerifier]:
    """Verify claims against URLs inside a test; traffic goes to the test's own cassette
    (``<cassettes>/<test module>/<test name>.yaml``) and replays offline by default. The
    cassette is written only when the test ran to its end."""
    try:
        runtime = _runtime(request.config)
    except pytest.UsageError as error:
        # Recording without its token: one usage error for the run, as for case files,
        # rather than an error with a traceback in every test that uses the fixture.
        pytest.exit(str(error), returncode=pytest.ExitCode.USAGE_ERROR)
    path = runtime.test_cassette_path(request.path, request.node.name)
    runtime.register_test_source(path, request.node.nodeid)
    try:
        session = runtime.library.open(path)
    except CitationsError as error:  # a damaged cassette, a clash: one clear line
        pytest.fail(strip_controls(str(error)), pytrace=False)
    verifier = CitationVerifier(runtime, session)
    token = active_verifier.set(verifier)
    try:
        yield verifier
    finally:
        active_verifier.reset(token)
        if request.node.stash.get(CALL_DONE_KEY, False):
            session.close()
        else:
            session.abandon("the test did not run to its end")


class CitationVerifier:
    """What the ``citation_verifier`` fixture gives a test."""

    def __init__(self, runtime: Runtime, session: Any) -> None:
        self._runtime = runtime
        self._session = session
        self.verdicts: list[ClaimVerdict] = []

    @property
    def cassette(self) -> Path:
        """This test's cassette file."""
        path: Path = self._session.path
        return path

    def verify(self, claim: str, urls: Sequence[str] | str) -> ClaimVerdict:
        """Verify one claim against its cited URLs; returns the claim's verdict. Fails the
        test when a citation could not be checked (a request missing from its cassette,
        named with the command that records it; a judge or crawler error) rather than
        returning a verdict nobody checked, unless the run allows unchecked citations."""
        __tracebackhide__ = True
        from .verifier import ClaimRequest

        listed = [urls] if isinstance(urls, str) else list(urls)
        verdict = self._runtime.run_in_cassette(self._session, [ClaimRequest.of(claim, listed)])[0]
        self.verdicts.append(verdict)
        if not verdict.complete and not self._runtime.options.allow_unchecked:
            message = unchecked_message(verdict, describe_unchecked(verdict), explain(verdict))
            pytest.fail(strip_controls(message), pytrace=False)
        return verdict

    def assert_supported(self, claim: str, urls: Sequence[str] | str) -> ClaimVerdict:
        """Fail unless the claim is supported; see :func:`pytest_citations.assert_supported`."""
        __tracebackhide__ = True
        return assert_supported(claim, urls, verifier=self)

    def assert_not_contradicted(self, claim: str, urls: Sequence[str] | str) -> ClaimVerdict:
        """Fail when a cited page contradicts the claim."""
        __tracebackhide__ = True
        return assert_not_contradicted(claim, urls, verifier=self)

    @staticmethod
    def explain(verdict: ClaimVerdict) -> str:
        """The readable explanation used in failure messages."""
        return explain(verdict)
