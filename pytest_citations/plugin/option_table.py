"""The option table: one row per option drives ``addoption``, ``addini`` and the
precedence (command line > environment > ini > default), written once in :mod:`.flags`.

Every option ``X`` is the flag ``--citations-X`` and the ini key ``citations_X`` (hyphens
become underscores); a renamed ini key keeps working with a deprecation warning. What a
session makes of the rows' values is :class:`.options.Options`.
"""

from __future__ import annotations

from collections.abc import Mapping

from ..drift import DEFAULT_FAIL_ON
from ..fetchers import FETCHERS
from ..judges import JUDGES
from ..judges.config import DEFAULT_PROVIDER, MODEL_VARIABLE, PROVIDER_VARIABLE
from ..labels import DEFAULT_FAILING_LABELS
from ..pipeline.settings import LIMITS, Limit
from ..recording import RecordMode
from ..retrieval import DEFAULT_MAX_WORDS, DEFAULT_TOP_K
from ..retrieval.embedders import DEFAULT_EMBEDDING_MODEL
from ..retrieval.lines import EVIDENCE_WORDS
from .flags import Option
from .values import (
    agreement,
    drift_fail_on,
    evidence_words,
    fraction,
    labels,
    record_mode,
    shard,
    trusted_keys,
    whole_number,
)

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
        parse=limit.parse,
        metavar=limit.metavar,
    )


OPTIONS: tuple[Option, ...] = (
    Option(
        "record",
        "cassette record mode (default: none = replay only, offline)",
        kind="parse",
        default=RecordMode.NONE,
        parse=record_mode,
        choices=tuple(mode.value for mode in RecordMode),
        old_ini="citations_record_mode",
    ),
    Option(
        "judge",
        f"judge provider: {_named(JUDGES, DEFAULT_PROVIDER)}",
        default=DEFAULT_PROVIDER,
        env=(PROVIDER_VARIABLE,),
    ),
    Option(
        "model", "judge model of the provider (default: the provider's own)", env=(MODEL_VARIABLE,)
    ),
    Option(
        "judge-votes",
        "ask the judge N times per citation and keep the majority label, a "
        "tie to the stricter (default 1)",
        kind="parse",
        default=1,
        parse=whole_number,
        metavar="N",
    ),
    *(_limit_option(limit) for limit in LIMITS),
    Option(
        "cassette-dir",
        "cassette folder, relative to the ini file's folder (default cassettes/)",
        kind="path",
        default="cassettes",
    ),
    Option(
        "report",
        "write the JSON report of every case, claim and citation to PATH",
        kind="path",
        metavar="PATH",
    ),
    Option("html", "write a self-contained HTML report to PATH", kind="path", metavar="PATH"),
    Option(
        "csv",
        "write one CSV row per citation (the batch report) to PATH",
        kind="path",
        metavar="PATH",
    ),
    Option(
        "markdown",
        "write the run's Markdown summary (the GitHub job summary) to PATH",
        kind="path",
        metavar="PATH",
    ),
    Option(
        "source-sha",
        "the commit the reports link each claim's line at under GitHub Actions: a pull "
        "request's head (default GITHUB_SHA)",
        metavar="SHA",
        env=("CITATIONS_SOURCE_SHA",),
    ),
    Option(
        "artifact",
        "the artifact the reports are uploaded as, which the Markdown summary names for the "
        "HTML report",
        metavar="NAME",
        env=("CITATIONS_ARTIFACT",),
    ),
    Option(
        "min-precision",
        "fail a case, and the run, whose citation precision is below X",
        kind="parse",
        parse=fraction,
        metavar="X",
    ),
    Option(
        "min-supported-share",
        "fail a case, and the run, whose share of fully supported claims is below X",
        kind="parse",
        parse=fraction,
        metavar="X",
    ),
    Option(
        "fail-on",
        "claim labels that fail a claim (default contradicted,partial,"
        "not_found,misattributed,unreachable)",
        kind="parse",
        default=tuple(label.value for label in DEFAULT_FAILING_LABELS),
        parse=labels,
        metavar="LABELS",
        ini_type="args",
    ),
    Option(
        "embedder",
        "embedding model name or path (default all-MiniLM-L6-v2)",
        default=DEFAULT_EMBEDDING_MODEL,
        env=("CITATIONS_EMBEDDING_MODEL",),
        old_ini="citations_embedding_model",
    ),
    Option(
        "evidence-words",
        "words of the page the judge is shown per citation, chosen line "
        "by line (default 560); 0 shows the top-k passages instead",
        kind="parse",
        default=EVIDENCE_WORDS,
        parse=evidence_words,
        metavar="N",
        old_flag="--citations-budget",
        old_ini="citations_budget",
    ),
    Option(
        "top-k",
        "passages the judge is shown per citation where the evidence words are 0 "
        "or the claim and the page are in different languages (default 3)",
        kind="parse",
        default=DEFAULT_TOP_K,
        parse=whole_number,
        metavar="N",
    ),
    Option(
        "passage-words",
        "words a passage holds at most (default 200)",
        kind="parse",
        default=DEFAULT_MAX_WORDS,
        parse=whole_number,
        metavar="N",
    ),
    Option(
        "audit",
        "append every citation verdict to an SQLite audit index at PATH",
        kind="path",
        metavar="PATH",
        old_ini="citations_audit_db",
    ),
    Option(
        "baseline",
        "compare claim labels with the baseline at PATH; worse labels fail",
        kind="path",
        metavar="PATH",
    ),
    Option(
        "update-baseline",
        "write this run's labels to the baseline, like syrupy's "
        "--snapshot-update: a changed label does not fail its claim (unused entries are "
        "removed only after a full run)",
        kind="bool",
        default=False,
        ini=False,
    ),
    Option(
        "baseline-fail-unused",
        "fail the run when the baseline keeps entries of claims that no longer exist",
        kind="bool",
        default=False,
    ),
    Option(
        "compare",
        "compare the run, case by case, with the base branch's JSON report "
        "(or a baseline file) at PATH: claims added, removed and changed, labels, "
        "precision",
        kind="path",
        metavar="PATH",
    ),
    Option(
        "fail-on-regression",
        "with --citations-compare: fail the run when a claim became failing against the base",
        kind="bool",
        default=False,
    ),
    Option(
        "max-precision-drop",
        "with --citations-compare: fail the run when a case's, or "
        "the run's, citation precision fell by more than X against the base",
        kind="parse",
        parse=fraction,
        metavar="X",
    ),
    Option(
        "shard",
        "run shard K of N (1/3, 2/3, 3/3 on three runners): whole files, shared "
        "out by their paths; merge the shards' JSON reports with pytest-citations merge",
        kind="parse",
        parse=shard,
        metavar="K/N",
        ini=False,
    ),
    Option(
        "calibrate",
        "report the judge's agreement with the claims' 'expect:' labels",
        kind="bool",
        default=False,
    ),
    Option(
        "allow-unchecked",
        "count citations that could not be checked (fetch or judge "
        "errors, missing recordings) as their labels instead of making their claims errors",
        kind="bool",
        default=False,
    ),
    Option(
        "fetcher",
        f"fetcher backend: {_named(FETCHERS, 'crawlbase')}, or one a plugin registered",
        default="crawlbase",
    ),
    Option(
        "drift",
        "after the tests, fetch every page the case files' cassettes hold, live, "
        "and report which recorded verdicts the web no longer backs",
        kind="bool",
        default=False,
        ini=False,
    ),
    Option(
        "drift-update",
        "with --citations-drift: write new recordings for the citations "
        "it checked again (only those; reviewed recordings of unchanged pages stay "
        "byte-identical)",
        kind="bool",
        default=False,
        ini=False,
    ),
    Option(
        "drift-fail-on",
        "drift statuses that fail the run: unchanged, edited, "
        "evidence_changed, moved, gone, now_needs_js, now_pdf, unchecked, flipped "
        "(default gone,flipped)",
        kind="parse",
        default=DEFAULT_FAIL_ON,
        parse=drift_fail_on,
        metavar="STATUSES",
        ini_type="args",
    ),
    Option(
        "forbid-contradicted-topics",
        "topics whose contradicted claims always fail",
        kind="args",
        default=(),
        flag=False,
    ),
    Option(
        "numbers-traceable",
        "every number and date of a claim must stand in its evidence",
        kind="bool",
        default=False,
        flag=False,
    ),
    Option(
        "uncited-allowed",
        "uncited claims may pass when marked general: true and free of figures",
        kind="bool",
        default=True,
        flag=False,
    ),
    Option(
        "min-agreement",
        "calibration gate: kappa (default), accuracy=X or balanced_accuracy=X",
        kind="parse",
        parse=agreement,
        flag=False,
    ),
    Option(
        "files",
        "glob-style patterns of case files, like python_files (default *.yaml *.yml)",
        kind="args",
        default=DEFAULT_CASE_GLOBS,
        flag=False,
    ),
    Option(
        "trusted-keys",
        "public keys, one a line (ssh-ed25519 AAAA…): a replay refuses "
        "every cassette that none of them signed (CITATIONS_SIGNING_KEY signs)",
        kind="parse",
        parse=trusted_keys,
        flag=False,
        ini_type="linelist",
    ),
)
