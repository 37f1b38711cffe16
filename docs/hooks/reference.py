"""MkDocs hook: the reference pages, generated from the code when the site is built.

``reference/options.md`` comes from the plugin's option table and ``reference/cli.md`` from
the command's argument parsers, so neither page can drift from what the code accepts. They
are never files in docs/: the renderers live in the package
(``pytest_citations.plugin.reference``, ``pytest_citations.cli.reference``), tested there.
"""

from __future__ import annotations

from collections.abc import Callable

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File, Files

from pytest_citations.cli.reference import cli_page
from pytest_citations.plugin.reference import options_page

#: Each generated page, by its path under docs/, and what renders it.
PAGES: dict[str, Callable[[], str]] = {
    "reference/options.md": options_page,
    "reference/cli.md": cli_page,
}


def on_files(files: Files, config: MkDocsConfig) -> Files:
    """Add the generated pages to the site (before the nav is built, which names them)."""
    for path, render in PAGES.items():
        files.append(File.generated(config, path, content=render()))
    return files
