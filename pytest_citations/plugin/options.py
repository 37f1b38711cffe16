"""The plugin's options: one declarative table drives ``addoption``, ``addini`` and the
precedence (command line > environment > ini > default), written once in :mod:`.flags`.

Every option ``X`` is the flag ``--citations-X`` and the ini key ``citations_X`` (hyphens
become underscores); a renamed ini key keeps working with a deprecation warning.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from ..drift import DEFAULT_FAIL_ON
from ..fetchers import FETCHERS
from ..gating.criteria import Criteria
from ..gating.run_result import RunGates
from ..gating.shards import Shard
from ..judges import JUDGES, JudgeConfig
from ..judges.config import DEFAULT_PROVIDER, MODEL_VARIABLE, PROVIDER_VARIABLE
from ..labels import DEFAULT_FAILING_LABELS
from ..paths import shown
from ..pipeline.backends import Backends
from ..pipeline.settings import BUDGETS, LIMITS, Limit
from ..recording import RecordMode
from ..recording.signing import TrustedKeys
from ..reports import RENDERERS
from ..retrieval import DEFAULT_MAX_WORDS, DEFAULT_TOP_K
from ..retrieval.choosing import EVIDENCE_WORDS
from ..retrieval.embedders.base import DEFAULT_EMBEDDING_MODEL
from .flags import GIVEN, Option, add_options, read_options
from .values import (
    agreement,
    drift_fail_on,
    evidence_words,
    fraction,
    labels,
    limit_parser,
    record_mode,
    shard,
    trusted_keys,
    whole_number,
)

#: Where pytest_configure keeps the session's options.
OPTIONS_KEY = pytest.StashKey["Options"]()
#: The judges and fetchers of the run, after the ``pytest_citations_backends`` hooks.
BACKENDS_KEY = pytest.StashKey[Backends]()
#: The run's id, one for the controller and every xdist worker (reports and audit index).
RUN_ID_KEY = pytest.StashKey[str]()
RUN_ID_INPUT = "citations_run_id"
#: The default of ``citations_files``, as ``python_files`` is for modules.
DEFAULT_CASE_GLOBS = ("*.yaml", "*.yml")


def _named(registry: Mapping[str, object], default: str) -> str:
    """A registry's names for a help text, the default marked: ``openai (default), …``."""
    return ", ".join(f"{name} (default)" if name == default else name for name in registry)


def _limit_option(limit: Limit) -> Option:
    return Option(
        limit.name,
        limit.help,
        kind="parse",
        env=(limit.env,),
        parse=limit_parser(limit),
        metavar=limit.metavar,
    )


OPTIONS: tuple[Option, ...] = (
    Option("record", "cassette record mode (default: none = replay only, offline)",
           kind="parse", default=RecordMode.NONE, parse=record_mode,
           choices=tuple(mode.value for mode in RecordMode), old_ini="citations_record_mode"),
    Option("judge", f"judge provider: {_named(JUDGES, DEFAULT_PROVIDER)}",
           default=DEFAULT_PROVIDER, env=(PROVIDER_VARIABLE,)),
    Option("model", "judge model of the provider (default: the provider's own)",
           env=(MODEL_VARIABLE,)),
    Option("judge-votes", "ask the judge N times per citation and keep the majority label, a "
           "tie to the stricter (default 1)", kind="parse", default=1, parse=whole_number,
           metavar="N"),
    *(_limit_option(limit) for limit in LIMITS),
    Option("cassette-dir", "cassette folder, relative to the ini file's folder (default "
           "cassettes/)",
           kind="path", default="cassettes"),
    Option("report", "write the JSON report of every case, claim and citation to PATH",
           kind="path", metavar="PATH"),
    Option("html", "write a self-contained HTML report to PATH", kind="path", metavar="PATH"),
    Option("csv", "write one CSV row per citation (the batch report) to PATH",
           kind="path", metavar="PATH"),
    Option("markdown", "write the run's Markdown summary (the GitHub job summary) to PATH",
           kind="path", metavar="PATH"),
    Option("source-sha", "the commit the reports link each claim's line at under GitHub "
           "Actions: a pull request's head (default GITHUB_SHA)", metavar="SHA",
           env=("CITATIONS_SOURCE_SHA",)),
    Option("artifact", "the artifact the reports are uploaded as, which the Markdown summary "
           "names for the HTML report", metavar="NAME", env=("CITATIONS_ARTIFACT",)),
    Option("min-precision", "fail a case, and the run, whose citation precision is below X",
           kind="parse", parse=fraction, metavar="X"),
    Option("min-supported-share",
           "fail a case, and the run, whose share of fully supported claims is below X",
           kind="parse", parse=fraction, metavar="X"),
    Option("fail-on", "claim labels that fail a claim (default contradicted,partial,"
           "not_found,misattributed,unreachable)",
           kind="parse", default=tuple(label.value for label in DEFAULT_FAILING_LABELS),
           parse=labels, metavar="LABELS", ini_type="args"),
    Option("embedder", "embedding model name or path (default all-MiniLM-L6-v2)",
           default=DEFAULT_EMBEDDING_MODEL, env=("CITATIONS_EMBEDDING_MODEL",),
           old_ini="citations_embedding_model"),
    Option("evidence-words", "words of the page the judge is shown per citation, chosen line "
           "by line (default 560); 0 shows the top-k passages instead",
           kind="parse", default=EVIDENCE_WORDS, parse=evidence_words, metavar="N",
           old_flag="--citations-budget", old_ini="citations_budget"),
    Option("top-k", "passages the judge is shown per citation where the evidence words are 0 "
           "or the claim and the page are in different languages (default 3)",
           kind="parse", default=DEFAULT_TOP_K, parse=whole_number, metavar="N"),
    Option("passage-words", "words a passage holds at most (default 200)",
           kind="parse", default=DEFAULT_MAX_WORDS, parse=whole_number, metavar="N"),
    Option("audit", "append every citation verdict to an SQLite audit index at PATH",
           kind="path", metavar="PATH", old_ini="citations_audit_db"),
    Option("baseline", "compare claim labels with the baseline at PATH; worse labels fail",
           kind="path", metavar="PATH"),
    Option("update-baseline", "write this run's labels to the baseline, like syrupy's "
           "--snapshot-update: a changed label does not fail its claim (unused entries are "
           "removed only after a full run)", kind="bool", default=False, ini=False),
    Option("baseline-fail-unused", "fail the run when the baseline keeps entries of claims "
           "that no longer exist", kind="bool", default=False),
    Option("compare", "compare the run, case by case, with the base branch's JSON report "
           "(or a baseline file) at PATH: claims added, removed and changed, labels, "
           "precision", kind="path", metavar="PATH"),
    Option("fail-on-regression", "with --citations-compare: fail the run when a claim became "
           "failing against the base", kind="bool", default=False),
    Option("max-precision-drop", "with --citations-compare: fail the run when a case's, or "
           "the run's, citation precision fell by more than X against the base",
           kind="parse", parse=fraction, metavar="X"),
    Option("shard", "run shard K of N (1/3, 2/3, 3/3 on three runners): whole files, shared "
           "out by their paths; merge the shards' JSON reports with pytest-citations merge",
           kind="parse", parse=shard, metavar="K/N", ini=False),
    Option("calibrate", "report the judge's agreement with the claims' 'expect:' labels",
           kind="bool", default=False),
    Option("allow-unchecked", "count citations that could not be checked (fetch or judge "
           "errors, missing recordings) as their labels instead of making their claims errors",
           kind="bool", default=False),
    Option("fetcher", f"fetcher backend: {_named(FETCHERS, 'crawlbase')}, or one a plugin "
           "registered", default="crawlbase"),
    Option("drift", "after the tests, fetch every page the case files' cassettes hold, live, "
           "and report which recorded verdicts the web no longer backs", kind="bool",
           default=False, ini=False),
    Option("drift-update", "with --citations-drift: write new recordings for the citations "
           "it checked again (only those; reviewed recordings of unchanged pages stay "
           "byte-identical)", kind="bool", default=False, ini=False),
    Option("drift-fail-on", "drift statuses that fail the run: unchanged, edited, "
           "evidence_changed, moved, gone, now_needs_js, now_pdf, unchecked, flipped "
           "(default gone,flipped)", kind="parse", default=DEFAULT_FAIL_ON,
           parse=drift_fail_on, metavar="STATUSES", ini_type="args"),
    Option("forbid-contradicted-topics", "topics whose contradicted claims always fail",
           kind="args", default=(), flag=False),
    Option("numbers-traceable", "every number and date of a claim must stand in its evidence",
           kind="bool", default=False, flag=False),
    Option("uncited-allowed",
           "uncited claims may pass when marked general: true and free of figures",
           kind="bool", default=True, flag=False),
    Option("min-agreement", "calibration gate: kappa (default), accuracy=X or "
           "balanced_accuracy=X", kind="parse", parse=agreement, flag=False),
    Option("files", "glob-style patterns of case files, like python_files "
           "(default *.yaml *.yml)", kind="args", default=DEFAULT_CASE_GLOBS, flag=False),
    Option("trusted-keys", "public keys, one a line (ssh-ed25519 AAAA…): a replay refuses "
           "every cassette that none of them signed (CITATIONS_SIGNING_KEY signs)",
           kind="parse", parse=trusted_keys, flag=False, ini_type="linelist"),
)  # fmt: skip


def register(parser: pytest.Parser) -> None:
    """Add every option's flag and ini key (and its older ini name) to pytest."""
    add_options(parser, OPTIONS)


#: The settings a run pins when given explicitly, by option name: a recorded choice made
#: with other values is an error on replay (Settings.pinned).
PINNING = {
    "embedder": "embedding_model",
    "evidence_words": "evidence_words",
    "top_k": "top_k",
    "passage_words": "passage_words",
    "judge_votes": "judge_votes",
}


def read(config: pytest.Config) -> dict[str, Any]:
    """Every option's value by its name (``min_precision``), parsed and checked; a bad
    value is a usage error that names the flag."""
    return read_options(config, OPTIONS)


def project_root(config: pytest.Config) -> Path:
    """The folder the cassette folder and the baseline are relative to: the ini file's
    folder, else the folder pytest was started from. Never pytest's rootdir, which any
    existing path on the command line can move (an option's value included), so that an
    option pointing outside the project never moves where recordings are read and written."""
    if config.inipath is not None:
        return config.inipath.parent
    return config.invocation_params.dir


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
    concurrency: int
    criteria: Criteria
    embedding_model: str
    fetcher: str
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
    #: Request limits that were given; the others keep the engine's defaults.
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
    def spending_limits(self) -> dict[str, float]:
        """The spending budgets given, by settings field (``{"max_judge_calls": 3}``); not
        the words the judge is shown (:attr:`evidence_words`)."""
        return {limit.field: self.limits[limit.field] for limit in BUDGETS
                if limit.field in self.limits}  # fmt: skip

    @property
    def spending_limit_names(self) -> list[str]:
        """The names of the budgets given (``max-judge-calls``), in the table's order."""
        return [limit.name for limit in BUDGETS if limit.field in self.limits]

    @property
    def report(self) -> Path | None:
        """The JSON report's path, if one was asked for."""
        return self.reports.get("json")

    @classmethod
    def from_config(cls, config: pytest.Config, backends: Backends) -> Options:
        """Read the table. The judge is resolved here, once: the model is the option (or
        ``JUDGE_MODEL``), then the chosen provider's own variable (``OPENAI_MODEL``), then
        the provider's default (of ``backends``: a judge a plugin registered included)."""
        values = read(config)
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
            concurrency=int(values["concurrency"] or 4),
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
            reports={name: Path(path) for name, path in formats.items() if path},
            audit=Path(values["audit"]) if values["audit"] else None,
            baseline=root / values["baseline"] if values["baseline"] else None,
            update_baseline=values["update_baseline"],
            baseline_fail_unused=values["baseline_fail_unused"],
            calibrate=values["calibrate"],
            min_agreement=values["min_agreement"],
            allow_unchecked=values["allow_unchecked"],
            limits={
                limit.field: values[limit.name.replace("-", "_")]
                for limit in LIMITS
                if values[limit.name.replace("-", "_")] is not None and limit.field != "concurrency"
            },
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
