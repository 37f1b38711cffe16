"""The run's identity (the JSON report's ``run.identity``): what the shards of one run share
and ``pytest-citations merge`` holds them to. Beside the judge, model, embedder, record mode,
gates and baseline the report names anyway, it is

- ``case_files``: the digest of every case file the run collected (each shard collects them
  all before it keeps its own), by path and content;
- ``cassettes``: in a replay, the digest of every file under the cassette folder, read
  before anything ran; a run that records has none (null): its shards change their own
  files' cassettes as they go, and shards run one after the other in one folder each start
  from what the ones before recorded;
- the settings that change what a claim's checks find or may spend: the judge's votes, the
  evidence words, ``top_k``, the passage size and the spending budgets.

Case files are read on the process that collects them (an xdist worker hands their digests
over, as it hands over the shard plan)."""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from .options import Options

#: The key of an xdist worker's output that holds its case files' digests.
CASE_FILES_OUTPUT = "citations_case_files"
_CASE_FILES = pytest.StashKey[dict[str, str]]()


def _sha256(path: Path) -> str:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError as error:  # unreadable: the case file itself reports it
        return f"unreadable ({type(error).__name__})"


def content_digest(contents: Mapping[str, str]) -> str:
    """``sha256:…`` of files by name and the digest of each one's content: the identity of
    the case files (or cassettes) a run read, whatever order they were read in."""
    joined = "".join(f"{name}\0{contents[name]}\n" for name in sorted(contents))
    return "sha256:" + hashlib.sha256(joined.encode("utf-8")).hexdigest()


def remember_case_file(config: pytest.Config, nodeid: str, data: bytes | None) -> None:
    """A case file this process collected, by its path in node ids, and the digest of its
    content as collection read it (None: it could not be read)."""
    digest = hashlib.sha256(data).hexdigest() if data is not None else "unreadable"
    config.stash.setdefault(_CASE_FILES, {})[nodeid] = digest


def hand_over(config: pytest.Config, output: dict[str, Any]) -> None:
    """On an xdist worker: put the digests of the case files it collected into its output."""
    own: dict[str, str] = config.stash.get(_CASE_FILES, {})
    output[CASE_FILES_OUTPUT] = dict(own)


def case_files_of(
    config: pytest.Config, output: Mapping[str, Any] | None = None
) -> dict[str, str] | None:
    """The case files' digests: those a worker's ``output`` holds, or this process's own
    (None when neither has any)."""
    if output is not None:
        found = output.get(CASE_FILES_OUTPUT)
        return {str(k): str(v) for k, v in found.items()} if found else None
    own: dict[str, str] | None = config.stash.get(_CASE_FILES, None)
    return dict(own) if own is not None else None


def cassettes_digest(folder: Path) -> str:
    """The digest of every file under the cassette folder (none when there is no folder)."""
    files = sorted(path for path in folder.rglob("*") if path.is_file()) if folder.is_dir() else []
    return content_digest({path.relative_to(folder).as_posix(): _sha256(path) for path in files})


def run_identity(
    options: Options, case_files: Mapping[str, str], cassettes: str | None
) -> dict[str, Any]:
    """The run's ``identity`` (see the module's docstring); ``cassettes`` None for a run
    that records."""
    return {
        "case_files": content_digest(case_files),
        "cassettes": cassettes,
        "judge_votes": options.judge_votes,
        "evidence_words": options.evidence_words,
        "top_k": options.top_k,
        "passage_words": options.passage_words,
        **dataclasses.asdict(options.spending),
    }


__all__ = [
    "CASE_FILES_OUTPUT",
    "case_files_of",
    "cassettes_digest",
    "content_digest",
    "hand_over",
    "remember_case_file",
    "run_identity",
]
