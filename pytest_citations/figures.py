"""Figures in text and whether evidence states them, under the name the development sets'
scorers use (``../shared/data/wice-dev``): the code lives in :mod:`pytest_citations.gating`."""

from __future__ import annotations

from .gating.figures import Figure, extract_figures
from .gating.numbers import has_figures, missing_figures

__all__ = ["Figure", "extract_figures", "has_figures", "missing_figures"]
