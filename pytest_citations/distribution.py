"""The distribution: its version (the one place it is written; the build reads it from
here, see ``[tool.hatch.version]`` in pyproject.toml) and how to install one of its extras
from where this copy came from.

pytest-citations is not on PyPI yet, so "pip install 'pytest-citations[record]'" is not an
instruction that works: a message that names an extra says the install that does, read from
the installer's record of where the package came from (``direct_url.json``, PEP 610): a
checkout, a commit of a repository, or a wheel.
"""

from __future__ import annotations

import json
from importlib import metadata
from urllib.parse import urlsplit, urlunsplit

__version__ = "0.1.0"

#: The distribution's name, as pip and the metadata spell it.
NAME = "pytest-citations"


def _without_credentials(url: str) -> str:
    """``url`` without a user or password (a token in a private repository's URL)."""
    parts = urlsplit(url)
    if "@" not in parts.netloc:
        return url
    return urlunsplit(parts._replace(netloc=parts.netloc.rsplit("@", 1)[1]))


def _source(record: dict[str, object]) -> tuple[str, bool] | None:
    """What pip reinstalls this copy from, per its ``direct_url.json``: a requirement's URL
    (or a folder), and whether it was installed editable. None when the record is not one
    this reads."""
    url = record.get("url")
    if not isinstance(url, str) or not url:
        return None
    url = _without_credentials(url)
    vcs = record.get("vcs_info")
    if isinstance(vcs, dict):
        commit = vcs.get("commit_id")
        if not isinstance(commit, str) or not isinstance(vcs.get("vcs"), str):
            return None
        url = f"{vcs['vcs']}+{url}@{commit}"
    subdirectory = record.get("subdirectory")
    if isinstance(subdirectory, str) and subdirectory:
        url += f"#subdirectory={subdirectory}"
    folder = record.get("dir_info")
    if isinstance(folder, dict) and url.startswith("file://") and "#" not in url:
        return urlsplit(url).path, bool(folder.get("editable"))
    return url, False


def install_command(extra: str) -> str:
    """The pip command that installs ``extra`` of pytest-citations from where this copy was
    installed from: ``pip install -e '/src/pytest-citations[record]'`` for a checkout,
    ``pip install 'pytest-citations[record] @ git+https://…@<commit>'`` for a commit,
    ``pip install 'pytest-citations[record]'`` for a package index."""
    try:
        text = metadata.distribution(NAME).read_text("direct_url.json")
    except metadata.PackageNotFoundError:
        # Imported from a source tree that was never installed.
        return f"pip install '<a checkout of {NAME}>[{extra}]'"
    if text is None:
        return f"pip install '{NAME}[{extra}]'"
    try:
        record = json.loads(text)
    except ValueError:
        record = None
    source = _source(record) if isinstance(record, dict) else None
    if source is None:
        return f"pip install '<a checkout of {NAME}>[{extra}]'"
    where, editable = source
    if editable:
        return f"pip install -e '{where}[{extra}]'"
    if where.startswith("/"):
        return f"pip install '{where}[{extra}]'"
    return f"pip install '{NAME}[{extra}] @ {where}'"
