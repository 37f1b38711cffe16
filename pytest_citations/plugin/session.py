"""The one object a pytest process shares between case-file items and the fixture: the
settings, the cassettes, the verifier, the baseline (read once), and each case file's
decided results. Built by one factory (:func:`session_of`) because custom items cannot
request fixtures. It only wires the engine together: where cassettes live is
:mod:`pytest_citations.recording.layout`'s to say, and what a claim's verdict means is
:func:`pytest_citations.gating.deciding.decide_file`'s.
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from .. import recording
from ..cases import Case
from ..errors import AccountError, CitationsError, ConfigurationError
from ..gating.deciding import BaselineRef, FileResult, decide_file
from ..network.usage import SpendPlan, Usage
from ..paths import shown
from ..pipeline.audit import AuditLog
from ..pipeline.backends import Backends
from ..pipeline.settings import Settings, hidden_secrets
from ..pipeline.sync import SyncVerifier
from ..pipeline.verifier import ClaimRequest, Verifier
from ..recording import (
    CassetteLibrary,
    CassetteSession,
    build_vcr,
    keep_builtin_scrubbing,
)
from ..recording.client import recorded_client
from ..recording.layout import CassetteLayout
from ..timing import split
from ..verdicts import ClaimVerdict
from .options import BACKENDS_KEY, OPTIONS_KEY, RUN_ID_KEY, Options
from .preflight import check_cassette_folder, check_recording_secrets
from .printing import printed

if TYPE_CHECKING:
    from ..gating.baseline import Baseline
    from .ahead import VerifyAhead

SESSION_KEY = pytest.StashKey["CitationsSession"]()
#: The run's baseline, read once per process (the reporter's and the session's).
BASELINE_KEY = pytest.StashKey["Baseline"]()


def baseline_of(config: pytest.Config, options: Options) -> Baseline | None:
    """The run's baseline (``--citations-baseline``), read on first use; a file that cannot
    be read is a :class:`~pytest_citations.errors.CitationsError` naming it."""
    if options.baseline is None:
        return None
    if BASELINE_KEY not in config.stash:
        # The baseline's reading and checks load only for a run that has one.
        from ..gating.baseline import Baseline

        config.stash[BASELINE_KEY] = Baseline.load(options.baseline)
    return config.stash[BASELINE_KEY]


@dataclass(frozen=True)
class VerifiedFile:
    """A case file's verdicts, in file order, and each claim's share of the time the file's
    verification took (in proportion to the claims' own work, see
    :mod:`pytest_citations.timing`): in its item's time, it stands for the wait pytest
    counts in the setup of the file's first item."""

    verdicts: list[ClaimVerdict]
    seconds: list[float]


class FileNotVerified(Exception):
    """A whole case file could not be verified (a damaged cassette, a refused token)."""

    def __init__(self, message: str, *, stop: bool) -> None:
        super().__init__(message)
        self.stop = stop


def build_settings(options: Options, embedding_cache: Path | None, backends: Backends) -> Settings:
    """Engine settings for this session, put together from the stages' configs the options
    built (the judge, the network, the budget): of the environment only what the
    ``backends`` declare is read here (a judge a plugin registered included), the fetcher's
    config and the secrets. A replay needs no token: requests carry placeholders, and none
    that a recording answers reaches the network."""
    try:
        return Settings(
            fetcher=options.fetcher,
            fetcher_config=backends.fetcher_config(options.fetcher, os.environ),
            judge=options.judge,
            secrets=backends.secrets(os.environ),
            hidden=hidden_secrets(os.environ),
            network=options.network,
            spending=options.spending,
            max_page_chars=options.max_page_chars,
            embedding_model=options.embedding_model,
            embedding_cache_dir=embedding_cache,
            evidence_words=options.evidence_words,
            top_k=options.top_k,
            passage_words=options.passage_words,
            judge_votes=options.judge_votes,
            pinned=options.pinned,
        )
    except ConfigurationError as error:  # a fetcher's own config, read here
        raise pytest.UsageError(printed(f"citations: {error}")) from None


def file_requests(cases: Sequence[Case]) -> list[ClaimRequest]:
    """The claims of a case file as the verifier takes them, in file order."""
    return [
        ClaimRequest.of(claim.text, claim.urls, case.retrieved, claim.documents)
        for case in cases
        for claim in case.claims
    ]


class CitationsSession:
    """Settings, cassettes, the verifier and per-file assessments for one pytest process."""

    def __init__(self, config: pytest.Config, options: Options) -> None:
        self.config = config
        self.options = options
        self.root = options.root
        cache = getattr(config, "cache", None)  # absent with -p no:cacheprovider
        folder = Path(cache.mkdir("citations-embeddings")) if cache is not None else None
        self.backends = config.stash[BACKENDS_KEY]
        self.settings = build_settings(options, folder, self.backends)
        check_recording_secrets(options, self.settings, self.backends)
        check_cassette_folder(options)
        #: The VCR configuration after the ``pytest_citations_vcr`` hooks (drift uses it too).
        self.vcr_config = build_vcr(self.settings.redactor())
        config.hook.pytest_citations_vcr(config=config, vcr=self.vcr_config)
        keep_builtin_scrubbing(self.vcr_config, self.settings.redactor())
        self.library = CassetteLibrary(
            self.vcr_config,
            options.record_mode,
            self.record_command,
            root=self.root,
            upgrade_command=self.upgrade_command,
            trust=options.trusted_keys,
        )
        self.layout = CassetteLayout(
            self.library,
            options.cassette_dir,
            self.root,
            required=self.settings.required(self.backends),
            records=options.record_mode.records,
        )
        self.audit = (
            AuditLog(options.audit, run_id=config.stash[RUN_ID_KEY]) if options.audit else None
        )
        baseline = baseline_of(config, options)
        self.baseline = (
            BaselineRef(baseline, shown(options.baseline, self.root))
            if baseline is not None and options.baseline is not None
            else None
        )
        self._verifier: SyncVerifier | None = None
        self._plan: list[tuple[Path, Sequence[Case]]] = []
        self._ahead: VerifyAhead | None = None
        self._decided: dict[Path, FileResult | FileNotVerified] = {}
        #: The claims the run runs, (case id, claim index) by case file (None: all of them).
        self._selected: dict[Path, set[tuple[str, int]]] | None = None
        self._seconds: dict[Path, dict[tuple[str, int], float]] = {}
        self._waited: dict[Path, float] = {}

    def record_command(self, cassette: Path) -> str:
        """The command that records what a cassette lacks."""
        return self.layout.record_command(cassette)

    def upgrade_command(self, cassette: Path) -> str | None:
        """The command that adds retrieval's choices to a cassette recorded without them."""
        return self.layout.upgrade_command(cassette)

    def test_cassette_path(self, item: pytest.Item, *, opening: bool = False) -> Path:
        """A test's cassette (see :meth:`CassetteLayout.test
        <pytest_citations.recording.layout.CassetteLayout.test>`)."""
        classes = [node.name for node in item.listchain() if isinstance(node, pytest.Class)]
        return self.layout.test(item.path, item.nodeid, item.name, classes, opening=opening)

    # Verifying -----------------------------------------------------------------------
    @property
    def verifier(self) -> SyncVerifier:
        """The session's verifier, started on first use."""
        if self._verifier is None:
            ledger = Usage()  # one ledger: the budget reads what the usage report counts
            verifier = Verifier(
                self.settings,
                http=recorded_client(self.settings, self.library, ledger=ledger),
                audit=self.audit,
                backends=self.backends,
                observer=self.library,
                recall=self.library,
                usage=ledger,
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

    def select(self, claims: Sequence[tuple[Path, str, int]]) -> None:
        """The claims the run runs, (case file, case id, claim index): a case is decided
        over those of its claims (the selection, ``-k``, ``-m``, leaves out the others)."""
        selected: dict[Path, set[tuple[str, int]]] = {}
        for path, case, index in claims:
            selected.setdefault(path, set()).add((case, index))
        self._selected = selected

    def file_result(self, path: Path, nodeid: str, cases: Sequence[Case]) -> FileResult:
        """Every claim and case of a case file, verified and decided on first request.
        Raises :class:`FileNotVerified` (for every item of the file) when it could not be."""
        known = self._decided.get(path)
        if known is None:
            try:
                started = time.perf_counter()
                verified = self._verified(path, cases)
                self._waited[path] = time.perf_counter() - started
                claims = [(case.id, claim.index) for case in cases for claim in case.claims]
                self._seconds[path] = dict(zip(claims, verified.seconds, strict=True))
                selected = self._selected
                known = decide_file(
                    nodeid,
                    cases,
                    verified.verdicts,
                    self.options.criteria,
                    self.baseline,
                    updating=self.options.update_baseline,
                    selected=lambda case, index: (
                        selected is None or (case, index) in selected.get(path, ())
                    ),
                )
            except AccountError as error:
                if self._ahead is not None:
                    self._ahead.stop()
                known = FileNotVerified(str(error), stop=True)
            except CitationsError as error:
                known = FileNotVerified(str(error), stop=False)
            self._decided[path] = known
        if isinstance(known, FileNotVerified):
            raise known
        return known

    def claim_seconds(self, path: Path, case: str, index: int) -> float | None:
        """A claim's share of its file's verification time (None before it was verified)."""
        return self._seconds.get(path, {}).get((case, index))

    def take_wait(self, path: Path) -> float:
        """How long the item that asked first waited for its file's verification (0 for
        every other item): the claims' shares stand in for it in the item times."""
        return self._waited.pop(path, 0.0)

    def _verified(self, path: Path, cases: Sequence[Case]) -> VerifiedFile:
        """The file's verification: ahead of its items, beside the run's other files (see
        :mod:`.ahead`), or now when it is the only file the run plans, with no other to
        verify meanwhile."""
        if self._ahead is None and len(self._plan) == 1 and self._plan[0][0] == path:
            cassette, requests = self.layout.case_file(path), file_requests(cases)
            return self.verifier.run(self._verify_file(cassette, requests))
        ahead = self._verifying_ahead()
        if not ahead.planned(path):
            self._plan_file(ahead, path, cases)
        verified: VerifiedFile = ahead.result(path)
        return verified

    def _verifying_ahead(self) -> VerifyAhead:
        if self._ahead is None:
            # Only a run of several files (or an xdist worker's) verifies ahead of its items.
            from .ahead import VerifyAhead

            self._ahead = VerifyAhead(
                self.verifier.loop,
                self.settings.network.concurrency,
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

    def recording_plan(self) -> SpendPlan | None:
        """What this process is about to record, read from the cassettes of the files it
        runs before anything is sent; None when it only replays."""
        if not self.options.record_mode.records:
            return None
        files = [(self.layout.case_file(path), file_requests(cases)) for path, cases in self._plan]
        plan = recording.plan_recording(
            files, self.options.record_mode, self.settings, self.vcr_config, self.backends
        )
        return self.verifier.run(plan)

    def _plan_file(self, ahead: VerifyAhead, path: Path, cases: Sequence[Case]) -> None:
        """Plan one file's verification, its traffic going to its own cassette."""
        requests = file_requests(cases)
        cassette = self.layout.case_file(path)
        ahead.plan(path, len(requests), partial(self._verify_file, cassette, requests))

    async def _verify_file(
        self, cassette_path: Path, requests: Sequence[ClaimRequest]
    ) -> VerifiedFile:
        """Verify one file's claims, their traffic going to its own cassette."""
        verifier = self.verifier.verifier
        started = time.perf_counter()
        cassette = self.library.open(cassette_path)
        try:
            with cassette.active():
                verdicts = await verifier.verify_many(requests)
        finally:
            cassette.close()
            if not cassette.may_record:
                # A replay-only cassette shares its work with no other file: let its
                # pages, answers and parsed recording go now, not at the end of the run.
                verifier.release(cassette.scope_key)
        self.library.replayed(cassette, requests)  # what it left stale, for the summary
        took = time.perf_counter() - started
        return VerifiedFile(verdicts, split(took, [v.work_seconds for v in verdicts]))

    # Lifecycle -----------------------------------------------------------------------
    @property
    def usage(self) -> Usage:
        """What this process spent."""
        return self._verifier.usage if self._verifier is not None else Usage()

    def close(self) -> None:
        """Stop the verifier (which undoes its log redaction) and close the audit index."""
        if self._verifier is not None:
            if self._ahead is not None:  # files verified ahead and never asked for
                self._verifier.run(self._ahead.aclose())
                self._ahead = None
            self._verifier.close()
            self._verifier = None
        if self.audit is not None:
            self.audit.close()


def session_of(config: pytest.Config) -> CitationsSession:
    """The process's session, built on first use by items and the fixture alike."""
    if SESSION_KEY not in config.stash:
        config.stash[SESSION_KEY] = CitationsSession(config, config.stash[OPTIONS_KEY])
    return config.stash[SESSION_KEY]
