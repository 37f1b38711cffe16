"""The parser of the ``pytest-citations`` command and its entry point."""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from ..distribution import __version__
from . import (
    batch,
    cassettes,
    drift,
    importer,
    merge,
    sandbox,
    schema,
    serve,
    stored_page,
    verify,
)
from .common import (
    EXIT_CODES,
    EXIT_NO_MODELS,
    PROG,
    Command,
    global_options,
    models_missing,
    say,
)
from .output import command_free_output

#: The subcommands in the order ``--help`` lists them.
COMMANDS = (verify, batch, drift, merge, cassettes, stored_page, importer, schema, serve, sandbox)
#: The commands that choose passages for a judge: without the models they stop at once.
CHOOSE_PASSAGES = frozenset({"verify", "batch", "drift", "serve"})


def build_parser() -> argparse.ArgumentParser:
    """The argument parser, with ``--help`` for every command."""
    parent = global_options()
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Verify that cited pages support claims (Crawlbase + an LLM judge), "
        "and turn a RAG application's answers into case files for pytest --citations.",
        epilog=EXIT_CODES,
        parents=[parent],
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = parser.add_subparsers(
        dest="command", required=True, metavar="COMMAND", title="commands"
    )
    for command in COMMANDS:
        command.add(commands, parent)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``pytest-citations`` command."""
    with command_free_output():
        args = build_parser().parse_args(argv)
        if args.command in CHOOSE_PASSAGES:
            problem = models_missing(args)
            if problem is not None:
                say(problem)
                return EXIT_NO_MODELS
        run: Command = args.run
        return run(args)
