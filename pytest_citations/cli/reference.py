"""The command-line reference: the argument parsers of :mod:`.main` as the Markdown page of
the documentation site (``docs/hooks/reference.py`` renders it when the site is built), so
that the page and the parsers cannot drift apart. Nothing the command runs imports this."""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from .common import EXIT_CODES, PROG, global_options
from .main import build_parser


@dataclass(frozen=True)
class Command:
    """A command (``verify``) or a command's action (``cassettes upgrade``) and its parser."""

    words: tuple[str, ...]
    #: The line the parent's ``--help`` lists it with.
    summary: str
    parser: argparse.ArgumentParser

    @property
    def name(self) -> str:
        """``pytest-citations cassettes upgrade``."""
        return " ".join((PROG, *self.words))


@dataclass(frozen=True)
class Argument:
    """One argument as the reference shows it."""

    #: ``--out DIR``, ``-o DIR, --out DIR`` or ``RECORDS`` (a positional).
    usage: str
    default: str
    help: str


def _actions(parser: argparse.ArgumentParser) -> list[argparse.Action]:
    # argparse offers no public way to list a parser's arguments: its help reads _actions.
    return list(parser._actions)


def _subcommands(parser: argparse.ArgumentParser) -> argparse._SubParsersAction[Any] | None:
    return next(
        (action for action in _actions(parser) if isinstance(action, argparse._SubParsersAction)),
        None,
    )


def commands(
    parser: argparse.ArgumentParser | None = None, words: tuple[str, ...] = ()
) -> Iterator[Command]:
    """Every command and action of ``pytest-citations``, in the order ``--help`` lists them."""
    parser = parser or build_parser()
    found = _subcommands(parser)
    if found is None:
        return
    summaries = {action.dest: action.help or "" for action in found._get_subactions()}
    for name, sub in found.choices.items():
        if name not in summaries:
            continue  # an alias: its command is listed under its own name
        yield Command((*words, name), summaries[name], sub)
        yield from commands(sub, (*words, name))


def _value(action: argparse.Action) -> str:
    """How an argument's value is written: ``N``, ``{a,b}``, ``PATH …``."""
    if action.choices is not None and not isinstance(action, argparse._SubParsersAction):
        shown = "{" + ",".join(str(choice) for choice in action.choices) + "}"
    elif isinstance(action.metavar, str):
        shown = action.metavar
    else:
        shown = action.dest.upper() if action.option_strings else action.dest
    if action.nargs in ("+", "*"):
        return f"{shown} …"
    return f"[{shown}]" if action.nargs == "?" else shown


def arguments(parser: argparse.ArgumentParser, *, own: bool = True) -> list[Argument]:
    """The arguments ``parser`` takes: with ``own``, those of the command alone (not the
    global options every command takes, nor ``--help``); else only the global options."""
    shared = {option for action in _actions(global_options()) for option in action.option_strings}
    found = []
    for action in _actions(parser):
        if isinstance(action, argparse._HelpAction | argparse._SubParsersAction):
            continue
        if action.help == argparse.SUPPRESS or own == bool(set(action.option_strings) & shared):
            continue
        value = "" if action.nargs == 0 else _value(action)
        if action.option_strings:
            usage = ", ".join(f"{option} {value}".strip() for option in action.option_strings)
        else:
            usage = value
        default = action.default
        shown = "" if default in (None, False, argparse.SUPPRESS) else f"`{default}`"
        found.append(Argument(usage, shown, " ".join((action.help or "").split())))
    return found


def _table(rows: list[Argument]) -> list[str]:
    if not rows:
        return []
    lines = ["| argument | default | what it does |", "|---|---|---|"]
    for row in rows:
        cells = [f"`{row.usage}`", row.default, row.help]
        lines.append("| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |")
    return [*lines, ""]


def _usage(parser: argparse.ArgumentParser, words: tuple[str, ...] = ()) -> list[str]:
    """The usage line, with the global options (and ``-h``) as ``[global options]``."""
    usage = " ".join(parser.format_usage().split()).removeprefix("usage: ")
    for action in _actions(global_options()):
        value = "" if action.nargs == 0 else f" {_value(action)}"
        usage = usage.replace(f" [{action.option_strings[0]}{value}]", "")
    name = " ".join((PROG, *words))
    usage = usage.replace(f"{name} [-h]", f"{name} [global options]", 1)
    return ["```text", usage, "```", ""]


def cli_page(parser: argparse.ArgumentParser | None = None) -> str:
    """The command-line reference page of ``parser`` (the command's own), as Markdown."""
    parser = parser or build_parser()
    lines = [
        "# Command line",
        "",
        f"Every command of `{PROG}`, generated from its argument parsers when this site is "
        f"built (`{PROG} COMMAND --help` prints the same).",
        "",
        " ".join((parser.description or "").split()),
        "",
        *_usage(parser),
        "## Global options",
        "",
        "Every command takes these, before or after its name.",
        "",
        *_table(arguments(parser, own=False)),
        "## Exit codes",
        "",
        EXIT_CODES.removeprefix("Exit codes: "),
        "",
    ]
    for command in commands(parser):
        level = "#" * (len(command.words) + 1)
        lines += [f"{level} `{command.name}`", "", command.summary, ""]
        lines += [" ".join((command.parser.description or "").split()), ""]
        epilog = (command.parser.epilog or "").removeprefix(EXIT_CODES).strip()
        if epilog:
            lines += [epilog, ""]
        lines += [*_usage(command.parser, command.words), *_table(arguments(command.parser))]
    return "\n".join(lines)
