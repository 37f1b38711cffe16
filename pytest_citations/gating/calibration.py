"""Judge calibration (004, C5): how often the judge agrees with human labels.

Accuracy, balanced accuracy (mean recall over the human labels present), Cohen's kappa and
the confusion matrix, per label. Claim labels outside the judge's four map to ``not_found``
(no citation of the claim's own supported it)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cached_property

from ..labels import CALIBRATION_LABELS, as_judge_label
from .criteria import Failure
from .precision import figure


def _counted(labels: Iterable[str], given: Iterable[str]) -> dict[str, int]:
    """How many of ``given`` are each of ``labels``."""
    counts = Counter(given)
    return {label: counts[label] for label in labels}


@dataclass(frozen=True)
class Agreement:
    """Agreement between human (expected) and judge (predicted) labels."""

    pairs: tuple[tuple[str, str], ...]
    labels: tuple[str, ...] = field(default=CALIBRATION_LABELS)

    @classmethod
    def of(cls, pairs: Iterable[tuple[str, str]]) -> Agreement:
        """From (expected, predicted) pairs; predicted labels are mapped to the four."""
        return cls(tuple((expected, as_judge_label(predicted)) for expected, predicted in pairs))

    @property
    def total(self) -> int:
        """Number of labelled claims."""
        return len(self.pairs)

    @cached_property
    def human(self) -> Mapping[str, int]:
        """The claims per human (expected) label, every label counted."""
        return _counted(self.labels, (expected for expected, _ in self.pairs))

    @cached_property
    def judged(self) -> Mapping[str, int]:
        """The claims per label the judge gave, every label counted."""
        return _counted(self.labels, (predicted for _, predicted in self.pairs))

    @cached_property
    def agreed(self) -> int:
        """The claims the judge labelled as the human did."""
        return sum(e == p for e, p in self.pairs)

    def confusion(self) -> dict[str, dict[str, int]]:
        """matrix[expected][predicted] = count."""
        matrix = {e: dict.fromkeys(self.labels, 0) for e in self.labels}
        for expected, predicted in self.pairs:
            matrix[expected][predicted] += 1
        return matrix

    @property
    def accuracy(self) -> float | None:
        """Share of claims where judge and human agree."""
        if not self.pairs:
            return None
        return self.agreed / len(self.pairs)

    def recall(self, label: str) -> float | None:
        """Of the claims humans gave ``label``, the share the judge gave it too."""
        row = [p for e, p in self.pairs if e == label]
        return sum(p == label for p in row) / len(row) if row else None

    def precision(self, label: str) -> float | None:
        """Of the claims the judge gave ``label``, the share humans gave it too."""
        column = [e for e, p in self.pairs if p == label]
        return sum(e == label for e in column) / len(column) if column else None

    @property
    def balanced_accuracy(self) -> float | None:
        """Mean recall over the human labels present."""
        recalls = [r for r in (self.recall(label) for label in self.labels) if r is not None]
        return sum(recalls) / len(recalls) if recalls else None

    @property
    def kappa(self) -> float | None:
        """Cohen's kappa: agreement beyond chance; 1 perfect, 0 chance, below 0 worse."""
        total = len(self.pairs)
        if not total:
            return None
        observed = self.agreed / total
        expected = sum(
            (self.human[label] / total) * (self.judged[label] / total) for label in self.labels
        )
        if expected == 1:
            return 1.0 if observed == 1 else 0.0
        return (observed - expected) / (1 - expected)

    def lines(self) -> list[str]:
        """A readable report: figures, per-label precision/recall, confusion matrix."""
        lines = [
            f"calibration: {self.total} labelled claims",
            f"accuracy={figure(self.accuracy)} balanced_accuracy={figure(self.balanced_accuracy)} "
            f"cohen_kappa={figure(self.kappa)}",
            "label          precision  recall  human  judge",
        ]
        for label in self.labels:
            lines.append(
                f"{label:<14} {figure(self.precision(label)):>9}  {figure(self.recall(label)):>6}"
                f"  {self.human[label]:>5}  {self.judged[label]:>5}"
            )
        width = max(len(label) for label in self.labels)
        lines.append("confusion (rows human, columns judge):")
        lines.append(" " * (width + 2) + "  ".join(f"{label:>12}" for label in self.labels))
        for expected, row in self.confusion().items():
            lines.append(
                f"{expected:<{width + 2}}" + "  ".join(f"{row[p]:>12}" for p in self.labels)
            )
        return lines


@dataclass(frozen=True)
class AgreementGate:
    """The calibration gate (004, C5): the judge's agreement with the human ``expect:``
    labels of ``labelled`` claims, as ``metric`` (None when it is undefined), against
    ``minimum``."""

    metric: str
    minimum: float
    value: float | None
    labelled: int

    def judge(self, failures: list[Failure], undecided: list[Failure]) -> None:
        """A gate with nothing to measure is undecided, never a pass; one below its minimum
        (or undefined over the labels there are) fails."""
        if not self.labelled:
            said = (
                f"no claim in this run carries an 'expect:' label, so the judge's "
                f"{self.metric} cannot be measured against {self.minimum:g}"
            )
            undecided.append(Failure("min_agreement", said))
        elif self.value is None or self.value < self.minimum:
            said = f"judge {self.metric} {figure(self.value)} below {self.minimum:g}"
            failures.append(Failure("min_agreement", said))
