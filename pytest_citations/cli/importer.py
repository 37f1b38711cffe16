"""``pytest-citations import answers.jsonl… --out cases/imported``: the answers a RAG
application produced, turned into case files to review, record and gate on."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from ..atomic import write_atomically
from ..cases.schema import schema_text
from ..errors import CitationsError
from ..importing import FORMAT_NAMES, GROUPINGS, UNMARKED_POLICIES, import_answers
from .common import EXIT_CODES, EXIT_FAILED, EXIT_OK, EXIT_USAGE, Subcommands, say

DEFAULT_OUT = "cases/imported"


def add(commands: Subcommands, parent: argparse.ArgumentParser) -> None:
    """The ``import`` subcommand."""
    command = commands.add_parser(
        "import",
        parents=[parent],
        help="turn answer records (JSONL) of a RAG application into case files",
        description="Import answer records into case YAML: one case per answer with its "
        "question, answer, numbered citations and one claim per sentence. Understands the "
        "generic {answer, citations} shape, OpenAI Responses and Chat Completions, "
        "Anthropic Messages, Gemini (generateContent and the Interactions API), Perplexity "
        "(the Agent API and Sonar), LangChain and LlamaIndex. A record that cannot be "
        "read is reported with its file and line and skipped (exit 1). Importing into case "
        "files that are already there merges: the review of every claim whose sentence is "
        "unchanged is kept, and each sentence that changed or left the answer is listed.",
        epilog=EXIT_CODES,
    )
    command.add_argument(
        "sources",
        nargs="+",
        metavar="answers.jsonl",
        help="a JSONL file of answer records, a JSON file (an object or an array), or a "
        "folder of them",
    )
    command.add_argument(
        "--out",
        default=DEFAULT_OUT,
        metavar="DIR",
        help=f"folder of the case files ({DEFAULT_OUT})",
    )
    _add_shape_options(command)
    command.add_argument(
        "--overwrite",
        action="store_true",
        help="replace existing case files with this import, dropping their review edits",
    )
    command.add_argument(
        "--unmarked",
        default="cite-all",
        choices=UNMARKED_POLICIES,
        help="an answer without [n] markers: each sentence cites all its sources (cite-all, "
        "default), or they are listed as retrieved only",
    )
    command.add_argument(
        "--schema",
        metavar="PATH",
        help="write the case-file JSON Schema to PATH and name it on each file's first line "
        "(editor completion and validation)",
    )
    command.set_defaults(run=run)


def _add_shape_options(command: argparse.ArgumentParser) -> None:
    """``--format``, ``--group`` and ``--unmarked``: how records are read and grouped."""
    command.add_argument(
        "--format",
        default="auto",
        choices=FORMAT_NAMES,
        help="the records' shape: "
        + ", ".join(FORMAT_NAMES)
        + "; auto (default) detects it per record and says which",
    )
    command.add_argument(
        "--group",
        default="record",
        choices=GROUPINGS,
        help="record: one file per answer (default); input: one file per input file",
    )


def _schema_url(schema: str | None, out: Path) -> str | None:
    """Write the schema to ``schema`` and return its path relative to the case files."""
    if not schema:
        return None
    path = Path(schema)
    text = schema_text()
    if not path.is_file() or path.read_text(encoding="utf-8") != text:
        write_atomically(path, text)
    # The YAML language server resolves a relative $schema from the file's folder.
    return Path(os.path.relpath(path.resolve(), out.resolve())).as_posix()


def run(args: argparse.Namespace) -> int:
    """Import, print the report; exit 1 when a record was skipped or a file could not take
    the import."""
    out = Path(args.out)
    try:
        result = import_answers(
            args.sources,
            out,
            format=args.format,
            group=args.group,
            overwrite=args.overwrite,
            unmarked=args.unmarked,
            schema_url=_schema_url(args.schema, out),
        )
    except (CitationsError, OSError) as error:
        say(error)
        return EXIT_USAGE
    for line in result.lines():
        print(line)
    return EXIT_FAILED if result.skipped or result.unmerged else EXIT_OK
