"""The machinery of the option table: a row (:class:`Option`), the flag and ini key it adds
to pytest, and the precedence that reads its value back (command line > environment > ini >
an older ini name > default), written in one place. The table itself is
:data:`pytest_citations.plugin.option_table.OPTIONS`."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import pytest

from ..errors import ConfigurationError


@dataclass(frozen=True)
class Option:
    """One row of the table."""

    name: str
    help: str
    #: ``text``, ``path``, ``bool``, ``args`` (a list in the ini file), or ``parse`` (below).
    kind: str = "text"
    default: Any = None
    env: tuple[str, ...] = ()
    flag: bool = True
    ini: bool = True
    #: Turns the raw text into the value; raises ConfigurationError naming ``what``.
    parse: Callable[[Any, str], Any] | None = None
    choices: tuple[str, ...] = ()
    metavar: str | None = None
    #: An older ini name and an older flag that still work, with a deprecation warning.
    old_ini: str | None = None
    old_flag: str | None = None
    #: The ini value's type when it differs from what ``kind`` implies (a list of labels).
    ini_type: Literal["string", "args", "bool", "linelist"] | None = None

    @property
    def key(self) -> str:
        """The ini key and the ``config.getoption`` name: ``citations_min_precision``."""
        return "citations_" + self.name.replace("-", "_")

    @property
    def flag_name(self) -> str:
        """The command-line flag: ``--citations-min-precision``."""
        return "--citations-" + self.name.replace("_", "-")


#: The flag that turns the plugin on, and what its help says.
ENABLE_FLAG = "--citations"
ENABLE_HELP = "collect YAML case files (citations_files) as citation checks."


def add_options(parser: pytest.Parser, options: Sequence[Option]) -> None:
    """Add every option's flag and ini key (and its older ini name) to pytest, under the
    ``--citations`` flag that turns the plugin on."""
    group = parser.getgroup("citations", "citation checks of LLM answers (pytest-citations)")
    group.addoption(ENABLE_FLAG, action="store_true", default=False, help=ENABLE_HELP)
    for option in options:
        envs = f" (env {', '.join(option.env)})" if option.env else ""
        if option.flag:
            extra: dict[str, Any] = {"action": "store_true"} if option.kind == "bool" else {}
            if option.choices:
                extra["choices"] = list(option.choices)
            if option.metavar and option.kind != "bool":
                extra["metavar"] = option.metavar
            group.addoption(
                option.flag_name, dest=option.key, default=None, help=option.help + envs, **extra
            )
        if option.old_flag:
            group.addoption(
                option.old_flag,
                dest=_old_dest(option),
                default=None,
                help=f"deprecated: use {option.flag_name}",
                metavar=option.metavar,
            )
        ini_type: Literal["string", "args", "bool", "linelist"] = option.ini_type or (
            "bool" if option.kind == "bool" else "args" if option.kind == "args" else "string"
        )
        # A list's default stays the row's, applied by read_options: an empty ini default
        # tells a key the ini file set (citations_files) from one it left alone.
        ini_default: Any = None
        if option.kind == "bool":
            ini_default = option.default
        elif option.kind == "args":
            ini_default = []
        if option.ini:
            parser.addini(option.key, option.help, type=ini_type, default=ini_default)
        if option.old_ini:
            parser.addini(option.old_ini, f"deprecated: use {option.key}", type=ini_type)


def _old_dest(option: Option) -> str:
    """Where the older flag's value is kept (``citations_budget`` for ``--citations-budget``)."""
    assert option.old_flag is not None
    return option.old_flag.removeprefix("--").replace("-", "_")


def _deprecated(config: pytest.Config, old: str, new: str) -> None:
    """A deprecation warning in the run's warnings summary: ``old`` still works this
    release, ``new`` is its name."""
    config.issue_config_time_warning(
        pytest.PytestDeprecationWarning(f"{old} is deprecated; use {new}"), stacklevel=3
    )


def given(config: pytest.Config, option: Option) -> Any:
    """The raw value by precedence: command line (the flag, then its older name) >
    environment > ini > older ini name."""
    old = config.getoption(_old_dest(option), None) if option.old_flag else None
    if old not in (None, ""):
        assert option.old_flag is not None
        _deprecated(config, option.old_flag, option.flag_name)
    if option.flag:
        value = config.getoption(option.key, None)
        if value not in (None, ""):
            return value
    if old not in (None, ""):
        return old
    for variable in option.env:
        if os.environ.get(variable, "").strip():
            return os.environ[variable].strip()
    if option.ini:
        value = config.getini(option.key)
        if option.kind == "bool" or value not in (None, "", []):
            return value
    if option.old_ini:
        value = config.getini(option.old_ini)
        if value not in (None, "", []):
            new = f"{option.key} (the same name as {option.flag_name})"
            _deprecated(config, f"the ini key {option.old_ini}", new)
            return value
    return None


#: The key of :func:`read`'s result that holds the names of the options given explicitly.
GIVEN = "given"


def read_options(config: pytest.Config, options: Sequence[Option]) -> dict[str, Any]:
    """Every option's value by its name (``min_precision``), parsed and checked; a bad
    value is a usage error that names the flag."""
    values: dict[str, Any] = {GIVEN: set()}
    for option in options:
        raw = given(config, option)
        name = option.name.replace("-", "_")
        if raw is not None:
            values[GIVEN].add(name)
        if raw is None:
            values[name] = option.default
        elif option.parse is not None:
            try:
                values[name] = option.parse(raw, option.flag_name if option.flag else option.key)
            except ConfigurationError as error:
                raise pytest.UsageError(str(error)) from None
        elif option.kind == "args":
            values[name] = tuple(raw)
        elif option.kind == "bool":
            values[name] = bool(raw)
        else:
            values[name] = str(raw)
    return values
