"""The reporter: gathers what the run found (from this process or from xdist workers), has it
decided once as the run's result (:func:`~pytest_citations.gating.build.build_run`), writes
the baseline and the report files, and prints the lines
:mod:`pytest_citations.reports.terminal` builds; the exit status is the result's. Registered
only where reports are made (never on an xdist worker), like pytest's own junitxml plugin."""

from __future__ import annotations

import os
import time
from collections.abc import Iterable
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import pytest

from ..distribution import __version__
from ..errors import AccountError, CitationsError
from ..gating.build import Findings, build_run
from ..gating.result import Location
from ..gating.run_result import Base, BaselineFacts, RunResult
from ..network.usage import Spending, SpendPlan, Usage
from ..paths import shown
from ..pipeline.backends import Backends
from ..pipeline.settings import Settings
from ..recording.unplayed import Unplayed, folder_tally, prune_command
from ..reports import RENDERERS, RunInfo, write_report
from ..reports.github import annotations_of, under_github_actions
from ..reports.info import SourceLinks
from ..reports.markdown_report import whole_run
from ..reports.spending import plan_line
from ..reports.terminal import summary_lines
from ..sanitize import strip_controls
from . import identity
from .github import append_summary, step_summary
from .items import CASE_MARKER
from .options import RUN_ID_KEY, Options
from .printing import printed
from .results import problems_of, result_of, where_of
from .session import baseline_of
from .sharding import plan_of

if TYPE_CHECKING:  # the drift engine and the shard plan load only in a run that uses them
    from ..drift.report import DriftReport
    from ..gating.shards import ShardPlan

#: Keys of what an xdist worker hands to the controller in ``workeroutput``.
USAGE_OUTPUT, NOTES_OUTPUT = "citations_usage", "citations_cassette_notes"
UNPLAYED_OUTPUT = "citations_unplayed"
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
            baseline_of(config, options)
            if options.compare is not None:
                # The comparison with a base loads only for a run compared with one.
                from ..gating.base_report import read_base

                self.base = read_base(options.compare, options.gates.compare or "")
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
        self.found = Findings()
        self.result: RunResult | None = None
        self.drift: DriftReport | Exception | None = None
        #: What each case file's replay left stale of its cassette (see
        #: :func:`~pytest_citations.recording.unplayed.unplayed`), and whether xdist
        #: workers replayed them.
        self.unplayed: dict[str, Unplayed | None] = {}
        self.workers = False
        #: Why each report file that could not be written was not (each left as it was).
        self.unwritten: list[str] = []
        #: What the job summary could not take: said, never a failed gate.
        self.ci_notes: list[str] = []
        self.info = RunInfo(
            plugin_version=__version__,
            judge=options.judge.provider,
            model=options.judge.model,
            embedder=options.embedding_model,
            record_mode=options.record_mode.value,
            started=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            run_id=config.stash[RUN_ID_KEY],
            files=tuple((name, str(path)) for name, path in options.reports.items()),
            links=SourceLinks.from_env(
                os.environ, config.rootpath, options.source_sha, options.artifact
            ),
        )

    def add_drift(self, found: DriftReport | Exception) -> None:
        """The drift check's report, or why it could not run."""
        self.drift = found
        if isinstance(found, Exception):
            self.found.drift = {"error": strip_controls(str(found)), "failed": True}
        else:
            self.found.drift = found.to_dict()

    def add_settings(self, settings: Settings, backends: Backends) -> None:
        """The run's budget and what recording needs, for the summary's next steps."""
        prefix = shown(self.config.rootpath, self.options.root)
        self.found.spending = Spending(
            budget=settings.spending.given,
            record_variables=tuple(settings.required(backends)),
            file_prefix="" if prefix == "." else f"{prefix}/",
            holders=1,
        )

    def add_plan(self, plan: SpendPlan) -> None:
        """What the run was about to record when it started (a recording run)."""
        self.found.spending = replace(self.found.spending, plan=plan)

    def plan_line(self) -> str:
        """The plan and the budget, as the summary shows them."""
        spending = self.found.spending
        return plan_line(spending.plan or SpendPlan(), spending.budget)

    def add_process(
        self, usage: Usage, notes: list[str], unplayed: dict[str, Unplayed | None]
    ) -> None:
        """What one process (this one or an xdist worker) spent, left unrecorded, and left
        stale of each cassette it replayed (two that replayed one file must agree)."""
        self.found.usage.add(usage)
        self.found.add_cassette_notes(notes)
        for path, found in unplayed.items():
            found = None if found is None else (found[0], found[1])  # a list from a worker
            self.unplayed[path] = found if self.unplayed.get(path, found) == found else None

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        """A case file that could not be collected is not checked: never a pass."""
        error = problems_of(report)
        if error is not None:
            self.found.add_file_error(error)

    def add_deselected(self, items: Iterable[Location]) -> None:
        """Case items the user's selection left out (from this process or a worker)."""
        self.found.add_deselected(items)

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        """Collect a claim's result, a decided case, a file that was not verified, or a case
        item that did not run."""
        if report.when == "setup" and report.skipped and CASE_MARKER in report.keywords:
            where = where_of(report)
            if where is not None:
                self.found.add_skipped(where)
            return
        # A claim that could not be checked is an error in setup; its result is there.
        if report.when != "call" and not (report.when == "setup" and report.failed):
            return
        found = result_of(report, self.config)
        if found is None:
            return
        if found.claim is not None and found.case is not None:
            self.found.add_claim(found.case, found.claim)
        elif found.decided and found.case is not None:
            self.found.add_case(found.case, found.decision)
        if found.file_error is not None:
            self.found.add_file_error(found.file_error)

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: Any, error: Any) -> None:
        """Merge an xdist worker's spending, cassette notes and what it deselected."""
        output = getattr(node, "workeroutput", {})
        self.workers = True
        if USAGE_OUTPUT in output:
            usage = Usage.from_dict(output[USAGE_OUTPUT])
            self.add_process(usage, output.get(NOTES_OUTPUT, []), output.get(UNPLAYED_OUTPUT, {}))
        self.add_deselected(Location.from_dict(item) for item in output.get(DESELECTED_OUTPUT, ()))
        self.shard = self.shard or plan_of(self.config, output)
        self.case_files = self.case_files or identity.case_files_of(self.config, output)

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        """Decide the run, write the baseline and the reports, set the exit status."""
        self.shard = self.shard or plan_of(self.config)
        if not self.found and self.shard is None:
            return
        if self.shard is not None:  # a file another shard runs is that shard's to report
            errors = self.found.file_errors
            self.found.file_errors = {f: e for f, e in errors.items() if self.shard.owns(f)}
        result = build_run(
            self.found,
            self.options.gates,
            base=self.base,
            in_scope=self._in_scope,
            baseline=self._stored(),
        )
        self.result = self._reconciled(result)
        planned = self.shard.with_case_files(self._case_files()) if self.shard else None
        self.info = replace(self.info, shard=planned, identity=self._identity())
        self._write(self.result)
        self._exit_status(session, self.result)

    def _stored(self) -> BaselineFacts | None:
        """The precision the baseline stored per case, read before an update rewrites it."""
        baseline = baseline_of(self.config, self.options)
        if baseline is None or self.options.baseline is None:
            return None
        return BaselineFacts(
            shown(self.options.baseline, self.options.root), baseline.stored_precision()
        )

    def _reconciled(self, result: RunResult) -> RunResult:
        """The run's claims against the baseline, and the update written when asked."""
        baseline = baseline_of(self.config, self.options)
        path = self.options.baseline
        if baseline is None or path is None or result.baseline is None:
            return result
        root, shard = self.config.rootpath, self.shard
        reconciled = baseline.reconcile(
            result.claims,
            shown=result.baseline.name,
            full_run=is_full_run(self.config),
            present=lambda file: (root / file).exists(),
            owned=shard.owns if shard is not None else None,
        )
        if self.options.update_baseline:
            reconciled = baseline.update(path, result.claims, reconciled)
        return replace(result, baseline=replace(result.baseline, reconciliation=reconciled))

    def _write(self, result: RunResult) -> None:
        """Every report asked for, and the job summary under GitHub Actions: each rendered
        once (the Markdown serves both)."""
        summary = step_summary()
        names = list(self.options.reports) + (["markdown"] if summary is not None else [])
        texts = {name: RENDERERS[name](result, self.info) for name in dict.fromkeys(names)}
        for name, path in self.options.reports.items():
            problem = write_report(name, path, texts[name])
            self.unwritten += [problem] if problem is not None else []
        if summary is not None:
            note = append_summary(summary, texts["markdown"], whole_run(self.info))
            self.ci_notes += [note] if note else []

    def _case_files(self) -> dict[str, str]:
        """The digest of each case file the run collected (here or on a worker)."""
        return self.case_files or identity.case_files_of(self.config) or {}

    def _identity(self) -> dict[str, Any]:
        """The run's identity, for the JSON report (none without one)."""
        if "json" not in self.options.reports:
            return {}
        return identity.run_identity(self.options, self._case_files(), self.cassettes)

    def _exit_status(self, session: pytest.Session, result: RunResult) -> None:
        """The exit status never contradicts the printed decision, whatever marks say."""
        failed = result.failed or bool(self.unwritten)
        if isinstance(self.drift, AccountError):  # a check that could not run stops the run
            session.exitstatus = pytest.ExitCode.INTERRUPTED
        if session.exitstatus == pytest.ExitCode.NO_TESTS_COLLECTED and self.shard is not None:
            # Every file collected is another shard's: this shard has done its part.
            session.exitstatus = pytest.ExitCode.OK
        if failed and session.exitstatus == pytest.ExitCode.OK:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED

    def _in_scope(self, file: str) -> bool:
        """Whether this run answers for a case file of the base: a shard for its own
        files, a selection (``-k``, ``-m``, a node id) for the files it ran."""
        if self.shard is not None:
            return self.shard.owns(file)
        if is_full_run(self.config):
            return True
        ran = {info.file for info in self.found.cases.values()}
        return file in ran or file in self.found.file_errors

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        """Print the ``citations`` section."""
        result = self.result
        if result is None:
            return
        terminalreporter.section("citations")
        for line in summary_lines(result, self.info):
            markup = {line.colour: True} if line.colour else {}
            # Results are cleaned where they are made; this also covers worker results.
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
            for annotation in annotations_of(result, self.info.links.place):
                terminalreporter.write_line(annotation.command())

    def _stale_line(self) -> str | None:
        """How many recordings of the cassette folder no case file needs any more, counted
        from what the replay played (:mod:`pytest_citations.recording.unplayed`: the figure
        ``cassettes prune`` lists), said by a run that covers every case file: no
        selection, and no other shard's files. Under xdist the controller says it once, from
        what its workers replayed, when they only replayed (each writes what it records)."""
        shard = self.shard
        if not is_full_run(self.config):
            return None
        if shard is not None and len(shard.files) < len(shard.assignment):
            return None
        options = self.options
        if self.workers and options.record_mode.records:
            return None
        try:
            tally = folder_tally(
                options.cassette_dir, options.root, self.unplayed, options.trusted_keys
            )
        except (CitationsError, OSError):  # the run says what is wrong with its cassettes
            return None
        if tally is None or not tally.recordings:
            return None
        return tally.line(prune_command(options.cassette_dir, options.root))

    def _drift_summary(self, terminalreporter: Any) -> None:
        drift = self.drift
        if drift is None:
            return
        if isinstance(drift, Exception):
            text = f"drift check could not run: {drift}"
            terminalreporter.write_line(printed(text), red=True)
            return
        *lines, decision = drift.lines()  # the last line is the decision
        for line in lines:
            terminalreporter.write_line(printed(line))
        colour = {"red": True} if drift.failed else {"green": True}
        terminalreporter.write_line(printed(decision), **colour)


__all__ = [
    "DESELECTED_OUTPUT",
    "NOTES_OUTPUT",
    "UNPLAYED_OUTPUT",
    "USAGE_OUTPUT",
    "CitationsReporter",
]
