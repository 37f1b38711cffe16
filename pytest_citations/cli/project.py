"""The project's pytest configuration as pytest finds it from ``--root``, for the keys a
command shares with the plugin (``citations_trusted_keys``).

pytest's order: in ``--root``, then in each folder above it, the first of ``pytest.toml``,
``.pytest.toml``, ``pytest.ini``, ``.pytest.ini``, ``pyproject.toml`` (with a
``[tool.pytest]`` or ``[tool.pytest.ini_options]`` table), ``tox.ini`` (with ``[pytest]``)
and ``setup.cfg`` (with ``[tool:pytest]``) is the configuration; the first two and the
``.ini`` files of pytest's own name count even without their section.
"""

from __future__ import annotations

import configparser
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from ..errors import ConfigurationError


def _ini(section: str, always: bool) -> Callable[[Path], Mapping[str, object] | None]:
    def load(path: Path) -> Mapping[str, object] | None:
        parser = configparser.ConfigParser(interpolation=None, strict=False)
        try:
            parser.read_string(path.read_text(encoding="utf-8"), str(path))
        except (configparser.Error, UnicodeDecodeError) as error:
            raise ConfigurationError(f"{path} cannot be read: {error}") from None
        if parser.has_section(section):
            return dict(parser.items(section))
        return {} if always else None

    return load


def _toml(path: Path) -> dict[str, object]:
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
        raise ConfigurationError(f"{path} cannot be read: {error}") from None


def _pytest_toml(path: Path) -> Mapping[str, object] | None:
    table = _toml(path).get("pytest", {})
    return table if isinstance(table, dict) else {}


def _pyproject(path: Path) -> Mapping[str, object] | None:
    tool = _toml(path).get("tool", {})
    tables = tool.get("pytest") if isinstance(tool, dict) else None
    if not isinstance(tables, dict):
        return None
    ini = tables.get("ini_options")
    return ini if isinstance(ini, dict) else tables


#: The configuration files pytest reads, in its order, and how each is read (None: it
#: holds no pytest configuration, and the search goes on).
LOADERS: dict[str, Callable[[Path], Mapping[str, object] | None]] = {
    "pytest.toml": _pytest_toml,
    ".pytest.toml": _pytest_toml,
    "pytest.ini": _ini("pytest", always=True),
    ".pytest.ini": _ini("pytest", always=True),
    "pyproject.toml": _pyproject,
    "tox.ini": _ini("pytest", always=False),
    "setup.cfg": _ini("tool:pytest", always=False),
}


@dataclass(frozen=True)
class ProjectConfig:
    """The configuration file pytest uses for a project, and its pytest keys."""

    path: Path
    values: Mapping[str, object]

    def lines(self, key: str) -> list[str] | None:
        """A line-list key's lines (an ini value's lines, or a TOML list), None when the
        file does not set it."""
        value = self.values.get(key)
        if value is None or value == "" or value == []:
            return None
        if isinstance(value, list):
            return [str(item) for item in value]
        return str(value).splitlines()


def project_config(root: Path) -> ProjectConfig | None:
    """The configuration pytest would use when started in ``root`` (None: it finds none).
    Raises :class:`~pytest_citations.errors.ConfigurationError` for a file it cannot read."""
    start = root.resolve()
    for folder in (start, *start.parents):
        for name, load in LOADERS.items():
            path = folder / name
            if path.is_file():
                values = load(path)
                if values is not None:
                    return ProjectConfig(path, values)
    return None
