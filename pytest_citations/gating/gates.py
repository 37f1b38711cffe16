"""What a run was asked to meet beside each claim's and case's criteria (its own gates, as
its options set them), and the base it is compared with: recorded in the JSON report
(``run.gates``) so that a merge of shard reports gates as the serial run did."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .comparison import CaseState
from .criteria import Criteria


@dataclass(frozen=True)
class RunGates:
    """What the run was asked to meet, as its options set it: recorded in the JSON report
    (``run.gates``) so that a merge of shard reports gates the same way."""

    criteria: Criteria = field(default_factory=Criteria)
    calibrate: bool = False
    #: (metric, minimum) of the calibration gate, if set.
    min_agreement: tuple[str, float] | None = None
    #: The base's name as the summary shows it, when the run is compared with one.
    compare: str | None = None
    fail_on_regression: bool = False
    max_precision_drop: float | None = None
    #: ``--citations-update-baseline``: a claim that only regressed against the baseline is
    #: written into it rather than failed.
    update_baseline: bool = False
    #: ``--citations-baseline-fail-unused``: stale baseline entries fail the run.
    baseline_fail_unused: bool = False

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready mapping."""
        return {
            "criteria": self.criteria.to_dict(),
            "calibrate": self.calibrate,
            "min_agreement": list(self.min_agreement) if self.min_agreement else None,
            "compare": self.compare,
            "fail_on_regression": self.fail_on_regression,
            "max_precision_drop": self.max_precision_drop,
            "update_baseline": self.update_baseline,
            "baseline_fail_unused": self.baseline_fail_unused,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> RunGates:
        """Inverse of :meth:`to_dict`; a gate that is no number in its range (a ``nan``
        that every comparison passes) is a ValueError."""
        agreement = data.get("min_agreement")
        drop = data.get("max_precision_drop")
        if agreement:
            metric, minimum = str(agreement[0]), agreement[1]
            if not isinstance(minimum, int | float) or not -1 <= minimum <= 1:
                raise ValueError(f"gate min_agreement is {agreement!r:.40}, not from -1 to 1")
        if drop is not None and (not isinstance(drop, int | float) or not 0 <= drop <= 1):
            raise ValueError(f"gate max_precision_drop is {drop!r:.40}, not from 0 to 1")
        return cls(
            criteria=Criteria.from_dict(data.get("criteria") or {}),
            calibrate=bool(data.get("calibrate")),
            min_agreement=(metric, float(minimum)) if agreement else None,
            compare=data.get("compare"),
            fail_on_regression=bool(data.get("fail_on_regression")),
            max_precision_drop=float(drop) if drop is not None else None,
            update_baseline=bool(data.get("update_baseline")),
            baseline_fail_unused=bool(data.get("baseline_fail_unused")),
        )


@dataclass(frozen=True)
class Base:
    """The cases of the base a run is compared with, and its name in the summary."""

    cases: tuple[CaseState, ...]
    shown: str


__all__ = ["Base", "RunGates"]
