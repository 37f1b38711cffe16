"""``pytest-citations stored-page RID``: a page stored at crawl time, read back from the
Crawlbase Storage API by its rid. Once called ``replay``, a name kept as a deprecated alias
(cassette replay is the plugin's, with ``--citations-record none``)."""

from __future__ import annotations

import argparse
import sys

from ..fetchers import StoredPageNotFound
from ..pipeline.settings import Settings
from ..pipeline.verifier import Verifier
from .common import EXIT_CODES, EXIT_FAILED, EXIT_OK, Subcommands, run_engine, say

NAME = "stored-page"
#: The old name: it still works, and says it is deprecated.
OLD_NAME = "replay"


def add(commands: Subcommands, parent: argparse.ArgumentParser) -> None:
    """``stored-page``, and ``replay`` as a deprecated alias of it (not listed in the help)."""
    description = (
        "Print the markdown of a page stored with store=true at crawl time, read back from "
        "the Crawlbase Storage API (either Crawlbase token will do; no judge key needed)."
    )
    stored = commands.add_parser(
        NAME,
        parents=[parent],
        help="print a stored page's markdown by rid (Crawlbase Storage API; formerly 'replay')",
        description=description,
        epilog=EXIT_CODES,
    )
    # No help=: argparse then leaves the old name out of the list of commands.
    old = commands.add_parser(
        OLD_NAME,
        parents=[parent],
        description=f"Deprecated: use '{NAME}'. " + description,
        epilog=EXIT_CODES,
    )
    for parser in (stored, old):
        parser.add_argument(
            "rid", help="the rid of the stored page (the 'rid' of a verdict, or of a CSV row)"
        )
        parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Print the stored markdown; exit 1 when no page is stored under the rid."""
    if args.command == OLD_NAME:
        say(f"'{OLD_NAME}' is deprecated and will be removed; use '{NAME}' (same arguments)")

    async def work(settings: Settings) -> int:
        async with Verifier(settings) as verifier:
            try:
                markdown = await verifier.stored_page(args.rid)
            except StoredPageNotFound as error:
                say(error)
                return EXIT_FAILED
        sys.stdout.write(markdown if markdown.endswith("\n") else markdown + "\n")
        return EXIT_OK

    # Only the Crawlbase Storage API is asked, with either token: the judge key is not
    # needed, and the fetcher names the token it lacks before any request.
    return run_engine(args, work, needs_all=False)
