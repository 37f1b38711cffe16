"""The pytest plugin (entry point ``pytest_citations.plugin``): hooks only, each delegating
in a few lines to the modules beside it.

- :mod:`.options`: the option table (flags, ini keys, environment, precedence);
- :mod:`.session`: the verifier and cassettes of the process, each claim assessed once;
- :mod:`.items`: case files as collectors and items;
- :mod:`.fixture`: the ``citation_verifier`` fixture;
- :mod:`.reporter`: the summary, the report files and the run's own gates;
- :mod:`.scheduling`: which files are case files, and how xdist keeps one on one worker;
- :mod:`.not_run`: without ``--citations``, the note on the case files that did not run;
- :mod:`.sharding`: ``--citations-shard K/N``, the files of this shard;
- :mod:`.hookspecs`: the hooks other plugins may implement.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from ..errors import ConfigurationError
from ..gating.result import Location
from ..pipeline.audit import new_run_id
from ..pipeline.backends import Backends
from ..reports.terminal import UNVERIFIED
from ..sanitize import LogRedaction
from . import hookspecs, identity
from .drift import check as check_drift
from .drift import refuse_under_xdist
from .fixture import citation_verifier, label_comparison, note_call_done
from .flags import add_options
from .header import header_line
from .items import CASE_MARKER, CaseFile, ClaimItem, _CaseItem, note_declared_marks
from .option_table import OPTIONS
from .options import BACKENDS_KEY, OPTIONS_KEY, RUN_ID_INPUT, RUN_ID_KEY, Options
from .preflight import check_recording_secrets, check_signing, refuse_budget_under_xdist
from .printing import neutralise_failure, neutralised_logs, printed
from .reporter import (
    DESELECTED_OUTPUT,
    NOTES_OUTPUT,
    UNPLAYED_OUTPUT,
    USAGE_OUTPUT,
    CitationsReporter,
)
from .results import attach_problems, attach_result, attach_where, own_time, problems_of, result_of
from .scheduling import case_file_scheduler, holds_cases, matches_any
from .session import SESSION_KEY, CitationsSession, build_settings, session_of
from .sharding import hand_over, left_to_other_shards, shard_items

if TYPE_CHECKING:
    from .not_run import CaseFilesNotRun

__all__ = ["citation_verifier"]

REPORTER_KEY = pytest.StashKey[CitationsReporter]()
DESELECTED_KEY = pytest.StashKey[dict[str, Location]]()
#: How many collection errors no case file caused.
OTHER_ERRORS_KEY = pytest.StashKey[int]()
NOT_RUN_KEY: pytest.StashKey[CaseFilesNotRun] = pytest.StashKey()
LOGS_KEY = pytest.StashKey[LogRedaction]()


def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:
    """Declare ``pytest_citations_vcr`` and ``pytest_citations_backends``."""
    pluginmanager.add_hookspecs(hookspecs)


def pytest_addoption(parser: pytest.Parser) -> None:
    """Every flag and ini key, from the option table."""
    add_options(parser, OPTIONS)


@pytest.hookimpl(tryfirst=True)  # before other plugins register their marks
def pytest_configure(config: pytest.Config) -> None:
    """Read the options once; with ``--citations``, start the reporter (not on an xdist
    worker) and, under GitHub Actions, the neutralisation of log records."""
    note_declared_marks(config)
    backends = Backends()
    config.hook.pytest_citations_backends(config=config, backends=backends)
    config.stash[BACKENDS_KEY] = backends
    config.addinivalue_line(
        "markers",
        f"{CASE_MARKER}: an item of a YAML case file (pytest --citations); each name in a "
        "case's 'tags:' marks its items too (-m smoke selects them): declare your tags under "
        "'markers' like any marker, for --strict-markers",
    )
    options = Options.from_config(config, backends)
    config.stash[OPTIONS_KEY] = options
    if not options.enabled:
        # Only a run without --citations notes the case files it walked past.
        from .not_run import CaseFilesNotRun

        not_run = CaseFilesNotRun(config, options)
        config.stash[NOT_RUN_KEY] = not_run
        config.pluginmanager.register(not_run, "citations-not-run")
        return
    workerinput = getattr(config, "workerinput", {})
    config.stash[RUN_ID_KEY] = workerinput.get(RUN_ID_INPUT) or new_run_id()
    logs = neutralised_logs()
    if logs is not None:
        config.stash[LOGS_KEY] = logs
    if not hasattr(config, "workerinput"):
        unsigned = check_signing(options)
        if unsigned is not None:
            config.issue_config_time_warning(pytest.PytestWarning(f"citations: {unsigned}"), 2)
        reporter = CitationsReporter(config, options)
        config.stash[REPORTER_KEY] = reporter
        config.pluginmanager.register(reporter, "citations-reporter")
    config.stash[OTHER_ERRORS_KEY] = 0


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: Any) -> None:
    """xdist: every worker reports under the controller's run id."""
    if RUN_ID_KEY in node.config.stash:
        node.workerinput[RUN_ID_INPUT] = node.config.stash[RUN_ID_KEY]


def _is_xdist_controller(config: pytest.Config) -> bool:
    return bool(getattr(config.option, "numprocesses", None)) and not hasattr(config, "workerinput")


def pytest_sessionstart(session: pytest.Session) -> None:
    """Start the session early when case files will run, so a usage error comes first. The
    xdist controller verifies nothing, but a missing token is one usage error there, before
    any worker starts (each would crash on it, again and again)."""
    config = session.config
    options = config.stash[OPTIONS_KEY]
    if not options.enabled:
        return
    if options.drift:
        refuse_under_xdist(config)
    refuse_budget_under_xdist(config, options)
    backends = config.stash[BACKENDS_KEY]
    if _is_xdist_controller(config):
        settings = build_settings(options, None, backends)
        check_recording_secrets(options, settings, backends)
    else:
        settings = session_of(config).settings
    if REPORTER_KEY in config.stash:
        config.stash[REPORTER_KEY].add_settings(settings, backends)


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> CaseFile | None:
    """Case files, only with ``--citations``: files matching ``citations_files`` that hold
    a case key (or one in another case or spelling, reported at its line); never a cassette,
    never another tool's YAML. Without ``--citations``, the case files are noted, for the
    summary to say that they did not run."""
    config = parent.config
    options = config.stash[OPTIONS_KEY]
    if not matches_any(file_path, options.case_globs):
        return None
    if not options.enabled:
        if NOT_RUN_KEY in config.stash:
            config.stash[NOT_RUN_KEY].look_at(file_path)
        return None
    if options.cassette_dir.resolve() in file_path.resolve().parents:
        return None
    try:  # read once: to tell a case file, for its digest, and to parse it
        data: bytes | None = file_path.read_bytes()
    except OSError:
        data = None  # unreadable: the case file reports it, with its name
    if data is not None and not holds_cases(data.decode("utf-8", errors="replace")):
        return None
    case_file: CaseFile = CaseFile.from_parent(parent, path=file_path, data=data)
    identity.remember_case_file(config, case_file.nodeid, data)
    return case_file


@pytest.hookimpl(tryfirst=True)  # before -k and -m: every runner shares out the same files
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """With ``--citations-shard K/N``, keep only this shard's files."""
    if config.stash[OPTIONS_KEY].enabled:
        shard_items(config, items)


def pytest_deselected(items: Sequence[pytest.Item]) -> None:
    """Remember the case items a selection (``-m``, ``-k``, ``--deselect``) left out, so
    that the summary says how many cases the decision does not cover; the items another
    shard runs are not left out."""
    for item in items:
        if not isinstance(item, _CaseItem):
            continue
        if not left_to_other_shards(item.config, item.nodeid):
            item.config.stash.setdefault(DESELECTED_KEY, {})[item.nodeid] = item.where


def pytest_collection_finish(session: pytest.Session) -> None:
    """Tell the cassette library every source that will record, before anything runs, so
    that two sources sharing one cassette both fail with the clash."""
    case_files: dict[Path, CaseFile] = {}
    tests: list[pytest.Item] = []
    for item in session.items:
        case_file = item.getparent(CaseFile)
        if case_file is not None:
            case_files.setdefault(case_file.path, case_file)
        elif "citation_verifier" in getattr(item, "fixturenames", ()):
            tests.append(item)
    if not (case_files or tests) or _is_xdist_controller(session.config):
        return
    try:
        citations = session_of(session.config)
    except pytest.UsageError as error:  # recording without its token: one usage error
        pytest.exit(str(error), returncode=pytest.ExitCode.USAGE_ERROR)
    for path in case_files:
        citations.layout.case_file(path)
    claims = [item for item in session.items if isinstance(item, ClaimItem)]
    citations.select([(c.path, c.case.id, c.claim.index) for c in claims])
    for test in tests:
        citations.test_cassette_path(test)
    if not hasattr(session.config, "workerinput"):
        citations.plan([(path, file.cases) for path, file in case_files.items()])
        try:
            _announce_plan(session.config, citations, len(tests))
        except ConfigurationError as error:  # SSL_CERT_FILE naming no file: nothing sent
            pytest.exit(printed(f"citations: {error}"), returncode=pytest.ExitCode.USAGE_ERROR)


def _announce_plan(config: pytest.Config, citations: CitationsSession, tests: int) -> None:
    """Before a recording run sends anything: what it is about to record, what that may
    cost, and its budget (a line now, and in the summary). The plan reads case files; the
    ``tests`` that use the fixture are counted, not planned."""
    if config.option.collectonly or REPORTER_KEY not in config.stash:
        return
    plan = citations.recording_plan()
    if plan is None:
        return
    plan = replace(plan, tests=tests)
    reporter = config.stash[REPORTER_KEY]
    reporter.add_plan(plan)
    terminal = config.pluginmanager.get_plugin("terminalreporter")
    if terminal is not None:
        terminal.write_line(printed(f"citations: {reporter.plan_line()}"))


@pytest.hookimpl(wrapper=True, tryfirst=True)  # outermost: after the progress line ends
def pytest_runtestloop(session: pytest.Session) -> Any:
    """Go on after collection errors when every one came from a case file (a broken Python
    module stops the run as it does without ``--citations``). With ``--citations-drift``,
    check the cassettes against the live web once the tests ran (their replay filled the
    embedding cache the check then reads)."""
    config = session.config
    if session.testsfailed and config.stash.get(OTHER_ERRORS_KEY, None) == 0:
        config.option.continue_on_collection_errors = True
    result = yield
    options = config.stash[OPTIONS_KEY]
    if options.enabled and options.drift and not session.shouldstop:
        found = check_drift(
            session, session_of(config), config.pluginmanager.get_plugin("terminalreporter")
        )
        if REPORTER_KEY in config.stash:
            config.stash[REPORTER_KEY].add_drift(found)
    return result


def pytest_report_header(config: pytest.Config) -> list[str] | None:
    """One line that says how to reproduce the run."""
    options = config.stash[OPTIONS_KEY]
    if not options.enabled:
        return None
    return [printed(header_line(config, options))]


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """Under xdist's default ``load`` scheduling, keep each case file on one worker so that
    ``-n N`` costs exactly what a serial run costs."""
    options = config.stash[OPTIONS_KEY]
    if options.enabled and config.getoption("dist", None) == "load":
        return case_file_scheduler(config, log, options.case_globs)
    return None


def pytest_report_teststatus(
    report: pytest.TestReport, config: pytest.Config
) -> tuple[str, str, tuple[str, dict[str, bool]]] | None:
    """Verbose output shows each claim's label, and unverified citations even on a pass."""
    if report.when != "call" or not report.passed:
        return None
    found = result_of(report, config)
    claim = found.claim if found is not None else None
    if claim is None:
        return None
    unverified = [c for c in claim.citations if c.label.value in UNVERIFIED]
    word = f"PASSED [{claim.label}]"
    if not unverified:
        return "passed", ".", (word, {"green": True})
    word += " " + ", ".join(
        f"{c.label.value}:{c.reason}" if c.reason else c.label.value for c in unverified
    )
    return "passed", ".", (word, {"yellow": True})


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    """Hand a case-file item's record to its report (junitxml never prints it), note that a
    test's call phase ended (the fixture writes its cassette only then), and under GitHub
    Actions make the failure of a case item or of a test using the fixture (page text, URLs)
    text the runner reads no command in."""
    report = yield
    if isinstance(item, _CaseItem):
        own_time(item, report)
        attach_where(item.where, report)
    attach_result(item, report)
    uses_fixture = "citation_verifier" in getattr(item, "fixturenames", ())
    if uses_fixture:
        note_call_done(item, call)
    if uses_fixture or CASE_MARKER in item.keywords:
        neutralise_failure(report)
    return report


@pytest.hookimpl(wrapper=True)
def pytest_make_collect_report(collector: pytest.Collector) -> Any:
    """Hand the problems of a case file that could not be collected, each at its line, to
    its report (the GitHub annotations point at them), and count the collection errors of
    everything else; a case file's explanation, like a failing item's, carries no workflow
    command under GitHub Actions."""
    report = yield
    attach_problems(collector, report)
    if report.failed and OTHER_ERRORS_KEY in collector.config.stash and problems_of(report) is None:
        collector.config.stash[OTHER_ERRORS_KEY] += 1
    if isinstance(collector, CaseFile):
        neutralise_failure(report)
    return report


def pytest_assertrepr_compare(
    config: pytest.Config, op: str, left: object, right: object
) -> list[str] | None:
    """``assert verdict.label == "supported"`` explains the verdict: the claim, and each
    citation's label, reason and quote."""
    return label_comparison(op, left, right)


def pytest_sessionfinish(session: pytest.Session) -> None:
    """Hand this process's spending and cassette notes to the reporter (or, on an xdist
    worker, to the controller), then close the session."""
    config = session.config
    deselected = list(config.stash.get(DESELECTED_KEY, {}).values())
    if hasattr(config, "workeroutput"):
        config.workeroutput[DESELECTED_OUTPUT] = [item.to_dict() for item in deselected]
        hand_over(config, config.workeroutput)
        identity.hand_over(config, config.workeroutput)
    elif REPORTER_KEY in config.stash:
        config.stash[REPORTER_KEY].add_deselected(deselected)
    citations = config.stash.get(SESSION_KEY, None)
    if citations is None:
        return
    notes, unplayed = citations.library.notes(), citations.library.stale_counts()
    if hasattr(config, "workeroutput"):
        config.workeroutput[USAGE_OUTPUT] = citations.usage.to_dict()
        config.workeroutput[NOTES_OUTPUT] = notes
        config.workeroutput[UNPLAYED_OUTPUT] = unplayed
    elif REPORTER_KEY in config.stash:
        config.stash[REPORTER_KEY].add_process(citations.usage, notes, unplayed)
    citations.close()
    del config.stash[SESSION_KEY]


def pytest_unconfigure(config: pytest.Config) -> None:
    """Close whatever is still open and unregister the plugin's helpers."""
    citations = config.stash.get(SESSION_KEY, None)
    if citations is not None:
        citations.close()
        del config.stash[SESSION_KEY]
    keys: tuple[pytest.StashKey[Any], ...] = (REPORTER_KEY, NOT_RUN_KEY)
    for key in keys:  # the helper plugins registered in pytest_configure
        helper = config.stash.get(key, None)
        if helper is not None:
            del config.stash[key]
            config.pluginmanager.unregister(helper)
    logs = config.stash.get(LOGS_KEY, None)
    if logs is not None:
        del config.stash[LOGS_KEY]
        logs.uninstall()
