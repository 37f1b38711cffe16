"""``pytest-citations cassettes prune PATH…``: the recordings no case file needs any more,
listed by cassette with their size (exit 1 when there are some, as a check in CI), and with
``--write`` taken out (exit 0 once they are). The engine is
:mod:`pytest_citations.upkeep.prune`."""

from __future__ import annotations

import argparse
from pathlib import Path

from ..errors import ConfigurationError
from ..labels import counted
from ..pipeline.settings import Settings
from ..recording.signing import refused_writes
from ..recording.unplayed import size_of
from ..upkeep.prune import Pruned, prune_cassettes, tally
from .common import EXIT_CODES, EXIT_FAILED, EXIT_OK, EXIT_USAGE, Subcommands, run_engine, say
from .signing import add_trust_option, trust_of

_PRUNE = (
    "List every recording no case file needs any more, by cassette, with its size: judge "
    "calls and retrieval choices of claims reworded or removed, fetches of URLs no claim "
    "cites or retrieved, and the cassettes of deleted case files. Decided from the case "
    "files and the cassettes alone: no model, nothing sent. What cannot be told (a test's "
    "cassette, a judge call no retrieval choice names) is kept and said. With --write, "
    "take them out: each cassette is rewritten atomically with everything still needed kept "
    "byte for byte (signed again when CITATIONS_SIGNING_KEY is set), and the cassette of a "
    "deleted case file is deleted."
)


def add_action(actions: Subcommands, parent: argparse.ArgumentParser) -> None:
    """The ``prune`` action of the ``cassettes`` command."""
    prune = actions.add_parser(
        "prune",
        parents=[parent],
        help="list (with --write remove) the recordings no case file needs any more",
        description=_PRUNE,
        epilog=EXIT_CODES + " Prune exits 1 when something is stale (without --write), or "
        "when a cassette could not be read or pruned; 0 when nothing is stale, or --write "
        "took out all of it.",
    )
    prune.add_argument(
        "paths", nargs="+", metavar="PATH", help="a cassette, or a folder of cassettes"
    )
    prune.add_argument(
        "--root",
        default=".",
        help="the project's root, where pytest runs (cassettes and case files are named "
        "relative to it; default: the current folder)",
    )
    prune.add_argument(
        "--cassette-dir",
        default="cassettes",
        help="the cassette folder, relative to --root (default: cassettes)",
    )
    prune.add_argument(
        "--write",
        action="store_true",
        help="take the stale recordings out (each file rewritten atomically, the cassette of "
        "a deleted case file deleted)",
    )
    add_trust_option(prune)
    prune.set_defaults(run=run_prune)


def summary(found: list[Pruned], written: bool) -> str:
    """The last line: how many stale recordings in how many of the cassettes, and what was
    not pruned."""
    total = tally(found)
    files = counted(len(found), "cassette")
    size = size_of(total.size)
    if not total.recordings:
        line = f"cassettes prune: {files}, nothing stale"
    elif written:
        stale = counted(total.recordings, "stale recording")
        line = f"cassettes prune: removed {stale} from {total.cassettes} of {files} ({size})"
    else:
        stale = counted(total.recordings, "stale recording")
        line = (
            f"cassettes prune: {stale} in {total.cassettes} of {files} ({size}); "
            "--write removes them"
        )
    left = sum(1 for pruned in found if pruned.problem)
    return line + (f"; {counted(left, 'cassette')} not pruned" if left else "")


def run_prune(args: argparse.Namespace) -> int:
    """List (and with ``--write`` take out) what is stale, print, exit by the module's rule."""
    root = Path(args.root)
    try:
        paths = [Path(path) for path in args.paths]
        for path in paths:
            if not path.exists():
                raise ConfigurationError(f"no cassette or folder at {path}")
        trust = trust_of(args, root)
        refused = refused_writes(trust) if args.write else None
    except (OSError, ConfigurationError) as error:
        say(error)
        return EXIT_USAGE
    if refused is not None:
        say(f"warning: {refused}")

    async def work(settings: Settings) -> int:
        found = await prune_cassettes(
            paths, settings, root / args.cassette_dir, root, write=args.write, trust=trust
        )
        for pruned in found:
            for line in pruned.lines():
                print(line)
        print(summary(found, args.write))
        failed = any(pruned.problem for pruned in found)
        stale = not args.write and tally(found).recordings
        return EXIT_FAILED if failed or stale else EXIT_OK

    return run_engine(args, work, needs_all=False)
