"""The plugin's options for one session (:class:`Options`), read from the option table
(:data:`.option_table.OPTIONS`) after the precedence, and checked together: an option that
needs another is a usage error without it.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from ..drift import DEFAULT_FAIL_ON
from ..fetchers.rules import DEFAULT_MAX_PAGE_CHARS
from ..gating.criteria import Criteria
from ..gating.run_result import RunGates
from ..judges import JudgeConfig
from ..network.config import BUDGETS, NETWORK_LIMITS, Limit, NetworkConfig, SpendingLimits
from ..paths import shown
from ..pipeline.backends import Backends
from ..pipeline.settings import LIMITS
from ..recording import RecordMode
from ..reports import RENDERERS
from ..retrieval.lines import EVIDENCE_WORDS
from .flags import GIVEN, read_options
from .option_table import DEFAULT_CASE_GLOBS, OPTIONS

if TYPE_CHECKING:  # loaded by the run that shards, or that has trusted keys (see .values)
    from ..gating.shards import Shard
    from ..recording.signing import TrustedKeys

#: Where pytest_configure keeps the session's options.
OPTIONS_KEY = pytest.StashKey["Options"]()
#: The judges and fetchers of the run, after the ``pytest_citations_backends`` hooks.
BACKENDS_KEY = pytest.StashKey[Backends]()
#: The run's id, one for the controller and every xdist worker (reports and audit index).
RUN_ID_KEY = pytest.StashKey[str]()
RUN_ID_INPUT = "citations_run_id"


#: The settings a run pins when given explicitly, by option name: a recorded choice made
#: with other values is an error on replay (Settings.pinned).
PINNING = {
    "embedder": "embedding_model",
    "evidence_words": "evidence_words",
    "top_k": "top_k",
    "passage_words": "passage_words",
    "judge_votes": "judge_votes",
}


def project_root(config: pytest.Config) -> Path:
    """The folder the cassette folder and the baseline are relative to: the ini file's
    folder, else the folder pytest was started from. Never pytest's rootdir, which any
    existing path on the command line can move (an option's value included), so that an
    option pointing outside the project never moves where recordings are read and written."""
    if config.inipath is not None:
        return config.inipath.parent
    return config.invocation_params.dir


def _given(values: dict[str, Any], limits: Iterable[Limit]) -> dict[str, Any]:
    """The values of ``limits`` that were given (flag, environment or ini), by field."""
    return {
        limit.field: values[limit.name.replace("-", "_")]
        for limit in limits
        if values[limit.name.replace("-", "_")] is not None
    }


def _network(values: dict[str, Any]) -> NetworkConfig:
    """How the network sends, from the limits given; a run that sends nothing live (no
    recording, no drift check) waits on nothing: no backoff, nor a recorded Retry-After."""
    network = NetworkConfig(**_given(values, NETWORK_LIMITS))
    return network if values["record"].records or values["drift"] else network.without_backoff()


def _check_combinations(values: dict[str, Any], *, enabled: bool) -> None:
    """An option that needs another one is a usage error without it."""
    if values["update_baseline"] and values["baseline"] is None:
        raise pytest.UsageError("--citations-update-baseline needs --citations-baseline PATH")
    if values["drift_update"] and not values["drift"]:
        raise pytest.UsageError("--citations-drift-update needs --citations-drift")
    if values["shard"] is not None and not enabled:
        raise pytest.UsageError("--citations-shard needs --citations")
    for gate in ("fail_on_regression", "max_precision_drop"):
        if values[gate] not in (None, False) and values["compare"] is None:
            flag = "--citations-" + gate.replace("_", "-")
            raise pytest.UsageError(f"{flag} needs --citations-compare BASE.json")


@dataclass(frozen=True)
class Options:
    """The plugin's settings for one session, after the precedence."""

    enabled: bool
    #: Where the project's own paths (cassettes, baseline) are anchored: see project_root.
    root: Path
    record_mode: RecordMode
    cassette_dir: Path
    #: The judge: its provider, the model it asks (the header and the reports name it) and
    #: where, resolved once from the options and the environment.
    judge: JudgeConfig
    #: How the network sends (see :func:`_network`) and what the run may spend live: the
    #: stages' own configs, built once here from the limits given.
    network: NetworkConfig
    spending: SpendingLimits
    criteria: Criteria
    embedding_model: str
    fetcher: str
    #: Characters of a fetched page kept for retrieval (``--citations-max-page-chars``).
    max_page_chars: int = DEFAULT_MAX_PAGE_CHARS
    #: Words of the page the judge is shown per citation (0: the top-k passages), passages
    #: shown where those do not apply, and the words a passage holds at most.
    evidence_words: int = EVIDENCE_WORDS
    top_k: int = 3
    passage_words: int = 200
    #: How many times the judge is asked about each citation (``--citations-judge-votes``).
    judge_votes: int = 1
    #: The settings given explicitly (see :data:`PINNING`).
    pinned: frozenset[str] = frozenset()
    reports: dict[str, Path] = field(default_factory=dict)
    audit: Path | None = None
    baseline: Path | None = None
    update_baseline: bool = False
    baseline_fail_unused: bool = False
    calibrate: bool = False
    min_agreement: tuple[str, float] | None = None
    allow_unchecked: bool = False
    #: The limits that were given, by field, as the header names them (concurrency apart).
    limits: dict[str, float] = field(default_factory=dict)
    case_globs: Sequence[str] = DEFAULT_CASE_GLOBS
    #: ``citations_files`` was set in the ini file: the project has case files to run.
    case_globs_given: bool = False
    #: ``--citations-drift``: check the cassettes against the live web after the tests.
    drift: bool = False
    drift_update: bool = False
    drift_fail_on: tuple[str, ...] = DEFAULT_FAIL_ON
    #: ``--citations-shard K/N``: the shard of the run this process runs.
    shard: Shard | None = None
    #: ``--citations-compare``: the base this run is compared with, and its gates.
    compare: Path | None = None
    fail_on_regression: bool = False
    max_precision_drop: float | None = None
    #: ``citations_trusted_keys``: the keys one of which must have signed every cassette.
    trusted_keys: TrustedKeys | None = None
    #: ``--citations-source-sha`` and ``--citations-artifact``: where the reports link to.
    source_sha: str | None = None
    artifact: str | None = None

    @property
    def gates(self) -> RunGates:
        """What the run is asked to meet, as the JSON report records it."""
        return RunGates(
            criteria=self.criteria,
            calibrate=self.calibrate,
            min_agreement=self.min_agreement,
            compare=shown(self.compare, self.root) if self.compare is not None else None,
            fail_on_regression=self.fail_on_regression,
            max_precision_drop=self.max_precision_drop,
            update_baseline=self.update_baseline,
            baseline_fail_unused=self.baseline_fail_unused,
        )

    @property
    def fail_on(self) -> tuple[str, ...]:
        """The claim labels that fail a claim (ini and command line)."""
        return self.criteria.fail_on

    @property
    def min_precision(self) -> float | None:
        """The suite's (and each case's default) minimum citation precision."""
        return self.criteria.min_precision

    @property
    def report(self) -> Path | None:
        """The JSON report's path, if one was asked for."""
        return self.reports.get("json")

    @classmethod
    def from_config(cls, config: pytest.Config, backends: Backends) -> Options:
        """Read the table. The judge is resolved here, once: the model is the option (or
        ``JUDGE_MODEL``), then the chosen provider's own variable (``OPENAI_MODEL``), then
        the provider's default (of ``backends``: a judge a plugin registered included)."""
        values = read_options(config, OPTIONS)
        root = project_root(config)
        _check_combinations(values, enabled=bool(config.getoption("citations", False)))
        judge = backends.judge_config(os.environ, provider=values["judge"], model=values["model"])
        cassettes = Path(values["cassette_dir"])
        # Each report format's option has the format's name (the JSON report's is "report").
        formats = {name: values.get("report" if name == "json" else name) for name in RENDERERS}
        return cls(
            enabled=bool(config.getoption("citations", False)),
            root=root,
            record_mode=values["record"],
            cassette_dir=cassettes if cassettes.is_absolute() else root / cassettes,
            judge=judge,
            network=_network(values),
            spending=SpendingLimits(**_given(values, BUDGETS)),
            criteria=Criteria(
                fail_on=values["fail_on"],
                forbid_contradicted_topics=values["forbid_contradicted_topics"],
                numbers_traceable=values["numbers_traceable"],
                min_supported_share=values["min_supported_share"],
                uncited_allowed=values["uncited_allowed"],
                min_precision=values["min_precision"],
                allow_unchecked=values["allow_unchecked"],
            ),
            embedding_model=values["embedder"],
            evidence_words=values["evidence_words"],
            top_k=values["top_k"],
            passage_words=values["passage_words"],
            judge_votes=values["judge_votes"],
            pinned=frozenset(PINNING[name] for name in values[GIVEN] if name in PINNING),
            fetcher=values["fetcher"],
            max_page_chars=values["max_page_chars"] or DEFAULT_MAX_PAGE_CHARS,
            reports={name: Path(path) for name, path in formats.items() if path},
            audit=Path(values["audit"]) if values["audit"] else None,
            baseline=root / values["baseline"] if values["baseline"] else None,
            update_baseline=values["update_baseline"],
            baseline_fail_unused=values["baseline_fail_unused"],
            calibrate=values["calibrate"],
            min_agreement=values["min_agreement"],
            allow_unchecked=values["allow_unchecked"],
            limits=_given(values, (limit for limit in LIMITS if limit.field != "concurrency")),
            case_globs=values["files"],
            case_globs_given="files" in values[GIVEN],
            drift=values["drift"],
            drift_update=values["drift_update"],
            drift_fail_on=values["drift_fail_on"],
            shard=values["shard"],
            compare=root / values["compare"] if values["compare"] else None,
            fail_on_regression=values["fail_on_regression"],
            max_precision_drop=values["max_precision_drop"],
            trusted_keys=values["trusted_keys"],
            source_sha=values["source_sha"],
            artifact=values["artifact"],
        )
