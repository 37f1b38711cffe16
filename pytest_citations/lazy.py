"""Names a package exports without importing their modules until first asked for.

A replay loads only what it runs: ``drift``, ``importing`` and ``upkeep`` re-export their
names for users (``from pytest_citations.importing import import_answers``), and a plain
``import`` of each would otherwise load every module it holds.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping
from typing import Any


def lazy_exports(package: str, exports: Mapping[str, str]) -> Callable[[str], Any]:
    """The module ``__getattr__`` (PEP 562) of ``package``: each name of ``exports`` is read
    from its module (``exports[name]``, relative to the package) when it is first asked for,
    then kept in the package's namespace."""

    def __getattr__(name: str) -> Any:
        if name not in exports:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f".{exports[name]}", package), name)
        setattr(sys.modules[package], name, value)
        return value

    return __getattr__
