"""The scoring head that rates each line of a page for a claim: a logistic regression over
the standardised :data:`~.evidence.FEATURES` (18 weights, with the 18 means and scales they
standardise by; the bias is dropped, since it changes no order).

Its weights ship with the package in ``head.json``, read on first use only: a replay never
chooses, so it never reads them. They were fitted on WiCE's development split by
``python -m benchmarks.evidence train`` (benchmarks/README.md, section ``evidence/``).

Licence and attribution: the weights are fitted on the annotations of WiCE (Kamoi, Goyal,
Rodriguez, Durrett, *WiCE: Real-World Entailment for Claims in Wikipedia*, EMNLP 2023;
https://github.com/ryokamoi/wice), released under ODC-BY 1.0, which requires this
attribution; the dense score among the features is all-MiniLM-L6-v2's (Apache-2.0).
``head.json`` says so in its ``licence`` field.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from .evidence import FEATURES

HEAD_FILE = "head.json"


@dataclass(frozen=True)
class Head:
    """A linear scoring head over standardised features."""

    features: tuple[str, ...]
    mean: np.ndarray
    scale: np.ndarray
    weights: np.ndarray

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Head:
        """The head of a ``head.json`` document."""
        return cls(
            tuple(data["features"]),
            np.array(data["mean"], np.float64),
            np.array(data["scale"], np.float64),
            np.array(data["weights"], np.float64),
        )

    @classmethod
    def load(cls, path: Path | None = None) -> Head:
        """The head in ``path``, by default the one the package ships."""
        if path is None:
            text = resources.files(__package__).joinpath(HEAD_FILE).read_text(encoding="utf-8")
        else:
            text = path.read_text(encoding="utf-8")
        return cls.from_dict(json.loads(text))

    def score(self, x: np.ndarray) -> np.ndarray:
        """One score per row of features (higher: more likely evidence)."""
        if self.features != FEATURES:
            raise ValueError("the head was trained on other features")
        scores: np.ndarray = ((x - self.mean) / self.scale) @ self.weights
        return scores


@functools.cache
def shipped_head() -> Head:
    """The package's head, read once, on first use."""
    return Head.load()
