"""Paths as the user knows them: relative to the rootdir when inside it."""

from __future__ import annotations

import contextlib
from pathlib import Path


def shown(path: Path, root: Path | None) -> str:
    """``path`` relative to ``root`` when it lies inside it, else as it is."""
    if root is not None:
        with contextlib.suppress(ValueError):
            return str(path.resolve().relative_to(root.resolve()))
    return str(path)
