"""The one object a pytest process shares between case-file items and the fixture: the
settings, the cassettes, the verifier, and each case file's outcome. Built by one factory
(:func:`session_of`) because custom items cannot request fixtures.

A case file is verified once, on its first item; every claim is then assessed against its
case's criteria once, here, into a typed record and the text its item reports.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest

from ..assertions import explain
from ..audit import AuditLog
from ..backends import Backends
from ..cases import Case, Claim
from ..errors import AccountError, CitationsError, ConfigurationError
from ..gating.baseline import Baseline, side_by_side
from ..gating.criteria import ClaimAssessment, ClaimFacts, Criteria, assess_claim
from ..network import make_http_client, network_transport
from ..paths import shown
from ..recording import (
    CassetteLibrary,
    CassetteSession,
    CassetteTransport,
    build_vcr,
    keep_builtin_scrubbing,
)
from ..recording.pages import mirrored_cassette
from ..redact import LogRedaction
from ..reports import BaselineChange
from ..settings import Settings
from ..sync import SyncVerifier
from ..verdicts import ClaimVerdict, Usage
from ..verifier import ClaimRequest, Verifier
from .ahead import VerifyAhead
from .options import BACKENDS_KEY, OPTIONS_KEY, RUN_ID_KEY, Options
from .outcomes import (
    CaseResult,
    ClaimOutcome,
    case_result,
    claim_record,
    notes,
    unchecked_message,
    with_baseline,
)

SESSION_KEY = pytest.StashKey["CitationsSession"]()


class FileNotVerified(Exception):
    """A whole case file could not be verified (a damaged cassette, a refused token)."""

    def __init__(self, message: str, *, stop: bool) -> None:
        super().__init__(message)
        self.stop = stop


@dataclass(frozen=True)
class FileOutcome:
    """Every claim and case of a case file."""

    claims: dict[tuple[str, int], ClaimOutcome]
    cases: dict[str, CaseResult]


def build_settings(options: Options, embedding_cache: Path | None, backends: Backends) -> Settings:
    """Engine settings for this session, with every variable the ``backends`` declare (a
    judge a plugin registered included). A replay needs no token: requests carry
    placeholders, and none that a recording answers reaches the network."""
    try:
        settings = Settings.from_env(
            None,
            backends=backends,
            judge_provider=options.judge,
            # Always the plugin's choice (None: the provider's default), never a model that
            # from_env read for the provider JUDGE_PROVIDER names when another was chosen.
            judge_model=options.model,
            concurrency=options.concurrency,
            embedding_model=options.embedding_model,
            embedding_cache_dir=embedding_cache,
            fetcher=options.fetcher,
            **options.limits,
        )
    except ConfigurationError as error:  # CITATIONS_TIMEOUT=abc, say, read here
        raise pytest.UsageError(f"citations: {error}") from None
    if not (options.record_mode.records or options.drift):
        # No waiting on a recorded Retry-After.
        settings = settings.replace(backoff=0.0, max_backoff=0.0)
    return settings


def check_recording_secrets(options: Options, settings: Settings, backends: Backends) -> None:
    """Recording needs real secrets: one usage error names every missing variable."""
    live = options.record_mode.records or options.drift
    missing = backends.missing(settings) if live else []
    if missing:
        asked = (
            f"--citations-record={options.record_mode.value}"
            if options.record_mode.records
            else "--citations-drift"
        )
        raise pytest.UsageError(
            f"{asked} sends requests and needs "
            f"{' and '.join(missing)}; set {'it' if len(missing) == 1 else 'them'} in the "
            "environment (replay with the default --citations-record=none needs no token)"
        )


class CitationsSession:
    """Settings, cassettes, the verifier and per-file outcomes for one pytest process."""

    def __init__(self, config: pytest.Config, options: Options) -> None:
        self.config = config
        self.options = options
        self.root = options.root
        cache = getattr(config, "cache", None)  # absent with -p no:cacheprovider
        folder = Path(cache.mkdir("citations-embeddings")) if cache is not None else None
        self.backends = config.stash[BACKENDS_KEY]
        self.settings = build_settings(options, folder, self.backends)
        check_recording_secrets(options, self.settings, self.backends)
        self.redaction = LogRedaction(self.settings.redactor()).install()
        #: The VCR configuration after the ``pytest_citations_vcr`` hooks (drift uses it too).
        self.vcr_config = build_vcr(self.settings.redactor())
        config.hook.pytest_citations_vcr(config=config, vcr=self.vcr_config)
        keep_builtin_scrubbing(self.vcr_config, self.settings.redactor())
        self.library = CassetteLibrary(
            self.vcr_config, options.record_mode, self.record_command, root=self.root
        )
        self.audit = (
            AuditLog(options.audit, run_id=config.stash[RUN_ID_KEY]) if options.audit else None
        )
        self.baseline = Baseline.load(options.baseline) if options.baseline else None
        self._verifier: SyncVerifier | None = None
        self._plan: list[tuple[Path, Sequence[Case]]] = []
        self._ahead: VerifyAhead | None = None
        self._outcomes: dict[Path, FileOutcome | FileNotVerified] = {}
        #: Each cassette's source, for the command that records it.
        self._sources: dict[Path, str] = {}

    # Cassettes ------------------------------------------------------------------------
    def cassette_path(self, source: Path) -> Path:
        """The cassette of a case file: its path mirrored under the cassette folder, its
        suffix kept (``a.yaml`` and ``a.yml`` are two files, so two cassettes)."""
        path = mirrored_cassette(source, self.options.cassette_dir, self.root)
        self._sources.setdefault(path, shown(source, self.root))
        return self.library.assign(
            path, source.resolve(), f"the case file {shown(source, self.root)}"
        )

    def test_cassette_path(self, item: pytest.Item, *, opening: bool = False) -> Path:
        """A test's cassette in pytest-recording's layout,
        ``<cassettes>/<test dir>/<module>/<Class>.<test>.yaml`` (the module's path relative to
        the rootdir, so two tests of one name in two folders never share a file).

        A cassette of the older layout, ``<cassettes>/<module stem>/<test>.yaml``, is still
        read while the new one does not exist (unless it is another source's cassette now):
        a replay reads it as it is, and a recording run (``opening``: the fixture is about to
        open it) first copies it to the new path, so that nothing recorded is sent again and
        new recordings go only to the new path."""
        # Imported here: this method is the only user (the module's imports stay as they are).
        import contextlib
        import hashlib

        from ..recording import parse_cassette, write_cassette
        from ..recording.files import CassetteContentError

        def kept(name: str) -> str:
            return "".join(ch if ch.isalnum() or ch in "-_.[]" else "-" for ch in name)

        def safe(name: str) -> str:
            if len(kept(name).encode("utf-8")) <= 120:
                return kept(name)
            # A long parametrised id: a readable start and a digest of the whole.
            return f"{kept(name)[:60]}-{hashlib.sha256(name.encode('utf-8')).hexdigest()[:12]}"

        module, nodeid, cassettes = item.path, item.nodeid, self.options.cassette_dir
        relative = Path(shown(module, self.root))
        folder = relative.with_suffix("") if not relative.is_absolute() else Path(module.stem)
        classes = [node.name for node in item.listchain() if isinstance(node, pytest.Class)]
        path = cassettes / folder / f"{safe('.'.join([*classes, item.name]))}.yaml"
        self._sources.setdefault(path, nodeid)
        self.library.assign(path, ("test", nodeid), f"the test {nodeid}")
        older = cassettes / module.stem / f"{kept(item.name)}.yaml"
        # Every test was assigned its path at collection; the fixture's call decides.
        if not opening or older == path or path.exists() or not older.is_file():
            return path
        if self._sources.setdefault(older, nodeid) != nodeid:
            return path  # the older file is another case file's or test's cassette now
        if not self.options.record_mode.records:
            return older
        with contextlib.suppress(CassetteContentError, OSError):
            write_cassette(path, parse_cassette(older.read_bytes()))
        return path

    def record_command(self, cassette: Path) -> str:
        """The command that records what a cassette lacks."""
        variables = [f"{name}=…" for name in self.backends.required(self.settings)]
        target = self._sources.get(cassette, str(cassette))
        parts = [*variables, "pytest"]
        parts += ["--citations", target] if target.endswith((".yaml", ".yml")) else [target]
        return " ".join([*parts, "--citations-record=new_episodes"])

    # Verifying -----------------------------------------------------------------------
    @property
    def verifier(self) -> SyncVerifier:
        """The session's verifier, started on first use."""
        if self._verifier is None:
            transport = CassetteTransport(self.library, network_transport(self.settings))
            verifier = Verifier(
                self.settings,
                http=make_http_client(self.settings, transport),
                audit=self.audit,
                backends=self.backends,
                observer=self.library,
            )
            self._verifier = SyncVerifier(verifier)
        return self._verifier

    def verify_in(
        self, cassette: CassetteSession, requests: Sequence[ClaimRequest]
    ) -> list[ClaimVerdict]:
        """Verify claims concurrently with their traffic going to ``cassette``."""
        verifier = self.verifier

        async def run() -> list[ClaimVerdict]:
            with cassette.active():
                return await verifier.verifier.verify_many(requests)

        return verifier.run(run())

    @property
    def planned_files(self) -> list[tuple[Path, Sequence[Case]]]:
        """The case files this process runs, in item order (see :meth:`plan`)."""
        return list(self._plan)

    def plan(self, files: Sequence[tuple[Path, Sequence[Case]]]) -> None:
        """The case files in the order their items will run: the first item's request
        starts them, each ahead of its items (see :mod:`.ahead`). Not on an xdist worker,
        which does not know which files it will be given."""
        self._plan = list(files)

    def outcome(self, path: Path, nodeid: str, cases: Sequence[Case]) -> FileOutcome:
        """Every claim and case of a case file, verified and assessed on first request.
        Raises :class:`FileNotVerified` (for every item of the file) when it could not be."""
        known = self._outcomes.get(path)
        if known is None:
            try:
                ahead = self._verifying_ahead()
                if not ahead.planned(path):
                    self._plan_file(ahead, path, cases)
                known = self._assess_file(nodeid, cases, ahead.result(path))
            except AccountError as error:
                if self._ahead is not None:
                    self._ahead.stop()
                known = FileNotVerified(str(error), stop=True)
            except CitationsError as error:
                known = FileNotVerified(str(error), stop=False)
            self._outcomes[path] = known
        if isinstance(known, FileNotVerified):
            raise known
        return known

    def _verifying_ahead(self) -> VerifyAhead:
        if self._ahead is None:
            self._ahead = VerifyAhead(
                self.verifier.loop,
                self.settings.concurrency,
                proven=self._accounts_answered,
                fatal=(AccountError,),
            )
            for path, cases in self._plan:
                self._plan_file(self._ahead, path, cases)
        return self._ahead

    def _accounts_answered(self) -> bool:
        """A replay uses no account; a recording run has proven its accounts once Crawlbase
        billed a crawl and the judge answered a call, live."""
        if not self.options.record_mode.records:
            return True
        usage = self.usage
        return usage.normal_crawls + usage.javascript_crawls > 0 and usage.judge_calls > 0

    def _plan_file(self, ahead: VerifyAhead, path: Path, cases: Sequence[Case]) -> None:
        """Plan one file's verification, its traffic going to its own cassette."""
        requests = [
            ClaimRequest.of(claim.text, claim.urls, case.retrieved)
            for case in cases
            for claim in case.claims
        ]
        cassette_path = self.cassette_path(path)
        verifier = self.verifier.verifier

        async def verify() -> list[ClaimVerdict]:
            cassette = self.library.open(cassette_path)
            try:
                with cassette.active():
                    return await verifier.verify_many(requests)
            finally:
                cassette.close()

        ahead.plan(path, len(requests), verify)

    def _assess_file(
        self, nodeid: str, cases: Sequence[Case], verdicts: Sequence[ClaimVerdict]
    ) -> FileOutcome:
        pairs = [(case, claim) for case in cases for claim in case.claims]
        by_claim = dict(zip(((c.id, claim.index) for c, claim in pairs), verdicts, strict=True))
        claims: dict[tuple[str, int], ClaimOutcome] = {}
        decided: dict[str, CaseResult] = {}
        for case in cases:
            criteria = self.criteria_for(case)
            assessed = [(claim, self._assess(case, claim, by_claim[(case.id, claim.index)]))
                        for claim in case.claims]  # fmt: skip
            for claim, assessment in assessed:
                claims[(case.id, claim.index)] = self._claim_outcome(
                    nodeid, case, claim, assessment, criteria
                )
            decided[case.id] = case_result(nodeid, case, assessed, criteria)
        return FileOutcome(claims, decided)

    def criteria_for(self, case: Case) -> Criteria:
        """The ini criteria with the case's ``criteria:`` and ``min_precision:`` applied."""
        overrides = dict(case.criteria)
        if case.min_precision is not None:
            overrides["min_precision"] = case.min_precision
        return self.options.criteria.merged(overrides)

    def _assess(self, case: Case, claim: Claim, verdict: ClaimVerdict) -> ClaimAssessment:
        markers = {case.citations[m]: m for m in reversed(claim.markers) if m in case.citations}
        facts = ClaimFacts(topic=claim.topic, general=claim.general, markers=tuple(markers.items()))
        return assess_claim(verdict, facts, self.criteria_for(case))

    def _claim_outcome(
        self, file: str, case: Case, claim: Claim, assessment: ClaimAssessment, criteria: Criteria
    ) -> ClaimOutcome:
        verdict = assessment.verdict
        record = claim_record(file, case, claim, assessment)
        change = None
        if self.baseline is not None and not assessment.incomplete:
            change = self.baseline.compare(record)
            record = with_baseline(record, BaselineChange(change.kind, change.old_label))
        explanation = explain(verdict, claim.markers) + notes(case, verdict)
        if assessment.incomplete:
            message = unchecked_message(verdict, assessment.unchecked, explanation)
            return ClaimOutcome(record, error=message)
        messages = []
        for failure in assessment.failures:
            if failure.criterion == "fail_on":
                failing = ", ".join(criteria.fail_on)
                messages.append(f"claim is {verdict.label.value} (failing labels: {failing})")
            else:
                messages.append(f"claim fails {failure}")
        if change is not None and change.kind == "regression":
            where = shown(self.options.baseline, self.root) if self.options.baseline else ""
            messages.append(f"claim regressed against the baseline {where}\n{side_by_side(change)}")
        if not messages:
            return ClaimOutcome(record)
        if assessment.unchecked:
            messages.append(
                f"also not checked: {len(assessment.unchecked)} of {len(verdict.citations)} "
                "citations\n" + "\n".join(f"  {line}" for line in assessment.unchecked)
            )
        return ClaimOutcome(record, failure="\n".join([*messages, explanation]))

    # Lifecycle -----------------------------------------------------------------------
    @property
    def usage(self) -> Usage:
        """What this process spent."""
        return self._verifier.usage if self._verifier is not None else Usage()

    def close(self) -> None:
        """Stop the verifier, close the audit index and undo the log redaction."""
        if self._verifier is not None:
            if self._ahead is not None:  # files verified ahead and never asked for
                self._verifier.run(self._ahead.aclose())
                self._ahead = None
            self._verifier.close()
            self._verifier = None
        if self.audit is not None:
            self.audit.close()
        self.redaction.uninstall()


def session_of(config: pytest.Config) -> CitationsSession:
    """The process's session, built on first use by items and the fixture alike."""
    if SESSION_KEY not in config.stash:
        config.stash[SESSION_KEY] = CitationsSession(config, config.stash[OPTIONS_KEY])
    return config.stash[SESSION_KEY]
