"""``pytest-citations cassettes upgrade|check PATH…``: the upkeep of recorded cassettes as
the package changes, offline. ``upgrade`` adds retrieval's choices to cassettes recorded
before they were kept, so that they replay without a model; ``check`` checks, without a
model, that each cassette replays as the recording it claims to be, and with
``--retrieval`` also re-runs retrieval against the recorded choices and lists every
citation whose passages would now differ. ``upgrade`` and ``check --retrieval`` need the
embedding models: without them they exit 4 naming the extra. ``sign`` and
``keygen`` (signed recordings) are in :mod:`.signing`, ``prune`` (the recordings no case
file needs any more) in :mod:`.pruning`."""

from __future__ import annotations

import argparse
from pathlib import Path

from ..distribution import install_command
from ..errors import ConfigurationError
from ..labels import counted
from ..pipeline.settings import Settings
from ..recording.files import CassetteContentError
from ..recording.pages import read_recording
from ..recording.signing import refused_writes
from ..retrieval.embedders import canonical_name, missing_models
from ..upkeep import (
    CheckedCassette,
    SoundCassette,
    check_cassettes,
    check_integrity,
    owners_of,
    upgrade_cassettes,
)
from ..upkeep.owners import cassette_files
from .common import (
    EXIT_CODES,
    EXIT_FAILED,
    EXIT_NO_MODELS,
    EXIT_OK,
    EXIT_USAGE,
    Subcommands,
    run_engine,
    say,
)
from .pruning import add_action as add_prune_action
from .signing import add_actions as add_signing_actions
from .signing import add_trust_option, trust_of

_UPGRADE = (
    "Replay each cassette offline with its case file's claims (no request is ever sent) and "
    "add to it, for every judge call it holds, the passages retrieval chooses here with the "
    "installed model, when they are the passages that call carried; a citation whose "
    "recorded call carried others is named and left out. Interactions keep every byte; a "
    "file is written atomically, and only when it gains something."
)
_CHECK = (
    "Check that each cassette replays as the recording it claims to be, fast and without a "
    "model: a file the loader refuses (aliases, a key given twice, two entries for one "
    "claim), a recorded choice that is not one retrieval makes from its recorded page "
    "(pieces out of order, overlapping, off the recorded ranking's units), a choice no "
    "recorded judge call carries or whose votes disagree with the calls that do, judge calls "
    "no choice names, a cassette not upgraded: each named with its file and retrieval entry. "
    "With --retrieval, also make every recorded choice again with the installed model and "
    "list each citation whose passages would differ (what a re-record would change). Nothing "
    "is sent or written."
)


def add(commands: Subcommands, parent: argparse.ArgumentParser) -> None:
    """The ``cassettes`` command and its actions."""
    cassettes = commands.add_parser(
        "cassettes",
        parents=[parent],
        help="upgrade recorded cassettes, check that they replay as recorded, or prune what "
        "no case file needs any more",
        description="Keep recorded cassettes up with the package, offline.",
        epilog=EXIT_CODES,
    )
    actions = cassettes.add_subparsers(
        dest="action", required=True, metavar="ACTION", title="actions"
    )
    upgrade = actions.add_parser(
        "upgrade",
        parents=[parent],
        help="add retrieval's choices to cassettes recorded before they were kept",
        description=_UPGRADE,
        epilog=EXIT_CODES + " Upgrade exits 1 when a cassette, or a citation in one, could "
        "not be upgraded.",
    )
    _paths(upgrade)
    upgrade.add_argument(
        "--cassette-dir",
        default="cassettes",
        help="the cassette folder, relative to --root (default: cassettes)",
    )
    _retrieval_options(upgrade)
    upgrade.set_defaults(run=run_upgrade)
    check = actions.add_parser(
        "check",
        parents=[parent],
        help="check that cassettes replay as recorded (with --retrieval, also what retrieval "
        "here would choose otherwise)",
        description=_CHECK,
        epilog=EXIT_CODES + " Check exits 1 on any problem, when a cassette holds judge calls "
        "but no choice (not upgraded), or with --retrieval when a citation's passages would "
        "differ; 4 with --retrieval where the embedding models are missing.",
    )
    _paths(check)
    check.add_argument(
        "--retrieval",
        action="store_true",
        help="also re-run retrieval with the installed "
        "model against every recorded choice and list what a re-record would change (needs "
        "the embedding models)",
    )
    check.set_defaults(run=run_check)
    add_prune_action(actions, parent)
    add_signing_actions(actions, parent)


def _retrieval_options(upgrade: argparse.ArgumentParser) -> None:
    """The settings ``upgrade`` chooses passages with, as the cassettes were recorded."""
    upgrade.add_argument(
        "--embedder",
        help="the embedding setting the cassettes were recorded with "
        "(default: CITATIONS_EMBEDDING_MODEL or all-MiniLM-L6-v2)",
    )
    upgrade.add_argument(
        "--evidence-words",
        type=int,
        metavar="N",
        help="words of the page the judge was "
        "shown, for a cassette that holds a retrieval section but lacks some choices "
        "(default 560; a cassette without the section was made by the top-k passages, and "
        "is upgraded so)",
    )
    upgrade.add_argument(
        "--budget",
        type=int,
        metavar="N",
        dest="old_budget",
        help="deprecated: use --evidence-words",
    )
    upgrade.add_argument("--top-k", type=int, help="passages the judge was shown (default 3)")
    upgrade.add_argument(
        "--passage-words", type=int, help="words a passage held at most (default 200)"
    )


def _paths(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "paths", nargs="+", metavar="PATH", help="a cassette, or a folder of cassettes"
    )
    parser.add_argument(
        "--root",
        default=".",
        help="the project's root, where pytest runs (cassettes and case files are named "
        "relative to it; default: the current folder)",
    )
    add_trust_option(parser)


def _without_models(settings: list[str], action: str) -> int | None:
    """Exit 4, naming the extra, when the models of any of ``settings`` are missing."""
    missing = list(dict.fromkeys(name for setting in settings for name in missing_models(setting)))
    if not missing:
        return None
    say(
        f"cassettes {action} chooses passages with the embedding models, which need "
        f"{', '.join(missing)}: {install_command('record')}"
    )
    return EXIT_NO_MODELS


def _retrieval(args: argparse.Namespace, settings: Settings) -> Settings:
    """The settings with the retrieval options of ``upgrade`` over them."""
    changes: dict[str, object] = {}
    if args.embedder:
        changes["embedding_model"] = args.embedder
    if args.old_budget is not None:
        say("--budget is deprecated; use --evidence-words")
    words = args.evidence_words if args.evidence_words is not None else args.old_budget
    if words is not None:
        changes["evidence_words"] = words
    if args.top_k is not None:
        changes["top_k"] = args.top_k
    if args.passage_words is not None:
        changes["passage_words"] = args.passage_words
    return settings.replace(**changes)


def run_upgrade(args: argparse.Namespace) -> int:
    """Upgrade, print a line per cassette, exit 1 when something was left out."""
    root = Path(args.root)
    try:
        owners = owners_of(
            cassette_files(list(map(Path, args.paths))), root / args.cassette_dir, root
        )
        trust = trust_of(args, root)
        refused = refused_writes(trust)  # a key that cannot be read stops it here
    except (OSError, ConfigurationError) as error:
        say(error)
        return EXIT_USAGE
    if refused is not None:
        say(f"warning: {refused}")

    async def work(settings: Settings) -> int:
        try:
            settings = _retrieval(args, settings)
        except ConfigurationError as error:
            say(error)
            return EXIT_USAGE
        refused = _without_models([canonical_name(settings.embedding_model)], "upgrade")
        if refused is not None:
            return refused
        outcomes = await upgrade_cassettes(owners, settings, root=root, trust=trust)
        for outcome in outcomes:
            for line in outcome.lines():
                print(line)
        return EXIT_FAILED if any(outcome.failed for outcome in outcomes) else EXIT_OK

    return run_engine(args, work, needs_all=False)


def _recorded_settings(paths: list[Path]) -> list[str]:
    """The embedding settings the cassettes' choices were made with (unreadable files are
    reported by the check itself)."""
    found: dict[str, None] = {}
    for path in paths:
        try:
            _, choices = read_recording(path)
        except (OSError, CassetteContentError):
            continue
        found.update((selection.chooser.setting, None) for selection in choices.values())
    return list(found)


def summary(checked: list[CheckedCassette]) -> str:
    """The re-retrieval's last line: how many recorded choices would change, and how many
    cassettes could not be checked."""
    changed = sum(len(cassette.changed) for cassette in checked)
    every = sum(cassette.choices for cassette in checked)
    line = (
        f"cassettes check --retrieval: {changed} of {every} recorded choices would change"
        if changed
        else f"cassettes check --retrieval: none of {every} recorded choices would change"
    )
    left = sum(1 for cassette in checked if cassette.not_upgraded or cassette.problem)
    return line + (f"; {counted(left, 'cassette')} not checked" if left else "")


def soundness(checked: list[SoundCassette]) -> str:
    """The integrity check's last line."""
    # A cassette that could not be read at all is one problem.
    problems = sum(len(cassette.problems) + bool(cassette.unread) for cassette in checked)
    left = sum(1 for cassette in checked if cassette.not_upgraded)
    files = counted(len(checked), "cassette")
    line = (
        f"cassettes check: {counted(problems, 'problem')} in {files}"
        if problems
        else f"cassettes check: {files}, no problem"
    )
    return line + (f"; {left} not upgraded" if left else "")


def run_check(args: argparse.Namespace) -> int:
    """Check (and with ``--retrieval`` re-run retrieval), print, exit 1 on any finding."""
    root = Path(args.root)
    try:
        paths = cassette_files(list(map(Path, args.paths)))
        trust = trust_of(args, root)
    except (OSError, ConfigurationError) as error:
        say(error)
        return EXIT_USAGE

    async def work(settings: Settings) -> int:
        if args.retrieval:
            refused = _without_models(_recorded_settings(paths), "check --retrieval")
            if refused is not None:
                return refused
        sound = await check_integrity(paths, settings, root=root, trust=trust)
        for cassette in sound:
            for line in cassette.lines():
                print(line)
        print(soundness(sound))
        failed = any(cassette.failed for cassette in sound)
        if args.retrieval:
            checked = await check_cassettes(paths, settings, root=root, trust=trust)
            for rechecked in checked:
                for line in rechecked.lines():
                    print(line)
            print(summary(checked))
            failed = failed or any(rechecked.failed for rechecked in checked)
        return EXIT_FAILED if failed else EXIT_OK

    return run_engine(args, work, needs_all=False)
