"""``pytest-citations schema``: the JSON Schema of case files, for editors and CI."""

from __future__ import annotations

import argparse
import sys

from ..cases.schema import schema_text
from .common import EXIT_CODES, EXIT_OK, Subcommands


def add(commands: Subcommands, parent: argparse.ArgumentParser) -> None:
    """The ``schema`` subcommand."""
    schema = commands.add_parser(
        "schema",
        parents=[parent],
        help="print the JSON Schema of case files (draft 2020-12)",
        description="Print the JSON Schema of case files. Save it beside your cases and "
        "name it on a case file's first line, '# yaml-language-server: "
        "$schema=case-file.schema.json', for completion and validation in the editor.",
        epilog=EXIT_CODES,
    )
    schema.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Print the schema."""
    sys.stdout.write(schema_text())
    return EXIT_OK
