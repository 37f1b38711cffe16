"""The one object a pytest session shares between case-file items and the fixture: settings,
cassettes, the verifier, and the results of each case file. Built by one factory
(:func:`get_runtime`) because custom items cannot request fixtures."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from .audit import AuditLog
from .backends import Backends
from .cases import Case, Claim
from .errors import ConfigurationError
from .gating.baseline import Baseline
from .gating.criteria import ClaimAssessment, ClaimFacts, Criteria, assess_claim
from .labels import Label
from .network import make_http_client, network_transport
from .recording import (
    CassetteLibrary,
    CassetteSession,
    CassetteTransport,
    RecordMode,
    build_vcr,
    keep_builtin_scrubbing,
)
from .redact import LogRedaction
from .settings import Settings
from .sync import SyncVerifier
from .verdicts import ClaimVerdict, Usage
from .verifier import ClaimRequest, Verifier

DEFAULT_FAIL_ON = (Label.CONTRADICTED.value,)


@dataclass(frozen=True)
class Options:
    """The plugin's settings after command line > environment > ini > default."""

    enabled: bool
    record_mode: RecordMode
    cassette_dir: Path
    judge: str
    model: str | None
    concurrency: int
    fail_on: tuple[str, ...]
    min_precision: float | None
    report: Path | None
    audit: Path | None
    embedding_model: str
    fetcher: str
    criteria: Criteria = field(default_factory=Criteria)
    baseline: Path | None = None
    update_baseline: bool = False
    calibrate: bool = False
    min_agreement: tuple[str, float] | None = None
    #: Count citations the verifier could not check as their labels (the opt-out of
    #: ``citations_allow_unchecked``); by default such a claim is an error.
    allow_unchecked: bool = False
    #: Request limits given on the command line, in the environment or the ini file; a
    #: limit left out keeps the engine's default (see :data:`LIMITS`).
    limits: dict[str, float] = field(default_factory=dict)

    @classmethod
    def from_config(cls, config: pytest.Config) -> Options:
        """Read options and ini values with their precedence written down here, once."""
        rootdir = config.rootpath

        def value(option: str, ini: str, *envs: str | None) -> Any:
            given = config.getoption(option, None)
            if given not in (None, ""):
                return given
            for env in envs:
                if env and os.environ.get(env, "").strip():
                    return os.environ[env].strip()
            raw = config.getini(ini)
            return raw if raw not in (None, "", []) else None

        mode = value("citations_record", "citations_record_mode") or "none"
        try:
            record_mode = RecordMode(mode)
        except ValueError:
            choices = ", ".join(m.value for m in RecordMode)
            raise pytest.UsageError(
                f"unknown citations record mode {mode!r}; choose one of {choices}"
            ) from None
        fail_on_raw = value("citations_fail_on", "citations_fail_on")
        # Comma- or space-separated, on the command line and in the ini file alike (the
        # ini key is of type "args", so "contradicted,partial" arrives as one word).
        if isinstance(fail_on_raw, str):
            fail_on_raw = [fail_on_raw]
        if fail_on_raw:
            fail_on_raw = " ".join(fail_on_raw).replace(",", " ").split()
        fail_on = tuple(fail_on_raw or DEFAULT_FAIL_ON)
        known = {label.value for label in Label}
        for label in fail_on:
            if label not in known:
                raise pytest.UsageError(
                    f"citations_fail_on: unknown label {label!r}; choose from "
                    + ", ".join(sorted(known))
                )
        min_precision = value("citations_min_precision", "citations_min_precision")
        concurrency = value("citations_concurrency", "citations_concurrency", "BATCH_CONCURRENCY")
        try:
            min_precision_value = float(min_precision) if min_precision is not None else None
            concurrency_value = int(concurrency) if concurrency is not None else 4
        except ValueError as error:
            raise pytest.UsageError(f"citations: {error}") from None
        if min_precision_value is not None and not 0 <= min_precision_value <= 1:
            raise pytest.UsageError("--citations-min-precision must be between 0 and 1")
        if concurrency_value < 1:
            raise pytest.UsageError("--citations-concurrency must be at least 1")
        report = value("citations_report", "citations_report")
        audit = value("citations_audit", "citations_audit_db")
        cassette_dir = Path(
            value("citations_cassette_dir", "citations_cassette_dir") or "cassettes"
        )
        allow_unchecked = bool(config.getoption("citations_allow_unchecked", False)) or bool(
            config.getini("citations_allow_unchecked")
        )
        criteria = Criteria(
            fail_on=fail_on,
            forbid_contradicted_topics=tuple(config.getini("citations_forbid_contradicted_topics")),
            numbers_traceable=bool(config.getini("citations_numbers_traceable")),
            min_supported_share=_fraction_option(
                value("citations_min_supported_share", "citations_min_supported_share"),
                "citations_min_supported_share",
            ),
            uncited_allowed=bool(config.getini("citations_uncited_allowed")),
            min_precision=min_precision_value,
            allow_unchecked=allow_unchecked,
        )
        baseline = value("citations_baseline", "citations_baseline")
        update_baseline = bool(config.getoption("citations_update_baseline", False))
        if update_baseline and not baseline:
            raise pytest.UsageError("--citations-update-baseline needs --citations-baseline PATH")
        judge = str(value("citations_judge", "citations_judge", "JUDGE_PROVIDER") or "openai")
        limits: dict[str, float] = {}
        for limit in LIMITS:
            raw_limit = value(limit.option, limit.ini, limit.env)
            if raw_limit is not None:
                limits[limit.field] = limit.parse(raw_limit)
        return cls(
            enabled=bool(config.getoption("citations", False)),
            record_mode=record_mode,
            cassette_dir=cassette_dir if cassette_dir.is_absolute() else rootdir / cassette_dir,
            judge=judge,
            # The model the header shows is the one the judge uses: JUDGE_MODEL, then the
            # chosen provider's own variable (OPENAI_MODEL, ...), as the README documents.
            model=value(
                "citations_model",
                "citations_model",
                "JUDGE_MODEL",
                Backends().judge_variable(judge, "model_variable"),
            ),
            concurrency=concurrency_value,
            fail_on=fail_on,
            min_precision=min_precision_value,
            report=Path(report) if report else None,
            audit=Path(audit) if audit else None,
            embedding_model=str(
                value(
                    "citations_embedder", "citations_embedding_model", "CITATIONS_EMBEDDING_MODEL"
                )
                or "all-MiniLM-L6-v2"
            ),
            fetcher=str(config.getini("citations_fetcher") or "crawlbase"),
            criteria=criteria,
            baseline=rootdir / baseline if baseline else None,
            update_baseline=update_baseline,
            calibrate=bool(config.getoption("citations_calibrate", False)),
            min_agreement=_agreement_gate(config.getini("citations_min_agreement")),
            allow_unchecked=allow_unchecked,
            limits=limits,
        )

    def criteria_for(self, case: Case) -> Criteria:
        """The ini criteria with the case's ``criteria:`` and ``min_precision:`` applied."""
        overrides = dict(case.criteria)
        if case.min_precision is not None:
            overrides["min_precision"] = case.min_precision
        return self.criteria.merged(overrides)


AGREEMENT_METRICS = ("kappa", "accuracy", "balanced_accuracy")


@dataclass(frozen=True)
class Limit:
    """A request limit settable as ``--citations-X``, ini ``citations_X`` and an environment
    variable, and the :class:`Settings` field it sets."""

    name: str
    field: str
    env: str
    integer: bool
    minimum: float
    #: True when the minimum itself is not allowed (timeouts must be more than 0).
    exclusive: bool
    help: str

    @property
    def option(self) -> str:
        """The ``config.getoption`` name: ``citations_timeout``."""
        return "citations_" + self.name.replace("-", "_")

    @property
    def ini(self) -> str:
        """The ini key, the same as the option's destination."""
        return self.option

    @property
    def flag(self) -> str:
        """The command-line flag: ``--citations-timeout``."""
        return f"--citations-{self.name}"

    def parse(self, raw: Any) -> float:
        """The number, or a usage error that names the flag and what it must be."""
        try:
            number = float(raw)
            if self.integer and number != int(number):
                raise ValueError
        except (TypeError, ValueError):
            kind = "a whole number" if self.integer else "a number of seconds"
            raise pytest.UsageError(f"{self.flag} must be {kind}, got {raw!r}") from None
        if number < self.minimum or (self.exclusive and number == self.minimum):
            bound = "more than" if self.exclusive else "at least"
            raise pytest.UsageError(f"{self.flag} must be {bound} {self.minimum:g}, got {raw!r}")
        return int(number) if self.integer else number


#: The request limits (issue 8). Their defaults and validation live in :class:`Settings`;
#: the CLI (``pytest-citations --timeout``) offers the same under shorter names.
LIMITS = (
    Limit(
        "timeout",
        "read_timeout",
        "CITATIONS_TIMEOUT",
        False,
        0,
        True,
        "seconds any one read or write may wait (default 90)",
    ),
    Limit(
        "connect-timeout",
        "connect_timeout",
        "CITATIONS_CONNECT_TIMEOUT",
        False,
        0,
        True,
        "seconds to open a connection (default 10)",
    ),
    Limit(
        "deadline",
        "deadline",
        "CITATIONS_DEADLINE",
        False,
        0,
        True,
        "seconds one request may take in all, retries included (default 180)",
    ),
    Limit(
        "retries",
        "retries",
        "CITATIONS_RETRIES",
        True,
        0,
        False,
        "retries of a failed request after the first attempt (default 3)",
    ),
    Limit(
        "max-page-chars",
        "max_page_chars",
        "CITATIONS_MAX_PAGE_CHARS",
        True,
        1000,
        False,
        "characters of a page kept for retrieval; the rest is cut (default 500000)",
    ),
)


def _fraction_option(raw: Any, name: str) -> float | None:
    if raw in (None, ""):
        return None
    try:
        number = float(raw)
    except (TypeError, ValueError):
        raise pytest.UsageError(f"{name} must be a number from 0 to 1, got {raw!r}") from None
    if not 0 <= number <= 1:
        raise pytest.UsageError(f"{name} must be a number from 0 to 1, got {raw!r}")
    return number


def _agreement_gate(raw: Any) -> tuple[str, float] | None:
    """``0.6`` (Cohen's kappa) or ``accuracy=0.8`` / ``balanced_accuracy=0.7`` / ``kappa=0.6``."""
    text = str(raw or "").strip()
    if not text:
        return None
    metric, _, number = text.rpartition("=")
    metric = metric.strip() or "kappa"
    if metric not in AGREEMENT_METRICS:
        raise pytest.UsageError(
            f"citations_min_agreement: unknown metric {metric!r}; use one of "
            + ", ".join(AGREEMENT_METRICS)
        )
    try:
        value = float(number)
    except ValueError:
        raise pytest.UsageError(f"citations_min_agreement: {number!r} is not a number") from None
    if not -1 <= value <= 1:
        raise pytest.UsageError("citations_min_agreement must be between -1 and 1")
    return metric, value


def build_settings(options: Options, embedding_cache: Path | None) -> Settings:
    """Engine settings for this session. A replay needs no token: placeholders stand in,
    and the cassettes' scrubbed requests carry the same placeholders."""
    overrides: dict[str, Any] = {
        "judge_provider": options.judge,
        "concurrency": options.concurrency,
        "embedding_model": options.embedding_model,
        "embedding_cache_dir": embedding_cache,
        "fetcher": options.fetcher,
    }
    # Always the plugin's choice (None: the provider's default), never a model that
    # Settings.from_env read for the provider JUDGE_PROVIDER names when another was chosen.
    overrides["judge_model"] = options.model
    overrides.update(options.limits)
    try:
        settings = Settings.from_env(**overrides)
    except ConfigurationError as error:  # say CITATIONS_TIMEOUT=abc, read here
        raise pytest.UsageError(f"citations: {error}") from None
    if options.record_mode is RecordMode.NONE:
        # Offline: no token is needed (requests carry placeholders, and no recorded request
        # reaches the network), and no waiting on a recorded Retry-After.
        settings = settings.replace(backoff=0.0, max_backoff=0.0)
    return settings


def check_recording_secrets(options: Options, settings: Settings) -> None:
    """Recording needs real secrets: one usage error names every missing variable."""
    if not options.record_mode.records:
        return
    missing = Backends().missing(settings)
    if missing:
        raise pytest.UsageError(
            f"--citations-record={options.record_mode.value} sends requests and needs "
            f"{' and '.join(missing)}; set {'it' if len(missing) == 1 else 'them'} in the "
            "environment (replay with the default --citations-record=none needs no token)"
        )


class Runtime:
    """Verifier, cassettes and per-file results for one pytest process."""

    def __init__(self, config: pytest.Config, options: Options) -> None:
        self.config = config
        self.options = options
        pytest_cache = getattr(config, "cache", None)  # absent with -p no:cacheprovider
        cache = pytest_cache.mkdir("citations-embeddings") if pytest_cache is not None else None
        self.settings = build_settings(options, Path(cache) if cache is not None else None)
        self.redaction = LogRedaction(self.settings.redactor()).install()
        vcr_config = build_vcr(self.settings.redactor())
        config.hook.pytest_citations_vcr(config=config, vcr=vcr_config)
        keep_builtin_scrubbing(vcr_config, self.settings.redactor())
        self.backends = Backends()
        config.hook.pytest_citations_backends(config=config, backends=self.backends)
        self.library = CassetteLibrary(
            vcr_config, options.record_mode, self.record_command, root=config.rootpath
        )
        self._verifier: SyncVerifier | None = None
        self._results: dict[Path, dict[tuple[str, int], ClaimVerdict]] = {}
        self._failures: dict[Path, BaseException] = {}
        self.audit = AuditLog(options.audit) if options.audit else None
        self.baseline = Baseline.load(options.baseline) if options.baseline else None
        self._sources: list[Path] = []
        self._test_sources: dict[Path, str] = {}

    # Cassettes ------------------------------------------------------------------------
    def cassette_path(self, source: Path) -> Path:
        """The cassette of a case file: its path mirrored under the cassette folder, its
        suffix kept (``a.yaml`` and ``a.yml`` are two files, so two cassettes)."""
        try:
            relative = source.resolve().relative_to(self.config.rootpath.resolve())
        except ValueError:
            relative = Path(source.name)
        if relative.suffix not in (".yaml", ".yml"):
            relative = relative.with_suffix(".yaml")
        return self.library.assign(
            self.options.cassette_dir / relative,
            source.resolve(),
            f"the case file {_relative(source, self.config.rootpath)}",
        )

    def test_cassette_path(self, module: Path, test_name: str) -> Path:
        """A test's cassette: ``<cassettes>/<module>/<test>.yaml`` (pytest-recording's way)."""
        safe = "".join(ch if ch.isalnum() or ch in "-_.[]" else "-" for ch in test_name)
        return self.library.assign(
            self.options.cassette_dir / module.stem / f"{safe}.yaml",
            (module.resolve(), test_name),
            f"the test {_relative(module, self.config.rootpath)}::{test_name}",
        )

    def record_command(self, cassette: Path) -> str:
        """The command that records what a cassette lacks."""
        variables = [f"{name}=…" for name in self.backends.required(self.settings)]
        target = self._source_of(cassette)
        parts = [*variables, "pytest"]
        parts += ["--citations", target] if target.endswith((".yaml", ".yml")) else [target]
        parts.append("--citations-record=new_episodes")
        return " ".join(parts)

    def register_test_source(self, cassette: Path, nodeid: str) -> None:
        """Remember which test a cassette belongs to, for the record command."""
        self._test_sources[cassette] = nodeid

    def _source_of(self, cassette: Path) -> str:
        for source in self._sources:
            if self.cassette_path(source) == cassette:
                return _relative(source, self.config.rootpath)
        return self._test_sources.get(cassette, str(cassette))

    # Verifier -------------------------------------------------------------------------
    @property
    def verifier(self) -> SyncVerifier:
        """The session's verifier, started on first use."""
        if self._verifier is None:
            inner = network_transport(self.settings)
            http = make_http_client(self.settings, CassetteTransport(self.library, inner))
            self._verifier = SyncVerifier(
                Verifier(
                    self.settings,
                    http=http,
                    audit=self.audit,
                    backends=self.backends,
                    observer=self.library,
                )
            )
        return self._verifier

    def run_in_cassette(
        self, session: CassetteSession, requests: Sequence[ClaimRequest]
    ) -> list[ClaimVerdict]:
        """Verify claims concurrently with their traffic going to ``session``'s cassette."""
        verifier = self.verifier

        async def run() -> list[ClaimVerdict]:
            with session.active():
                return await verifier.verifier.verify_many(requests)

        return verifier.run(run())

    def file_results(
        self, path: Path, cases: Sequence[Case]
    ) -> dict[tuple[str, int], ClaimVerdict]:
        """Verdicts of every claim of a case file, verified together on first request."""
        if path in self._failures:
            raise self._failures[path]
        if path not in self._results:
            self._sources.append(path)
            pairs = [(case, claim) for case in cases for claim in case.claims]
            session = self.library.open(self.cassette_path(path))
            try:
                verdicts = self.run_in_cassette(
                    session,
                    [
                        ClaimRequest.of(claim.text, claim.urls, case.retrieved)
                        for case, claim in pairs
                    ],
                )
            except Exception as error:
                self._failures[path] = error  # the file's other items report the same cause
                raise
            finally:
                session.close()
            self._results[path] = {
                (case.id, claim.index): verdict
                for (case, claim), verdict in zip(pairs, verdicts, strict=True)
            }
        return self._results[path]

    def assess(self, case: Case, claim: Claim, verdict: ClaimVerdict) -> ClaimAssessment:
        """A claim's verdict against its case's acceptance criteria."""
        markers = {case.citations[m]: m for m in reversed(claim.markers) if m in case.citations}
        return assess_claim(
            verdict,
            ClaimFacts(topic=claim.topic, general=claim.general, markers=tuple(markers.items())),
            self.options.criteria_for(case),
        )

    @property
    def usage(self) -> Usage:
        """What this process spent."""
        return self._verifier.usage if self._verifier is not None else Usage()

    def close(self) -> None:
        """Stop the verifier and undo the log redaction."""
        if self._verifier is not None:
            self._verifier.close()
            self._verifier = None
        if self.audit is not None:
            self.audit.close()
        self.redaction.uninstall()


def _relative(path: Path, root: Path) -> str:
    try:
        return str(path.resolve().relative_to(root.resolve()))
    except ValueError:
        return str(path)
