"""Which files are case files, and how xdist keeps a case file on one worker."""

from __future__ import annotations

import fnmatch
import os
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from ..cases import looks_like_case_file, looks_like_misspelt_case_file
from ..gating.result import stored_location


def matches_any(path: Path, patterns: Sequence[str]) -> bool:
    """``python_files`` matching: a pattern without a ``/`` matches the file name, one with
    a ``/`` matches the end of the path."""
    for pattern in patterns:
        if "/" in pattern or os.sep in pattern:
            pattern = pattern if os.path.isabs(pattern) else f"*{os.sep}{pattern}"
            if fnmatch.fnmatch(str(path), pattern.replace("/", os.sep)):
                return True
        elif fnmatch.fnmatch(path.name, pattern):
            return True
    return False


#: How the header names the scheduling that keeps each case file on one xdist worker.
CASE_FILE_SCHEDULING = "loadcasefile"


def case_file_scheduler(config: pytest.Config, log: Any, patterns: Sequence[str]) -> Any:
    """xdist's ``load`` scheduling, except that the items of one case file are one unit of
    work, sent to one worker: a worker verifies the whole file on its first item, so a file
    split across two workers would be fetched and judged twice. Python tests stay
    distributed one by one. Needs pytest-xdist (imported here, only when it runs)."""
    # xdist ships no type information; the subclass overrides one documented method.
    from xdist.scheduler import (  # type: ignore[import-untyped,import-not-found,unused-ignore]
        LoadScopeScheduling,
    )

    root = config.rootpath

    class CaseFileScheduling(LoadScopeScheduling):  # type: ignore[misc]
        def _split_scope(self, nodeid: str) -> str:
            # xdist hands node ids over as text: a case item's is read from the right.
            path = stored_location(nodeid).file
            # Node ids are relative to the rootdir; patterns with a "/" match full paths.
            return path if matches_any(root / path, patterns) else nodeid

    return CaseFileScheduling(config, log)


def holds_cases(text: str) -> bool:
    """A case file, by its text: a case-file key at the top level, or the keys of a case file
    in another case or spelling (``Question:``, which collection then reports at its line);
    never a vcrpy cassette. Another tool's YAML is neither."""
    if not (looks_like_case_file(text) or looks_like_misspelt_case_file(text)):
        return False
    return not looks_like_cassette(text)


def looks_like_cassette(text: str) -> bool:
    """A vcrpy cassette: top-level ``interactions:`` and ``version:`` keys."""
    return bool(_CASSETTE_KEY.search(text)) and bool(_VERSION_KEY.search(text))


_CASSETTE_KEY = re.compile(r"^interactions:", re.MULTILINE)
_VERSION_KEY = re.compile(r"^version:", re.MULTILINE)
