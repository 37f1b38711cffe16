"""Benchmarks of pytest-citations (see README.md); ``python -m benchmarks.engine`` runs one."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType


def _dev_set_names() -> None:
    """The development sets' scorers (``../shared/data``) import the engine by the module
    names it had before its stages became folders: give them those names."""
    from pytest_citations.pipeline import settings
    from pytest_citations.retrieval import passages
    from pytest_citations.retrieval.embedders import cache, make_embedder

    embeddings = ModuleType("pytest_citations.embeddings")
    embeddings.EmbeddingCache = cache.EmbeddingCache  # type: ignore[attr-defined]
    embeddings.make_embedder = make_embedder  # type: ignore[attr-defined]
    aliases = {"embeddings": embeddings, "passages": passages, "settings": settings}
    for name, module in aliases.items():
        sys.modules.setdefault(f"pytest_citations.{name}", module)


def load_script(path: Path) -> ModuleType:
    """A development set's own Python file (its scorer) as a module named after it."""
    _dev_set_names()
    spec = importlib.util.spec_from_file_location(path.stem, path)
    if spec is None or spec.loader is None:
        raise SystemExit(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module
