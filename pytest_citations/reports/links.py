"""Where a reviewer goes from a report: each claim's line in its case file, and the
artifact that holds the HTML report. Settled once per run from GitHub's variables
(:meth:`SourceLinks.from_env`, which the shells call with their environment) and rendered
by the HTML report, the Markdown summary and the annotations alike.

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
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

from ..gating.result import Location

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


__all__ = ["SourceLinks"]
