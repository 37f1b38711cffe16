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
    """The citation labels a baseline stored, by claim node id: what the run's precision
    is compared with. Read before the run's update (if any) rewrites the file."""

    citations: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    name: str = ""

    @classmethod
    def load(cls, path: Path) -> BaselineLabels:
        """The labels of the baseline at ``path`` (none when the file does not exist)."""
        entries = Baseline.load(path).entries
        return cls(
            {
                nodeid: tuple(str(c.get("label")) for c in entry.get("citations") or ())
                for nodeid, entry in entries.items()
            },
            path.name,
        )

    def precision(self, case_keys: Collection[str]) -> Precision | None:
        """Citation precision of the stored claims of these cases (``file::case``), or None
        when the baseline holds none of them."""
        keys = set(case_keys)
        stored = [labels for nodeid, labels in self.citations.items() if _case_key(nodeid) in keys]
        if not stored:
            return None
        known = {label.value for label in Label}
        return Precision.of(Label(label) for labels in stored for label in labels if label in known)


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
    #: The report files the run writes, (format, path as given), for the reports that say
    #: where the others are (the Markdown summary names the HTML report).
    files: tuple[tuple[str, str], ...] = ()

    @property
    def embedders(self) -> Embedders:
        """The embedders the setting put to work."""
        return Embedders.of(self.embedder)

    def with_results(self, agreement: Agreement | None, baseline: Path | None) -> RunInfo:
        """This metadata with what the run measured: the calibration result and the
        baseline at ``baseline`` (read now: call it before the run updates the file)."""
        stored = BaselineLabels.load(baseline) if baseline is not None else None
        return replace(self, agreement=agreement, baseline=stored)

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
        }
