"""The reporter: gathers claim records and case decisions (from this process or from xdist
workers), decides the run's own gates once, writes the report files, and prints the lines
:mod:`pytest_citations.reports.terminal` builds. Registered only where reports are made
(never on an xdist worker), like pytest's own junitxml plugin."""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from ..distribution import __version__
from ..drift import DriftReport
from ..errors import AccountError, CitationsError
from ..gating.base_report import load_base
from ..gating.baseline import Baseline, Reconciliation
from ..gating.calibration import Agreement
from ..gating.conclusion import Base, conclude
from ..gating.decisions import RunDecision
from ..gating.regression_lines import comparison_lines
from ..gating.release import release_of
from ..gating.run_report import RunReport
from ..gating.shards import ShardPlan
from ..paths import shown
from ..pipeline.backends import Backends
from ..pipeline.settings import Settings
from ..reports import WRITERS, RunInfo
from ..reports.github import (
    commands,
    regression_annotations,
    regressions_of,
    under_github_actions,
)
from ..reports.markdown_report import render, whole_run
from ..reports.spending import plan_line
from ..reports.terminal import summary_lines
from ..sanitize import strip_controls
from ..upkeep.prune import prune_command, stale_tally
from ..usage import Spending, SpendPlan, Usage
from . import identity
from .items import CASE_MARKER
from .options import RUN_ID_KEY, Options
from .outcomes import (
    ItemLog,
    add_sites,
    append_summary,
    github_place,
    junit_path,
    step_summary,
)
from .printing import printed
from .results import result_of
from .scheduling import matches_any
from .sharding import plan_of

#: Keys of what an xdist worker hands to the controller in ``workeroutput``.
USAGE_OUTPUT, NOTES_OUTPUT = "citations_usage", "citations_cassette_notes"
DESELECTED_OUTPUT = "citations_deselected"


def is_full_run(config: pytest.Config) -> bool:
    """No selection narrowed the run (``-k``, ``-m``, ``--deselect``, ``--lf``, or a node id
    such as ``cases/x.yaml::case::claim-1`` that runs part of a file)."""
    option = config.option
    return not (
        getattr(option, "keyword", "")
        or getattr(option, "markexpr", "")
        or getattr(option, "deselect", None)
        or getattr(option, "lf", False)
        or any("::" in str(arg) for arg in config.args)
    )


class CitationsReporter:
    """One per run, where the run's reports are made."""

    def __init__(self, config: pytest.Config, options: Options) -> None:
        self.base: Base | None = None
        try:  # read before anything runs: a damaged baseline or base is the user's to fix
            if options.baseline is not None:
                Baseline.load(options.baseline)
            if options.compare is not None:
                self.base = Base(load_base(options.compare), options.gates.compare or "")
        except CitationsError as error:
            raise pytest.UsageError(printed(f"citations: {error}")) from None
        #: ``--citations-shard``: which files each shard runs (from collection, or from an
        #: xdist worker).
        self.shard: ShardPlan | None = None
        #: The digests of the case files (from an xdist worker; a serial run's are its own)
        #: and, read before anything runs, of the cassettes: the run's identity in the JSON
        #: report, which alone needs them.
        self.case_files: dict[str, str] | None = None
        replays = not options.record_mode.records
        self.cassettes = (
            identity.cassettes_digest(options.cassette_dir)
            if "json" in options.reports and replays
            else None
        )
        self.config = config
        self.options = options
        self.report = RunReport()
        self.decision = RunDecision()
        self.agreement: Agreement | None = None
        self.baseline: Reconciliation | None = None
        self.drift: DriftReport | Exception | None = None
        #: The run's settings and backends (for the pages the stale count reads).
        self.settings: tuple[Settings, Backends] | None = None
        #: Why each report file that could not be written was not (each left as it was).
        self.unwritten: list[str] = []
        #: Where each case item is and how it ended (JUnit sites, GitHub annotations).
        self.items = ItemLog()
        self.junit = junit_path(config)
        #: What the CI outputs (the JUnit sites, the job summary) could not take: said, never
        #: a failed gate.
        self.ci_notes: list[str] = []
        self.info = RunInfo(
            plugin_version=__version__,
            judge=options.judge.provider,
            model=options.judge.model,
            embedder=options.embedding_model,
            record_mode=options.record_mode.value,
            started=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            run_id=config.stash[RUN_ID_KEY],
            gates=options.gates,
            files=tuple((name, str(path)) for name, path in options.reports.items()),
        )

    def add_drift(self, found: DriftReport | Exception) -> None:
        """The drift check's report, or why it could not run."""
        self.drift = found
        if isinstance(found, DriftReport):
            self.report.drift = found.to_dict()
        else:
            self.report.drift = {"error": strip_controls(str(found)), "failed": True}

    def add_settings(self, settings: Settings, backends: Backends) -> None:
        """The run's budget and what recording needs, for the summary's next steps."""
        self.settings = (settings, backends)
        prefix = shown(self.config.rootpath, self.options.root)
        self.report.spending = Spending(
            budget=settings.budgets,
            record_variables=tuple(settings.required(backends)),
            file_prefix="" if prefix == "." else f"{prefix}/",
            holders=1,
        )

    def add_plan(self, plan: SpendPlan) -> None:
        """What the run was about to record when it started (a recording run)."""
        self.report.spending = replace(self.report.spending, plan=plan)

    def plan_line(self) -> str:
        """The plan and the budget, as the summary shows them."""
        spending = self.report.spending
        return plan_line(spending.plan or SpendPlan(), spending.budget)

    def add_process(self, usage: Usage, notes: list[str]) -> None:
        """What one process (this one or an xdist worker) spent and left unrecorded."""
        self.report.usage.add(usage)
        self.report.add_cassette_notes(notes)

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        """A case file that could not be collected is not checked: never a pass."""
        path = report.nodeid.split("::", 1)[0]
        if report.failed and path and matches_any(Path(path), self.options.case_globs):
            lines = str(report.longrepr).strip().splitlines()
            why = lines[0].split(": ", 1)[-1] if lines else "it could not be read"
            self.report.add_file_error(path, f"not collected: {strip_controls(why)}")
            self.items.add_collected(report)

    def add_deselected(self, nodeids: Iterable[str]) -> None:
        """Case items the user's selection left out (from this process or a worker)."""
        self.report.deselected.update(nodeids)

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        """Collect a claim's record, a case's decision, a file that was not verified, or a
        case item that did not run."""
        if CASE_MARKER in report.keywords:
            self.items.add(report, result_of(report, self.config))
        if report.when == "setup" and report.skipped and CASE_MARKER in report.keywords:
            self.report.add_skipped(report.nodeid)
            return
        # A claim that could not be checked is an error in setup; its record is there.
        if report.when != "call" and not (report.when == "setup" and report.failed):
            return
        found = result_of(report, self.config)
        if found is None:
            return
        if found.claim is not None:
            self.report.add_claim(found.claim)
        if found.case is not None:
            self.report.add_case(found.case)
        if found.file_error is not None:
            self.report.add_file_error(*found.file_error)

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: Any, error: Any) -> None:
        """Merge an xdist worker's spending and cassette notes."""
        output = getattr(node, "workeroutput", {})
        if USAGE_OUTPUT in output:
            self.add_process(Usage.from_dict(output[USAGE_OUTPUT]), output.get(NOTES_OUTPUT, []))
        self.add_deselected(output.get(DESELECTED_OUTPUT, ()))
        self.shard = self.shard or plan_of(self.config, output)
        self.case_files = self.case_files or identity.case_files_of(self.config, output)

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        """Decide the run's gates, write the baseline and the reports, set the exit status."""
        self.shard = self.shard or plan_of(self.config)
        if not self.report and self.shard is None:
            return
        if self.shard is not None:  # a file another shard runs is that shard's to report
            shard = self.shard
            errors = self.report.file_errors
            self.report.file_errors = {f: why for f, why in errors.items() if shard.owns(f)}
        conclusion = conclude(self.report, self.options.gates, self.base, in_scope=self._in_scope)
        self.decision, self.agreement = conclusion.decision, conclusion.agreement
        # Before _baseline(): an update run rewrites the baseline file there.
        self.info = self.info.with_results(
            self.agreement, self.options.baseline, conclusion.comparison
        )
        planned = self.shard.with_case_files(self._case_files()) if self.shard else None
        self.info = replace(self.info, shard=planned, identity=self._identity())
        self.baseline = self._baseline()
        for name, path in self.options.reports.items():
            try:
                WRITERS[name](path, self.report, self.decision, self.info)
            except CitationsError as error:  # a full disk, a folder that cannot be made
                self.unwritten.append(f"FAIL {name} report not written: {error}")
        self._ci_outputs()
        self._exit_status(session)

    def _case_files(self) -> dict[str, str]:
        """The digest of each case file the run collected (here or on a worker)."""
        return self.case_files or identity.case_files_of(self.config) or {}

    def _identity(self) -> dict[str, Any]:
        """The run's identity, for the JSON report (none without one)."""
        if "json" not in self.options.reports:
            return {}
        return identity.run_identity(self.options, self._case_files(), self.cassettes)

    def _exit_status(self, session: pytest.Session) -> None:
        """The exit status never contradicts the printed decision, whatever marks say."""
        failed = release_of(self.report, self.decision).failed or bool(self.unwritten)
        if self.baseline is not None and self.baseline.fails(self.options.baseline_fail_unused):
            failed = True  # as syrupy fails a run that leaves unused snapshots
        if isinstance(self.drift, DriftReport):
            failed = failed or self.drift.failed
        elif self.drift is not None:  # a check that could not run is never a pass
            failed = True
            if isinstance(self.drift, AccountError):
                session.exitstatus = pytest.ExitCode.INTERRUPTED
        if session.exitstatus == pytest.ExitCode.NO_TESTS_COLLECTED and self.shard is not None:
            # Every file collected is another shard's: this shard has done its part.
            session.exitstatus = pytest.ExitCode.OK
        if failed and session.exitstatus == pytest.ExitCode.OK:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED

    def _ci_outputs(self) -> None:
        """The case items' JUnit sites (after pytest's junitxml wrote its file: this hook
        runs last) and the job summary under GitHub Actions."""
        if self.junit is not None and self.items.sites:
            prefix = self.config.getoption("junitprefix", None)
            note = add_sites(self.junit, self.items.sites, prefix)
            self.ci_notes += [note] if note else []
        summary = step_summary()
        if summary is not None:
            markdown = render(self.report, self.decision, self.info)
            note = append_summary(summary, markdown, whole_run(self.info))
            self.ci_notes += [note] if note else []

    def _in_scope(self, file: str) -> bool:
        """Whether this run answers for a case file of the base: a shard for its own
        files, a selection (``-k``, ``-m``, a node id) for the files it ran."""
        if self.shard is not None:
            return self.shard.owns(file)
        if is_full_run(self.config):
            return True
        return file in {case.file for case in self.report.cases} | set(self.report.file_errors)

    def _baseline(self) -> Reconciliation | None:
        path = self.options.baseline
        if path is None:
            return None
        claims = self.report.claims
        root = self.config.rootpath
        shard = self.shard
        return Baseline.load(path).reconcile(
            claims,
            {c.nodeid: (c.baseline.kind, c.baseline.old_label) for c in claims if c.baseline},
            shown=shown(path, self.options.root),
            update_to=path if self.options.update_baseline else None,
            full_run=is_full_run(self.config),
            present=lambda nodeid: (root / nodeid.split("::", 1)[0]).exists(),
            unchecked=frozenset(c.nodeid for c in claims if c.decision == "incomplete"),
            owned=shard.owns_node if shard is not None else None,
        )

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        """Print the ``citations`` section."""
        if not self.report and self.shard is None:
            return
        terminalreporter.section("citations")
        report = self.options.report
        baseline = self.baseline
        comparison = self.info.comparison
        lines = summary_lines(
            self.report,
            self.decision,
            baseline=baseline.lines(fail_unused=self.options.baseline_fail_unused)
            if baseline is not None
            else (),
            comparison=comparison_lines(comparison) if comparison is not None else (),
            shard=self.shard,
            calibration=self.agreement.lines() if self.agreement is not None else (),
            report_path=str(report) if report is not None else None,
            min_precision=self.options.min_precision,
        )
        for line in lines:
            markup = {line.colour: True} if line.colour else {}
            # Records are cleaned where they are made; this also covers worker records.
            terminalreporter.write_line(printed(line.text), **markup)
        stale = self._stale_line()
        if stale is not None:
            terminalreporter.write_line(printed(stale), yellow=True)
        for text in self.unwritten:
            terminalreporter.write_line(printed(text), red=True)
        for text in self.ci_notes:
            terminalreporter.write_line(printed(text), yellow=True)
        self._drift_summary(terminalreporter)
        if under_github_actions():  # after every other line: GitHub hides these
            place = github_place(self.config.rootpath)
            worse = regressions_of(self.report, self.info)
            annotations = self.items.annotations(place) + regression_annotations(worse, place)
            for command in commands(annotations):
                terminalreporter.write_line(command)

    def _stale_line(self) -> str | None:
        """How many recordings of the cassette folder no case file needs any more
        (:mod:`pytest_citations.upkeep.prune`), said by a run that covers every case file:
        no selection, and no other shard's files (an xdist run counts here, on the
        controller, once its workers wrote their cassettes)."""
        shard = self.shard
        if not is_full_run(self.config) or self.settings is None:
            return None
        if shard is not None and len(shard.files) < len(shard.assignment):
            return None
        options = self.options
        settings, backends = self.settings
        try:
            tally = stale_tally(
                options.cassette_dir,
                options.root,
                settings,
                backends=backends,
                trust=options.trusted_keys,
            )
        except (CitationsError, OSError):  # the run says what is wrong with its cassettes
            return None
        return tally.line(prune_command(options.cassette_dir, options.root))

    def _drift_summary(self, terminalreporter: Any) -> None:
        drift = self.drift
        if drift is None:
            return
        if not isinstance(drift, DriftReport):
            text = f"drift check could not run: {drift}"
            terminalreporter.write_line(printed(text), red=True)
            return
        *lines, decision = drift.lines()  # the last line is the decision
        for line in lines:
            terminalreporter.write_line(printed(line))
        colour = {"red": True} if drift.failed else {"green": True}
        terminalreporter.write_line(printed(decision), **colour)
