"""Judge calibration (004, C5): how often the judge agrees with human labels.

Accuracy, balanced accuracy (mean recall over the human labels present), Cohen's kappa and
the confusion matrix, per label. Claim labels outside the judge's four map to ``not_found``
(no citation of the claim's own supported it)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from ..labels import CALIBRATION_LABELS, as_judge_label
from .criteria import Failure


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
        return sum(e == p for e, p in self.pairs) / len(self.pairs)

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
        observed = sum(e == p for e, p in self.pairs) / total
        expected = sum(
            (sum(e == label for e, _ in self.pairs) / total)
            * (sum(p == label for _, p in self.pairs) / total)
            for label in self.labels
        )
        if expected == 1:
            return 1.0 if observed == 1 else 0.0
        return (observed - expected) / (1 - expected)

    def lines(self) -> list[str]:
        """A readable report: figures, per-label precision/recall, confusion matrix."""

        def shown(value: float | None) -> str:
            return "n/a" if value is None else f"{value:.4f}"

        lines = [
            f"calibration: {self.total} labelled claims",
            f"accuracy={shown(self.accuracy)} balanced_accuracy={shown(self.balanced_accuracy)} "
            f"cohen_kappa={shown(self.kappa)}",
            "label          precision  recall  human  judge",
        ]
        for label in self.labels:
            human = sum(e == label for e, _ in self.pairs)
            judged = sum(p == label for _, p in self.pairs)
            lines.append(
                f"{label:<14} {shown(self.precision(label)):>9}  {shown(self.recall(label)):>6}"
                f"  {human:>5}  {judged:>5}"
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
            shown = "n/a" if self.value is None else f"{self.value:.4f}"
            failures.append(
                Failure("min_agreement", f"judge {self.metric} {shown} below {self.minimum:g}")
            )
