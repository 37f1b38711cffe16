"""``pytest-citations verify CLAIM URL…``: one claim, its verdict as JSON on standard output."""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from pathlib import Path

from ..labels import Label
from ..pipeline.audit import AuditLog
from ..pipeline.settings import Settings
from ..pipeline.verifier import Verifier
from ..sanitize import clean
from ..verdicts import ClaimVerdict
from .common import EXIT_CODES, EXIT_FAILED, EXIT_OK, EXIT_USAGE, Subcommands, run_engine, say


def add(commands: Subcommands, parent: argparse.ArgumentParser) -> None:
    """The ``verify`` subcommand."""
    verify = commands.add_parser(
        "verify",
        parents=[parent],
        help="verify one claim against the pages it cites; prints the verdict as JSON",
        description="Verify CLAIM against URLs and print the verdict as JSON: the claim's "
        "label and, per URL, its label, evidence quote, confidence and fetch details.",
        epilog=EXIT_CODES,
    )
    verify.add_argument("claim", help="the claim to check, as one sentence (quote it)")
    verify.add_argument(
        "urls", nargs="+", metavar="URL", help="a page the claim cites (http or https)"
    )
    verify.add_argument(
        "--fail-on", metavar="LABELS", help="comma-separated claim labels that exit 1"
    )
    verify.add_argument("--audit", metavar="PATH", help="append verdicts to an SQLite audit index")
    add_allow_unchecked(verify)
    verify.set_defaults(run=run)


def add_allow_unchecked(parser: argparse.ArgumentParser) -> None:
    """``--allow-unchecked``, shared by ``verify`` and ``batch``."""
    parser.add_argument(
        "--allow-unchecked",
        action="store_true",
        help="exit 0 even when a citation could not be checked (fetch or judge errors)",
    )


def fail_on(args: argparse.Namespace) -> set[str]:
    """The labels of ``--fail-on`` (comma-separated)."""
    return {label.strip() for label in (args.fail_on or "").split(",") if label.strip()}


def unchecked_exit(args: argparse.Namespace, verdicts: Sequence[ClaimVerdict]) -> int:
    """A check that could not run is not a pass: exit 1 and say so, unless allowed."""
    unchecked = sum(len(verdict.unchecked) for verdict in verdicts)
    if not unchecked or args.allow_unchecked:
        return EXIT_OK
    say(
        f"{unchecked} citation(s) could not be checked (see their reasons); "
        "fix the cause and run again, or pass --allow-unchecked"
    )
    return EXIT_FAILED


def run(args: argparse.Namespace) -> int:
    """Check ``--fail-on`` (a typo must not turn the gate off), then verify."""
    known = [label.value for label in Label]
    unknown = sorted(fail_on(args) - set(known))
    if args.fail_on is not None and not fail_on(args):
        say("--fail-on names no label; name at least one of " + ", ".join(known))
        return EXIT_USAGE
    if unknown:
        say(f"--fail-on: unknown label {unknown[0]!r}; choose from " + ", ".join(known))
        return EXIT_USAGE

    async def work(settings: Settings) -> int:
        audit = AuditLog(Path(args.audit)) if args.audit else None
        try:
            async with Verifier(settings, audit=audit) as verifier:
                verdict = await verifier.verify(args.claim, args.urls)
        finally:
            if audit is not None:
                audit.close()
        print(json.dumps(clean(verdict.to_dict()), indent=2, ensure_ascii=False))
        if verdict.label.value in fail_on(args):
            return EXIT_FAILED
        return unchecked_exit(args, [verdict])

    return run_engine(args, work)
