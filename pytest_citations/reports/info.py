"""What a report says about the run itself (:class:`RunInfo`): enough to tell how it was
made and to reproduce it, and where a reviewer goes from a report (:class:`SourceLinks`):
each claim's line in its case file, and the artifact that holds the HTML report. What the
run found and decided is its :class:`~pytest_citations.gating.run_result.RunResult`.

The links are settled once per run from GitHub's variables (:meth:`SourceLinks.from_env`,
which the shells call with their environment) and rendered by the HTML report, the Markdown
summary and the annotations alike.

Under GitHub Actions (``GITHUB_SERVER_URL``, ``GITHUB_REPOSITORY`` and a commit: the one
the run was given, a pull request's head, else ``GITHUB_SHA``) a claim's link is its case
file's blob at that commit and line, the path relative to the repository's checkout
(``GITHUB_WORKSPACE``); elsewhere, or for a case file outside the checkout, the case file's
path as the run names it with ``#L<line>``. Paths are percent-encoded, so a link holds
no space, quote, parenthesis or bracket that could end it early in HTML or Markdown."""

from __future__ import annotations

import posixpath
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from ..gating.result import Location
from ..retrieval.embedders import canonical_name, embedder_names

if TYPE_CHECKING:  # only a run that shards has a plan
    from ..gating.shards import ShardPlan

_SHA = re.compile(r"[0-9a-fA-F]{7,64}")
_REPOSITORY = re.compile(r"[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+")
_SERVER = re.compile(r"https?://[A-Za-z0-9.-]+(?::[0-9]+)?")
_RUN_ID = re.compile(r"[0-9]+")


@dataclass(frozen=True)
class SourceLinks:
    """How a run links to its case files: ``blob`` (``https://github.com/o/r/blob/<sha>/``,
    empty outside GitHub) and where the run's root lies in the repository (``root``, with
    ``/``, empty at its top; None outside it); the run's page and the name of the artifact
    its reports are uploaded as, when known."""

    blob: str = ""
    root: str | None = ""
    run: str = ""
    artifact: str = ""
    commit: str = ""

    @classmethod
    def from_env(
        cls,
        environ: Mapping[str, str],
        rootdir: Path,
        commit: str | None = None,
        artifact: str | None = None,
    ) -> SourceLinks:
        """The links of a run rooted at ``rootdir`` (the folder its case files' names are
        relative to) under ``environ``: GitHub's variables when they are all there and
        well formed, ``commit`` (the pull request's head) over ``GITHUB_SHA``."""
        server = environ.get("GITHUB_SERVER_URL", "").strip().rstrip("/")
        repository = environ.get("GITHUB_REPOSITORY", "").strip()
        sha = (commit or "").strip() or environ.get("GITHUB_SHA", "").strip()
        run_id = environ.get("GITHUB_RUN_ID", "").strip()
        workspace = Path(environ.get("GITHUB_WORKSPACE") or rootdir).resolve()
        try:
            root: str | None = rootdir.resolve().relative_to(workspace).as_posix()
        except ValueError:
            root = None
        root = "" if root == "." else root
        github = all(
            pattern.fullmatch(value)
            for pattern, value in ((_SERVER, server), (_REPOSITORY, repository), (_SHA, sha))
        )
        if not github:
            return cls(root=root, artifact=(artifact or "").strip())
        run = f"{server}/{repository}/actions/runs/{run_id}" if _RUN_ID.fullmatch(run_id) else ""
        return cls(
            blob=f"{server}/{repository}/blob/{sha}/",
            root=root,
            run=run,
            artifact=(artifact or "").strip(),
            commit=sha,
        )

    def path(self, file: str) -> str | None:
        """A case file (as node ids name it) relative to the repository's checkout
        (``GITHUB_WORKSPACE``, else the run's root), with ``/``; None when it lies outside.
        The annotations name their files so."""
        if self.root is None:
            return None
        joined = posixpath.normpath(posixpath.join(self.root, file.replace("\\", "/")))
        return None if joined == ".." or joined.startswith(("../", "/")) else joined

    def place(self, file: str) -> str:
        """A case file as an annotation names it: relative to the checkout when it lies
        inside, else as the run names it; with ``/``."""
        return self.path(file) or file.replace("\\", "/")

    def of(self, where: Location) -> str:
        """The link to a claim's (or case's) line: its blob on GitHub, else its path."""
        line = f"#L{where.line}" if where.line > 0 else ""
        in_repository = self.path(where.file) if self.blob else None
        if in_repository is None:
            return quote(where.file.replace("\\", "/"), safe="/") + line
        return self.blob + quote(in_repository, safe="/") + line

    def to_dict(self) -> dict[str, str]:
        """JSON-ready mapping (the JSON report's ``run.source``); empty outside GitHub."""
        if not self.blob:
            return {}
        return {"commit": self.commit, "blob": self.blob, "run": self.run}


@dataclass(frozen=True)
class Embedders:
    """The embedders an embedding setting puts to work: one for pages in English and one
    for every other page (the same one unless the setting routes by language)."""

    setting: str
    english: str
    other: str

    @classmethod
    def of(cls, setting: str) -> Embedders:
        """What :func:`~pytest_citations.retrieval.embedders.embedder_names` makes of
        ``setting``, whatever this machine has installed (a report says the same on every
        machine; what chose a run's passages is in the claims' evidence)."""
        english, other = embedder_names(setting, installed=False)
        return cls(setting, canonical_name(english), canonical_name(other or english))

    def __str__(self) -> str:
        if self.english == self.other:
            return self.english
        return f"{self.english} (English pages), {self.other} (other pages)"

    def to_dict(self) -> dict[str, str]:
        """JSON-ready mapping."""
        return {"setting": self.setting, "english_pages": self.english, "other_pages": self.other}


@dataclass(frozen=True)
class RunInfo:
    """The run's metadata, written at the top of the JSON report and the HTML page."""

    plugin_version: str = ""
    judge: str = ""
    model: str = ""
    #: The embedding setting (``--citations-embedder``); see :attr:`embedders`.
    embedder: str = ""
    record_mode: str = ""
    started: str = ""
    run_id: str = ""
    #: The shard this run was (``--citations-shard``), and which files each shard runs.
    shard: ShardPlan | None = None
    #: What the shards of one run share beside the settings above: the case files' and the
    #: cassettes' digests and the settings that change what the checks find (see
    #: :mod:`pytest_citations.plugin.identity`); empty when not known.
    identity: Mapping[str, Any] = field(default_factory=dict)
    #: The shards a merged report was made of: each one's ``index``, ``count``, ``run_id``,
    #: ``started`` and report name (empty for a run that was not merged).
    merged: tuple[Mapping[str, Any], ...] = ()
    #: The report files the run writes, (format, path as given), for the reports that say
    #: where the others are (the Markdown summary names the HTML report).
    files: tuple[tuple[str, str], ...] = ()
    #: How the reports link to each claim's line and name the artifact of the reports.
    links: SourceLinks = field(default_factory=SourceLinks)

    @property
    def embedders(self) -> Embedders:
        """The embedders the setting put to work."""
        return Embedders.of(self.embedder)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready mapping of the metadata; ``embedder`` names the embedders used."""
        return {
            "plugin_version": self.plugin_version,
            "judge": self.judge,
            "model": self.model,
            "embedder": self.embedders.to_dict() if self.embedder else None,
            "record_mode": self.record_mode,
            "started": self.started,
            "run_id": self.run_id,
            **({"identity": dict(self.identity)} if self.identity else {}),
            **({"shard": self.shard.to_dict()} if self.shard is not None else {}),
            **({"merged": [dict(shard) for shard in self.merged]} if self.merged else {}),
            **({"source": self.links.to_dict()} if self.links.blob else {}),
        }


__all__ = ["Embedders", "RunInfo", "SourceLinks"]
