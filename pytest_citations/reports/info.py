"""What a report says about the run itself: enough to tell how it was made and to
reproduce it, and what the run measured beyond its claims (the judge's agreement with the
human labels, the baseline's precision) once the reporter has decided it."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ..gating.baseline import Baseline
from ..gating.calibration import Agreement
from ..gating.conclusion import RunGates
from ..gating.regressions import Comparison
from ..gating.shards import ShardPlan
from ..labels import Label
from ..precision import Precision
from ..retrieval.embedders import ALIASES, embedder_names

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
class BaselineLabels:
    """The citation precision a baseline stored, per case (``file::case``): what the run's
    precision is compared with. Read before the run's update (if any) rewrites the file."""

    cases: Mapping[str, Precision] = field(default_factory=dict)
    name: str = ""

    @classmethod
    def load(cls, path: Path) -> BaselineLabels:
        """The stored precision of each case of the baseline at ``path`` (none when the
        file does not exist)."""
        known = {label.value for label in Label}
        cases: dict[str, Precision] = {}
        for nodeid, entry in Baseline.load(path).entries.items():
            labels = [str(c.get("label")) for c in entry.get("citations") or ()]
            stored = Precision.of(Label(label) for label in labels if label in known)
            key = _case_key(nodeid)
            cases[key] = cases[key] + stored if key in cases else stored
        return cls(cases, path.name)

    def precision(self, case_keys: Collection[str]) -> Precision | None:
        """Citation precision of the stored claims of these cases (``file::case``), or None
        when the baseline holds none of them."""
        stored = [self.cases[key] for key in set(case_keys) if key in self.cases]
        return sum(stored, Precision(0, 0, 0)) if stored else None


def _case_key(nodeid: str) -> str:
    return nodeid.rsplit("::", 1)[0]


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
    #: The judge's agreement with the claims' ``expect:`` labels, when calibration ran.
    agreement: Agreement | None = None
    #: The baseline the run was compared with, when there is one.
    baseline: BaselineLabels | None = None
    #: What the run was asked to meet (criteria and the run's own gates).
    gates: RunGates = field(default_factory=RunGates)
    #: The shard this run was (``--citations-shard``), and which files each shard runs.
    shard: ShardPlan | None = None
    #: What the shards of one run share beside the settings above: the case files' and the
    #: cassettes' digests and the settings that change what the checks find (see
    #: :mod:`pytest_citations.plugin.identity`); empty when not known.
    identity: Mapping[str, Any] = field(default_factory=dict)
    #: The run against its base (``--citations-compare``), when it was compared.
    comparison: Comparison | None = None
    #: The shards a merged report was made of: each one's ``index``, ``count``, ``run_id``,
    #: ``started`` and report name (empty for a run that was not merged).
    merged: tuple[Mapping[str, Any], ...] = ()
    #: The report files the run writes, (format, path as given), for the reports that say
    #: where the others are (the Markdown summary names the HTML report).
    files: tuple[tuple[str, str], ...] = ()

    @property
    def embedders(self) -> Embedders:
        """The embedders the setting put to work."""
        return Embedders.of(self.embedder)

    def with_results(
        self,
        agreement: Agreement | None,
        baseline: Path | None,
        comparison: Comparison | None = None,
    ) -> RunInfo:
        """This metadata with what the run measured: the calibration result, the baseline
        at ``baseline`` (read now: call it before the run updates the file) and the
        comparison with the base."""
        stored = BaselineLabels.load(baseline) if baseline is not None else None
        return replace(self, agreement=agreement, baseline=stored, comparison=comparison)

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
            "gates": self.gates.to_dict(),
            **({"identity": dict(self.identity)} if self.identity else {}),
            **({"shard": self.shard.to_dict()} if self.shard is not None else {}),
            **({"merged": [dict(shard) for shard in self.merged]} if self.merged else {}),
        }
