"""``pytest-citations drift PATH…``: which recorded verdicts the live web no longer backs.
The same check as ``pytest --citations PATH --citations-drift``, without running the tests:
every page the case files' cassettes hold is fetched live once and compared with its
recording, and only citations whose evidence changed are judged again."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from ..atomic import write_atomically
from ..cases import CaseFileError, looks_like_case_file
from ..drift import (
    DEFAULT_FAIL_ON,
    FAIL_ON_CHOICES,
    DriftPlan,
    DriftPolicy,
    DriftSource,
    check_drift,
)
from ..errors import ConfigurationError
from ..pipeline.settings import Settings
from ..recording.signing import refused_writes
from .common import EXIT_CODES, EXIT_FAILED, EXIT_OK, EXIT_USAGE, Subcommands, run_engine, say
from .signing import add_trust_option, trust_of
from .verify import add_allow_unchecked

#: Where ``pytest --citations`` keeps its embedding cache (pytest's cache folder): a drift
#: check after a replay in the same checkout embeds nothing again.
PYTEST_EMBEDDING_CACHE = Path(".pytest_cache") / "d" / "citations-embeddings"


def add(commands: Subcommands, parent: argparse.ArgumentParser) -> None:
    """The ``drift`` subcommand."""
    drift = commands.add_parser(
        "drift",
        parents=[parent],
        help="check recorded citations against the live web; judge again only what changed",
        description="Fetch every page the cassettes of the case files hold, live, once per "
        "URL; compare each with its recording on passages; judge again only the citations "
        "whose evidence changed; print each citation's drift status, the costs against a "
        "full re-record, and the decision of --fail-on. Nothing is written without --update.",
        epilog=EXIT_CODES + " Drift exits 1 when a citation meets --fail-on, or when it "
        "checked nothing (no cassette found, none holding a recording of its citations); a "
        "cassette that cannot be read is an error (2) naming it.",
    )
    drift.add_argument(
        "paths", nargs="+", metavar="PATH", help="a case file, or a folder of case files"
    )
    drift.add_argument(
        "--root",
        default=".",
        help="the project's root, where pytest runs (case files and cassettes are named "
        "relative to it; default: the current folder)",
    )
    drift.add_argument(
        "--cassette-dir",
        default="cassettes",
        help="the cassette folder, relative to --root (default: cassettes)",
    )
    drift.add_argument(
        "--update",
        action="store_true",
        help="write new recordings for the citations checked again, and only for them",
    )
    drift.add_argument(
        "--fail-on",
        metavar="STATUSES",
        help=f"comma-separated statuses that exit 1: {', '.join(FAIL_ON_CHOICES)} "
        f"(default: {','.join(DEFAULT_FAIL_ON)})",
    )
    drift.add_argument("--json", metavar="PATH", help="write the drift report as JSON to PATH")
    add_trust_option(drift)
    add_allow_unchecked(drift)
    drift.set_defaults(run=run)


def case_files(paths: list[str], cassettes: Path) -> list[Path]:
    """The case files among ``paths`` (folders searched for ``*.yaml``/``*.yml`` holding a
    case key, cassettes left out), in sorted order, each once."""
    found: dict[Path, None] = {}
    for given in map(Path, paths):
        candidates = (
            sorted([*given.rglob("*.yaml"), *given.rglob("*.yml")]) if given.is_dir() else [given]
        )
        for path in candidates:
            if cassettes.resolve() in path.resolve().parents:
                continue
            if given.is_dir() and not looks_like_case_file(path.read_text("utf-8", "replace")):
                continue
            found.setdefault(path, None)
    return list(found)


def run(args: argparse.Namespace) -> int:
    """Check, print the report, exit by the policy."""
    root = Path(args.root)
    cassettes = root / args.cassette_dir
    try:
        policy = DriftPolicy.parse(args.fail_on, allow_unchecked=args.allow_unchecked)
        trust = trust_of(args, root)
        refused = refused_writes(trust) if args.update else None
        sources = [
            DriftSource.from_case_file(path, cassettes, root)
            for path in case_files(args.paths, cassettes)
        ]
    except (ConfigurationError, CaseFileError, OSError) as error:
        say(error)
        return EXIT_USAGE
    if not sources:
        say(f"no case files in {' '.join(args.paths)}")
        return EXIT_USAGE
    if refused is not None:
        say(f"warning: {refused}")

    def announce(plan: DriftPlan) -> None:
        print(plan.line(), file=sys.stderr, flush=True)

    async def work(settings: Settings) -> int:
        if settings.embedding_cache_dir is None:
            # pytest's own cache folder: what the plugin embedded is read, and what this
            # check embeds is kept for the next check (and the next pytest run)
            cache = root / PYTEST_EMBEDDING_CACHE
            cache.mkdir(parents=True, exist_ok=True)
            settings = settings.replace(embedding_cache_dir=cache)
        report = await check_drift(
            sources,
            settings,
            update=args.update,
            policy=policy,
            root=root,
            on_plan=announce,
            cassette_dir=cassettes,
            hint="wrong --cassette-dir or --root?",
            trust=trust,
        )
        for line in report.lines():
            print(line)
        if args.json:
            text = json.dumps(report.to_dict(), indent=2, ensure_ascii=False)
            write_atomically(Path(args.json), text + "\n")
        return EXIT_FAILED if report.failed else EXIT_OK

    return run_engine(args, work)
