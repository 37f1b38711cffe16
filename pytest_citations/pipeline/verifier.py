"""The verification pipeline: fetch → passages → retrieval → judge → guard → aggregate.
Asyncio, one limit on requests in flight (A3); each URL fetched once a run, each page
embedded once, an identical judge request made once (once a vote: :mod:`.voting`)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Hashable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from ..errors import AccountError, ConfigurationError, MissingTokenError, OverBudget, RequestRefused
from ..fetchers import Crawler, FetchResult, StoredPageReader, fetch_citation
from ..judges import Judge, Judgement
from ..judges.guard import quote_in_passages
from ..labels import Label, Reason, is_unchecked
from ..network.client import HttpClient
from ..network.limits import RequestLimit
from ..network.requester import Requester
from ..network.usage import Usage
from ..sanitize import LogRedaction
from ..timing import clocked
from ..verdicts import CitationVerdict, ClaimVerdict
from .aggregate import aggregate_verdicts
from .audit import AuditLog
from .backends import Backends
from .claimwork import ClaimRequest, ClaimWork, Stage, document_verdict, shown_evidence
from .recall import Recall
from .retrieving import RetrievalStep
from .settings import Settings
from .sharing import SharedWork, WorkObserver
from .voting import ask as ask_votes
from .voting import tally

if TYPE_CHECKING:
    from ..retrieval.embedders.base import Embedder

__all__ = ["RULE_CONFIDENCE", "ClaimRequest", "Verifier", "document_verdict"]


#: Confidence of verdicts the engine decided by rule (dead link, PDF, …), as in 000's sample.
RULE_CONFIDENCE = 1.0
#: Errors that stop the whole run instead of becoming one citation's verdict: a refused or
#: exhausted account, a missing secret, an unusable setting.
_FATAL = (AccountError, MissingTokenError, ConfigurationError)


def _refusal(refused: RequestRefused) -> str:
    """The reason of a citation whose request was not sent: the run's budget did not cover
    it, or the recording lacks it and may not record it."""
    return Reason.OVER_BUDGET if isinstance(refused, OverBudget) else Reason.REQUEST_REFUSED


class Verifier:
    """Verifies claims against their cited URLs. Use as ``async with Verifier(settings) as v``.

    Backends can be swapped: ``crawler`` (anything with the fetch rules' ``crawl``) and
    ``judge`` (a :class:`~pytest_citations.judges.Judge`) directly, or by name from
    ``backends`` (the built-in ones plus any a plugin registered), chosen by
    ``settings.fetcher`` and ``settings.judge.provider``, each built from its own config in
    the settings; ``embedder`` too. ``observer``
    hears which shared work each caller needs (see :mod:`pytest_citations.pipeline.sharing`).
    ``http`` and ``semaphore`` let several verifiers share one client and one limit on
    requests in flight (the service does); ``usage``, the run's ledger, which the budget of
    ``http`` reads when it was built for it (``settings.transport(usage)``).

    Whatever goes wrong while checking one citation becomes that citation's verdict, with a
    reason that says the citation could not be checked; only account, secret and setting
    errors stop the run.
    """

    def __init__(
        self,
        settings: Settings | None = None,
        *,
        crawler: Crawler | None = None,
        judge: Judge | None = None,
        embedder: Embedder | None = None,
        audit: AuditLog | None = None,
        http: HttpClient | None = None,
        semaphore: RequestLimit | asyncio.Semaphore | None = None,
        backends: Backends | None = None,
        observer: WorkObserver | None = None,
        recall: Recall | None = None,
        usage: Usage | None = None,
    ) -> None:
        self.settings = settings or Settings.from_env()
        #: The run's ledger: every answer its fetcher and judge receive is counted into it.
        self.usage = usage if usage is not None else Usage()
        self.audit = audit
        self._crawler = crawler
        self._judge = judge
        backends = backends or Backends()
        # Looked up now, so that an unknown name is an error before anything is sent.
        self._fetcher_factory = None if crawler else backends.fetcher(self.settings.fetcher)
        self._judge_factory = None if judge else backends.judge(self.settings.judge.provider)
        self._retrieval = RetrievalStep(self.settings, recall, embedder)
        self._http = http
        self._owns_http = http is None
        self._semaphore = semaphore
        self._requester: Requester | None = None
        self._log_redaction: LogRedaction | None = None
        self._fetches = SharedWork("fetch", observer)
        self._judgements = SharedWork("judge", observer)

    # Lifecycle ----------------------------------------------------------------------
    async def __aenter__(self) -> Verifier:
        # httpx logs request URLs (the Crawlbase token is a query parameter) and httpcore
        # logs response headers (storage_url): redact every record while the verifier lives.
        if self._log_redaction is None:
            self._log_redaction = LogRedaction(self.settings.redactor()).install()
        if self._http is None:
            self._http = self.settings.http_client(self.settings.transport(self.usage))
        self._requester = Requester(
            self._http,
            self.settings.network,
            self._semaphore or RequestLimit(self.settings.network.concurrency),
            ledger=self.usage,
        )
        if self._crawler is None:
            factory = self._fetcher_factory
            assert factory is not None
            self._crawler = factory(self.settings.fetcher_config, self._requester, self.usage)
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Cancel what is still running and release connections, threads and files."""
        for once in (self._fetches, self._judgements):
            await once.drain()
        await self._retrieval.aclose()
        if self._owns_http and self._http is not None:
            await self._http.aclose()
            self._http = None
        if self._log_redaction is not None:
            self._log_redaction.uninstall()
            self._log_redaction = None

    @property
    def requester(self) -> Requester:
        """The shared HTTP sender (entered verifiers only)."""
        if self._requester is None:
            raise RuntimeError("use the Verifier as 'async with Verifier(...) as verifier'")
        return self._requester

    @property
    def judge(self) -> Judge:
        """The judge, created on first use so that runs that judge nothing need no key."""
        if self._judge is None:
            factory = self._judge_factory
            assert factory is not None
            self._judge = factory(self.settings.judge, self.requester)
        return self._judge

    # Public API ---------------------------------------------------------------------
    async def verify(self, claim: str, urls: Sequence[str]) -> ClaimVerdict:
        """Verify one claim against its cited URLs."""
        return (await self.verify_many([ClaimRequest.of(claim, urls)]))[0]

    async def verify_many(
        self,
        requests: Sequence[ClaimRequest],
        progress: Callable[[int, int], None] | None = None,
    ) -> list[ClaimVerdict]:
        """Verify many claims concurrently; results in the order given. ``progress`` is
        called with (claims done, claims in all) as each claim completes."""
        # The claims are embedded in one batch on the model's thread, ahead of any page,
        # while the first fetches are already out: the network never waits for the model. A
        # replay recalls what was chosen and needs no vector at all.
        claims = [] if self._retrieval.replaying else [r.claim for r in requests]
        warm = asyncio.ensure_future(self._retrieval.warm(claims))
        done = 0
        total = len(requests)

        async def tracked(request: ClaimRequest) -> ClaimVerdict:
            nonlocal done
            result = await self._verify_claim(request)
            done += 1
            if progress is not None:
                progress(done, total)
            return result

        try:
            return list(await asyncio.gather(*(tracked(request) for request in requests)))
        finally:
            await warm

    def release(self, scope: Hashable) -> None:
        """Forget the work shared within ``scope`` (its pages, answers), once its owner is done."""
        for shared in (self._fetches, self._judgements):
            shared.release(scope)

    async def stored_page(self, rid: str) -> str:
        """The stored markdown of a page, by rid, from the Storage API (S1)."""
        crawler = self._crawler
        if not isinstance(crawler, StoredPageReader):
            raise ConfigurationError(
                "reading stored pages needs a fetcher that stores them (crawlbase)"
            )
        return await crawler.stored_page(rid)

    # Stages -------------------------------------------------------------------------
    async def _verify_claim(self, request: ClaimRequest) -> ClaimVerdict:
        """The claim's verdict, with the time its own work took (its requests in flight and
        its model work, see :mod:`pytest_citations.timing`)."""
        with clocked() as clock:
            verdict = await self._check_claim(request)
        return replace(verdict, work_seconds=clock.seconds)

    async def _check_claim(self, request: ClaimRequest) -> ClaimVerdict:
        work = ClaimWork()
        verdicts = list(
            await asyncio.gather(
                *(self._verify_refusable(request.claim, url, work) for url in request.urls)
            )
        )
        # Citations finish judging in any order: keep their evidence in citation order, so
        # that the joint request numbers its sources [1], [2], … alike on every run (its
        # quotes name sources by number, and a replay must send the recorded body).
        work.evidence = {url: work.evidence[url] for url in request.urls if url in work.evidence}
        verdicts.extend(map(document_verdict, request.documents))
        label = aggregate_verdicts(verdicts) if verdicts else Label.UNCITED
        joint: tuple[str, ...] = ()
        if label not in (Label.SUPPORTED, Label.CONTRADICTED) and len(work.evidence) >= 2:
            joint = await self._joint_support(request.claim, work)
            if joint:
                label = Label.SUPPORTED
        misattributed: tuple[str, ...] = ()
        if label not in (Label.SUPPORTED, Label.CONTRADICTED) and request.retrieved:
            misattributed = await self._misattribution(request, work)
            if misattributed:
                label = Label.MISATTRIBUTED
        result = ClaimVerdict(
            request.claim,
            label,
            tuple(verdicts),
            tuple(work.problems),
            unrecorded=tuple(work.unrecorded),
            over_budget=tuple(work.over_budget),
            joint_support=joint,
            misattributed_to=misattributed,
            evidence=tuple(work.evidence.values()),
        )
        if self.audit is not None:
            self.audit.record([result])
        return result

    async def _joint_support(self, claim: str, work: ClaimWork) -> tuple[str, ...]:
        """004, C2: a claim no single citation supports, checked against the top passages of
        all its judged citations together. Supported only when every quote the judge gives
        stands in the passages of the source it names; returns the URLs that carried it."""
        judge = self.judge
        joint = getattr(judge, "judge_joint", None)
        if joint is None:
            return ()
        urls = list(work.evidence)
        sources = [list(work.evidence[url].passages) for url in urls]
        key = ("joint", judge.name, judge.model, claim, tuple(tuple(p) for p in sources))

        async def run() -> Judgement:
            judgement: Judgement = await joint(claim, sources)
            return judgement

        try:
            judgement = await self._judgements.get(key, run)
        except RequestRefused as refused:
            work.note(refused)
            return ()
        if judgement.reason is not None or judgement.label is not Label.SUPPORTED:
            return ()
        if not judgement.quotes:
            return ()
        carried: list[str] = []
        for source, quote in judgement.quotes:
            if not 1 <= source <= len(urls) or not quote_in_passages(quote, sources[source - 1]):
                return ()
            if urls[source - 1] not in carried:
                carried.append(urls[source - 1])
        return tuple(carried)

    async def _misattribution(self, request: ClaimRequest, work: ClaimWork) -> tuple[str, ...]:
        """004, C3: retrieved but uncited URLs that support a claim its citations do not."""
        scratch = ClaimWork()
        verdicts = await asyncio.gather(
            *(self._verify_refusable(request.claim, url, scratch) for url in request.retrieved)
        )
        work.absorb(scratch)
        return tuple(v.url for v in verdicts if v.label is Label.SUPPORTED)

    def _fetch(self, url: str) -> asyncio.Task[FetchResult]:
        async def run() -> FetchResult:
            assert self._crawler is not None
            return await fetch_citation(self._crawler, url, max_chars=self.settings.max_page_chars)

        return self._fetches.get(url, run)

    def _ask(
        self, claim: str, passages: list[str], votes: int
    ) -> asyncio.Task[tuple[Judgement, ...]]:
        """The judge's answers on the passages: one call per vote, in turn."""
        judge = self.judge

        async def call() -> Judgement:
            return await judge.judge(claim, passages)

        async def run() -> tuple[Judgement, ...]:
            return await ask_votes(call, votes)

        key: tuple[object, ...] = (judge.name, judge.model, claim, tuple(passages))
        return self._judgements.get(key if votes == 1 else (*key, votes), run)

    async def _verify_refusable(self, claim: str, url: str, work: ClaimWork) -> CitationVerdict:
        """Never raises for one citation: a refused request (missing from an offline replay),
        a peer that kept failing or an unexpected error becomes this citation's verdict,
        with a reason saying it could not be checked (fetch_error, judge_error,
        request_refused) and a note on the claim. Only fatal errors stop the run."""
        stage = Stage()
        try:
            return await self._verify_citation(claim, url, work, stage)
        except _FATAL:
            raise
        except RequestRefused as refused:
            work.note(refused)
            return CitationVerdict(url=url, label=Label.NOT_FOUND, reason=_refusal(refused))
        except Exception as error:  # one citation's failure must not crash the run
            work.note(stage.problem(error))
            label = Label.UNREACHABLE if stage.judging is None else Label.NOT_FOUND
            reason = Reason.FETCH_ERROR if stage.judging is None else Reason.JUDGE_ERROR
            located = stage.judging or CitationVerdict(url=url, label=label)
            return replace(located, label=label, reason=reason, confidence=0.0)

    async def _verify_citation(
        self, claim: str, url: str, work: ClaimWork, stage: Stage
    ) -> CitationVerdict:
        page = await self._fetch(url)
        if not page.judgeable:
            assert page.label is not None
            checked = not is_unchecked(page.reason)
            return CitationVerdict(
                url=url,
                label=page.label,
                confidence=RULE_CONFIDENCE if checked else 0.0,
                final_url=page.final_url,
                original_status=page.original_status,
                rid=page.rid,
                reason=page.reason,
                warnings=page.warnings,
            )
        located = CitationVerdict(
            url=url,
            label=Label.NOT_FOUND,
            final_url=page.final_url,
            original_status=page.original_status,
            rid=page.rid,
            warnings=page.warnings,
        )
        stage.judging = located
        chosen = None
        try:
            chosen = await self._retrieval.choose(claim, url, page)
            selection = chosen.selection
            passages = selection.texts(page.text) if selection is not None else []
            if not passages:
                self._retrieval.keep(chosen)
                return replace(located, reason=Reason.NO_PASSAGES)
            assert selection is not None
            answers = await self._ask(claim, passages, selection.votes or 1)
            chosen = self._retrieval.account(chosen, answers)  # the recording's every call
            self._retrieval.keep(chosen)
        except RequestRefused as refused:
            work.note(refused)
            if chosen is not None and not isinstance(refused, OverBudget):
                self._retrieval.keep(chosen)  # what a replay lacks the call of: upgrade names it
            return replace(located, reason=_refusal(refused))
        accepted, votes = tally(answers, passages, chosen.votes, page.text)
        work.evidence[url] = shown_evidence(url, passages, accepted, selection, page.text)
        return replace(
            located,
            label=accepted.label,
            evidence_quote=accepted.evidence_quote,
            confidence=accepted.confidence,
            reason=accepted.reason,
            votes=votes,
        )
