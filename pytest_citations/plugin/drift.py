"""``--citations-drift``: after the tests, every page the case files' cassettes hold is
fetched live once and compared with its recording (the engine is :mod:`pytest_citations.drift`);
the reporter prints and writes what changed, and the policy decides the exit status.

Drift runs in one process, so that each distinct URL is fetched once: under xdist it is a
usage error (``-n 0`` runs it)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

# The package, not its names: its modules load when a run asks for drift (PEP 562).
from .. import drift as engine
from ..errors import AccountError, CitationsError
from ..paths import shown
from .printing import printed
from .session import CitationsSession

if TYPE_CHECKING:
    from ..drift import DriftPlan, DriftReport


def refuse_under_xdist(config: pytest.Config) -> None:
    """A usage error when drift would run on several xdist workers."""
    if getattr(config.option, "numprocesses", None) or hasattr(config, "workerinput"):
        raise pytest.UsageError(
            "--citations-drift fetches each page once for the whole run and runs in one "
            "process: run it without xdist (-n 0 or -p no:xdist)"
        )


def check(
    session: pytest.Session, citations: CitationsSession, terminal: Any | None
) -> DriftReport | Exception:
    """Run the drift check over the case files this run collected; what went wrong when
    it could not run (that is never a pass)."""
    options = citations.options
    root = citations.root
    sources = [
        engine.DriftSource.from_cases(shown(path, root), citations.layout.case_file(path), cases)
        for path, cases in citations.planned_files
    ]

    def announce(plan: DriftPlan) -> None:  # before anything is sent
        if terminal is not None:
            terminal.write_line("")
            terminal.write_line(printed(plan.line()))

    try:
        return engine.run_drift(
            sources,
            citations.settings,
            update=options.drift_update,
            policy=engine.DriftPolicy.parse(
                options.drift_fail_on, allow_unchecked=options.allow_unchecked
            ),
            vcr_config=citations.vcr_config,
            backends=citations.backends,
            root=root,
            on_plan=announce,
            cassette_dir=options.cassette_dir,
            hint="wrong --citations-cassette-dir, or another rootdir?",
            trust=options.trusted_keys,
        )
    except AccountError as error:
        session.shouldstop = printed(str(error))
        return error
    except CitationsError as error:
        return error
