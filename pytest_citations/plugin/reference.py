"""The options reference: the option table (:data:`.option_table.OPTIONS`) as the Markdown page
of the documentation site (``docs/hooks/reference.py`` renders it when the site is built),
so that the page and the options cannot drift apart. Nothing a run does imports this."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Any

from ..pipeline.settings import LIMITS, Settings
from .flags import ENABLE_FLAG, ENABLE_HELP, Option
from .option_table import OPTIONS

#: The value a flag takes, by the option's kind, where the table names no metavar.
_VALUES = {"path": "PATH", "text": "NAME", "args": "VALUES", "parse": "VALUE"}


@dataclass(frozen=True)
class OptionRow:
    """One option as the reference shows it; empty where it has no such thing."""

    flag: str
    ini: str
    env: tuple[str, ...]
    default: str
    help: str
    #: An older ini name and an older flag that still work, with a deprecation warning.
    old_ini: str = ""
    old_flag: str = ""


def _settings_default(option: Option) -> Any:
    """A request limit's default: the engine's own (the table leaves it unset, so that only
    a limit given explicitly overrides the engine)."""
    limit = next((limit for limit in LIMITS if limit.name == option.name), None)
    if limit is None:
        return None
    return Settings().limit(limit.field)


def _shown(value: Any) -> str:
    """A default as the reader types it."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "on" if value else "off"
    if isinstance(value, Enum):
        value = value.value
    if isinstance(value, tuple | list):
        return " ".join(f"`{item}`" for item in value)
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return f"`{value}`"


def _flag(option: Option) -> str:
    """The flag with the value it takes (``--citations-evidence-words N``), or empty."""
    if not option.flag:
        return ""
    if option.kind == "bool":
        return option.flag_name
    if option.choices:
        return f"{option.flag_name} {{{','.join(option.choices)}}}"
    return f"{option.flag_name} {option.metavar or _VALUES[option.kind]}"


def option_rows(options: Sequence[Option] = OPTIONS) -> list[OptionRow]:
    """Every option of the table, ``--citations`` first, in the table's order."""
    rows = [OptionRow(ENABLE_FLAG, "", (), "off", ENABLE_HELP.rstrip("."))]
    for option in options:
        default = option.default if option.default is not None else _settings_default(option)
        rows.append(
            OptionRow(
                flag=_flag(option),
                ini=option.key if option.ini else "",
                env=option.env,
                default=_shown(default),
                help=option.help,
                old_ini=option.old_ini or "",
                old_flag=option.old_flag or "",
            )
        )
    return rows


def _cell(text: str) -> str:
    """``text`` safe inside a Markdown table cell."""
    return text.replace("|", "\\|").replace("\n", " ")


def _code(text: str) -> str:
    return f"`{text}`" if text else ""


INTRODUCTION = """\
# Options

Every option of the plugin, generated from its option table when this site is built. A
flag `--citations-X` has the ini key `citations_X` (in `[tool.pytest.ini_options]` of
`pyproject.toml`, or `pytest.ini`) where the table names one. The command line wins over
the environment, which wins over the ini file, which wins over an older ini name; a row
without a default leaves the setting unset (the help says what that means).
"""


def options_page(options: Sequence[Option] = OPTIONS) -> str:
    """The options reference page of the table (the plugin's own), as Markdown."""
    lines = [
        INTRODUCTION,
        "| option | ini key | environment | default | what it does |",
        "|---|---|---|---|---|",
    ]
    for row in option_rows(options):
        ini, flag = _code(row.ini), _code(row.flag)
        if row.old_ini:
            ini += f" (formerly `{row.old_ini}`, which still works and warns)"
        if row.old_flag:
            flag += f" (formerly `{row.old_flag}`, which still works and warns)"
        cells = [
            flag,
            ini,
            ", ".join(_code(variable) for variable in row.env),
            row.default,
            row.help,
        ]
        lines.append("| " + " | ".join(_cell(cell) for cell in cells) + " |")
    return "\n".join(lines) + "\n"
