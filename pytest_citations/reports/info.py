"""What a report says about the run itself: enough to tell how it was made and to
reproduce it. What the run found and decided is its
:class:`~pytest_citations.gating.run_result.RunResult`."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..gating.shards import ShardPlan
from ..retrieval.embedders import ALIASES, embedder_names
from .links import SourceLinks

_CANONICAL = {alias.lower(): name for alias, name in ALIASES.items()}


def canonical_embedder(name: str) -> str:
    """The built-in embedder's own name for one of its aliases (``minilm`` →
    ``all-MiniLM-L6-v2``); a model folder or unknown name as given."""
    return _CANONICAL.get(name.strip().lower(), name.strip())


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
        return cls(setting, canonical_embedder(english), canonical_embedder(other or english))

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
