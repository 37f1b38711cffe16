"""What every command shares: exit codes, the global options (accepted before and after the
command), settings from them, and running the engine with every error turned into a line on
standard error and an exit code."""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Callable, Coroutine
from typing import Any, TypeAlias

from ..distribution import install_command
from ..errors import AccountError, CitationsError, ConfigurationError, MissingTokenError
from ..judges import JUDGES
from ..network.requester import TransientError
from ..pipeline.backends import Backends
from ..pipeline.settings import LIMITS, Settings
from ..retrieval.embedders import missing_models
from ..sanitize import LogRedaction

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_AUTH, EXIT_NO_MODELS = 0, 1, 2, 3, 4
PROG = "pytest-citations"

#: The exit codes, shown by ``--help`` of the command and of every subcommand.
EXIT_CODES = (
    "Exit codes: 0 done; 1 failing label, a citation that could not be checked (unless "
    "--allow-unchecked), skipped batch lines or import records, or no stored page; 2 usage "
    "or configuration error (every missing variable is named, service unreachable); "
    "3 credential refused or no credits left; 4 a command that chooses passages (verify, "
    "batch, drift, serve, cassettes upgrade and check --retrieval) without the embedding "
    "models (the "
    "record extra). Tokens come from CRAWLBASE_TOKEN, "
    "CRAWLBASE_JS_TOKEN and OPENAI_API_KEY (or ANTHROPIC_API_KEY)."
)

#: A command: parsed arguments in, exit code out.
Command = Callable[[argparse.Namespace], int]
#: What ``add_subparsers`` returns, to which each command module adds its parser.
Subcommands: TypeAlias = "argparse._SubParsersAction[argparse.ArgumentParser]"


def global_options() -> argparse.ArgumentParser:
    """A parent parser of the options every command takes, before or after its name.

    Every default is ``SUPPRESS``: a value given before the command name is then not
    overwritten by the subcommand's default, and one given after it wins."""
    parent = argparse.ArgumentParser(add_help=False, argument_default=argparse.SUPPRESS)
    group = parent.add_argument_group("global options (before or after the command)")
    group.add_argument(
        "--judge", help=f"judge provider: {', '.join(JUDGES)} (default: JUDGE_PROVIDER or openai)"
    )
    group.add_argument("--model", help="judge model (default: JUDGE_MODEL or the provider's)")
    group.add_argument(
        "--judge-votes",
        type=int,
        metavar="N",
        help="ask the judge N times per citation and keep the majority label, a tie going to "
        "the stricter label (default 1)",
    )
    for limit in LIMITS:
        group.add_argument(
            f"--{limit.name}",
            dest=limit.field,
            type=int if limit.integer else float,
            metavar=limit.metavar,
            help=f"{limit.help}; environment: {limit.env}",
        )
    return parent


def settings_from(args: argparse.Namespace) -> Settings:
    """Settings from the environment, with the global options over them."""
    overrides: dict[str, Any] = {
        "judge_provider": getattr(args, "judge", None) or None,
        "judge_model": getattr(args, "model", None) or None,
    }
    if getattr(args, "judge_votes", None) is not None:
        overrides["judge_votes"] = args.judge_votes
        overrides["pinned"] = frozenset({"judge_votes"})
    for limit in LIMITS:
        value = getattr(args, limit.field, None)
        if value is not None:
            overrides[limit.field] = value
    return Settings.from_env(**overrides)


def models_missing(args: argparse.Namespace) -> str | None:
    """Why a command that chooses passages cannot run here (None: it can): the embedders of
    its setting are not installed (the core install replays; the ``record`` extra chooses)."""
    try:
        setting = settings_from(args).embedding_model
    except ConfigurationError:
        return None  # the command itself reports it
    missing = missing_models(setting)
    if not missing:
        return None
    extra = install_command("record")
    return (
        f"{args.command} chooses the passages the judge sees with the embedder {setting}, "
        f"which needs {', '.join(missing)}: {extra} (a replay needs no model), or set "
        "CITATIONS_EMBEDDING_MODEL=lexical"
    )


def say(message: object) -> None:
    """One line on standard error, named after the command."""
    print(f"{PROG}: {message}", file=sys.stderr)


def missing_variables(
    settings: Settings, purpose: str = "Set them in the environment."
) -> MissingTokenError | None:
    """Every variable the chosen fetcher and judge need and lack, in one error (or None):
    a run must not stop at the first one and leave the next for another run."""
    missing = settings.missing(Backends())
    return MissingTokenError(missing, purpose) if missing else None


def run_engine(
    args: argparse.Namespace,
    work: Callable[[Settings], Coroutine[Any, Any, int]],
    *,
    needs_all: bool = True,
) -> int:
    """Run ``work`` with settings from the arguments; errors become an exit code.

    With ``needs_all``, every missing variable is reported before the first request: a
    missing judge key must not cost Crawlbase credits, nor a second run to learn of it."""
    try:
        settings = settings_from(args)
    except ConfigurationError as error:
        say(error)
        return EXIT_USAGE
    with LogRedaction(settings.redactor()):
        try:
            missing = missing_variables(settings) if needs_all else None
            if missing is not None:
                raise missing
            return asyncio.run(work(settings))
        except MissingTokenError as error:
            say(error)
            return EXIT_USAGE
        except AccountError as error:
            say(error)
            return EXIT_AUTH
        except (CitationsError, TransientError, OSError) as error:
            say(error)
            return EXIT_USAGE
