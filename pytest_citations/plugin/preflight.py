"""What a run refuses before it sends anything: a cassette folder that is not there, a
recording without its secrets or models, an unusable signing key, a budget split across
xdist workers. Each is a usage error that names what to fix."""

from __future__ import annotations

import pytest

from ..distribution import install_command
from ..network.config import BUDGETS
from ..pipeline.backends import Backends
from ..pipeline.settings import Settings
from ..recording import RecordMode
from ..retrieval.embedders import missing_models
from .options import Options

#: Record modes that may start a cassette folder: each records every cassette it lacks, as
#: a first recording does. A replay (none) has nothing to play without it, and new_episodes,
#: which records only what an existing recording lacks, would record the whole suite again
#: into a folder named by mistake: it starts only the default one (``cassettes/``).
_STARTS_FOLDER = (RecordMode.ONCE, RecordMode.ALL, RecordMode.REWRITE)


def check_cassette_folder(options: Options) -> None:
    """A usage error naming the cassette folder's absolute path when it does not exist and
    the record mode needs it (see :data:`_STARTS_FOLDER`)."""
    folder = options.cassette_dir
    if folder.is_dir() or options.record_mode in _STARTS_FOLDER:
        return
    where = f"the cassette folder {folder.resolve()} does not exist"
    if options.record_mode is RecordMode.NONE:
        raise pytest.UsageError(
            f"{where}: a replay has no recording to play. Check --citations-cassette-dir "
            "(ini citations_cassette_dir) and the rootdir; a first recording creates it "
            "(--citations-record=once)"
        )
    if folder == options.root / "cassettes":
        return  # the default folder, which a first recording starts
    raise pytest.UsageError(
        f"{where}: --citations-record={options.record_mode.value} records only what a "
        "recording lacks, and would record the whole suite again. Check "
        "--citations-cassette-dir (ini citations_cassette_dir) and the rootdir; a first "
        "recording creates it (--citations-record=once)"
    )


def check_recording_secrets(options: Options, settings: Settings, backends: Backends) -> None:
    """Recording needs real secrets and the embedding models (a replay needs neither): one
    usage error names every missing variable, another the extra that brings the models."""
    live = options.record_mode.records or options.drift
    if not live:
        return
    asked = (
        f"--citations-record={options.record_mode.value}"
        if options.record_mode.records
        else "--citations-drift"
    )
    models = missing_models(settings.embedding_model)
    if models:
        extra = install_command("record")
        raise pytest.UsageError(
            f"{asked} chooses the passages the judge sees with the embedder "
            f"{settings.embedding_model}, which needs {', '.join(models)}: {extra} "
            "(a replay needs no model), or choose --citations-embedder lexical"
        )
    missing = settings.missing(backends)
    if missing:
        raise pytest.UsageError(
            f"{asked} sends requests and needs "
            f"{' and '.join(missing)}; set {'it' if len(missing) == 1 else 'them'} in the "
            "environment (replay with the default --citations-record=none needs no token)"
        )


def check_signing(options: Options) -> str | None:
    """What a run that writes cassettes (recording, drift's update) must hear about
    signing: a usage error when ``CITATIONS_SIGNING_KEY`` holds no usable key (before
    anything is paid for), and a warning (returned) when the trusted keys will refuse what
    it writes."""
    if not (options.record_mode.records or options.drift_update):
        return None
    # Only a run that writes cassettes signs them: the signing machinery loads here.
    from ..recording.signing import SigningKeyError, refused_writes

    try:
        return refused_writes(options.trusted_keys)
    except SigningKeyError as error:
        raise pytest.UsageError(f"citations: {error}") from None


def refuse_budget_under_xdist(config: pytest.Config, options: Options) -> None:
    """A usage error when a budget would be counted on several xdist workers, each of
    which would spend it in full."""
    given = options.spending.given
    if given and (getattr(config.option, "numprocesses", None) or hasattr(config, "workerinput")):
        names = [limit.name for limit in BUDGETS if limit.field in given]
        flags = " and ".join(f"--citations-{name}" for name in names)
        raise pytest.UsageError(
            f"{flags} counts what one process spends: run it without xdist (-n 0 or "
            "-p no:xdist), so that the budget holds for the whole run"
        )
