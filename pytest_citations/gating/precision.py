"""Citation precision over claim–URL pairs (A2), and the share of claims fully supported
(C7): what the gates and every report count."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from ..labels import Label
from ..network.usage import count_of


class Ratio:
    """What :class:`Precision` and :class:`Share` have in common: ``supported`` of the
    ``total`` checked, the ``unchecked`` counted apart (an unchecked item is no label), and
    how far the unchecked could move the figure."""

    supported: int
    total: int
    unchecked: int

    @property
    def value(self) -> float | None:
        """Supported / checked; None with nothing checked."""
        return self.supported / self.total if self.total else None

    @property
    def worst(self) -> float | None:
        """The figure if no unchecked item were supported; None with nothing to count."""
        return _ratio(self.supported, self.total + self.unchecked)

    @property
    def best(self) -> float | None:
        """The figure if every unchecked item were supported; None with nothing to count."""
        return _ratio(self.supported + self.unchecked, self.total + self.unchecked)

    def fraction(self) -> str:
        """The figure as 000 writes it: ``0.2222 (2/9)``; with items unchecked,
        ``0.5000 (1/2, 2 of 3 checked)``."""
        return fraction(self.value, self.supported, self.total, self.unchecked)


@dataclass(frozen=True)
class Precision(Ratio):
    """Citation precision over claim–URL pairs (A2).

    ``citation`` is supported / total; ``reachable`` keeps the numerator and drops the
    unreachable citations from the denominator; it is None when nothing was reachable.
    Partial support does not count as supported. ``total`` counts the citations that were
    checked: a citation that could not be checked is no label, and is counted apart
    (``unchecked``) and shown as ``n of m checked``; :attr:`worst` and :attr:`best` are the
    precision if every unchecked citation turned out unsupported, or supported.
    """

    #: Supported / checked citations; None for no checked citation.
    citation = Ratio.value

    supported: int
    total: int
    reachable: int
    unchecked: int = 0

    @classmethod
    def of(cls, labels: Iterable[Label]) -> Precision:
        """Count a sequence of citation labels."""
        supported = total = unreachable = 0
        for label in labels:
            total += 1
            supported += label is Label.SUPPORTED
            unreachable += label is Label.UNREACHABLE
        return cls(supported=supported, total=total, reachable=total - unreachable)

    @classmethod
    def counted(
        cls, supported: object, total: object, reachable: object, unchecked: object = 0
    ) -> Precision:
        """Counts read from a file, checked (see :func:`count_of`) and consistent: no more
        supported citations than reachable ones, nor reachable than cited; a ValueError
        saying what is wrong otherwise."""
        found = cls(
            count_of(supported, "supported"),
            count_of(total, "citations"),
            count_of(reachable, "reachable"),
            count_of(unchecked, "unchecked"),
        )
        if not found.supported <= found.reachable <= found.total:
            raise ValueError(
                f"the counts do not add up: {found.supported} supported, {found.reachable} "
                f"reachable of {found.total} citations"
            )
        return found

    def __add__(self, other: Precision) -> Precision:
        return Precision(
            self.supported + other.supported,
            self.total + other.total,
            self.reachable + other.reachable,
            self.unchecked + other.unchecked,
        )

    @property
    def reachable_precision(self) -> float | None:
        """Supported / reachable citations; None when none was reachable."""
        return self.supported / self.reachable if self.reachable else None

    def reachable_fraction(self) -> str:
        """Reachable precision as 000 writes it: ``0.3333 (2/6)``."""
        return fraction(self.reachable_precision, self.supported, self.reachable)

    def lines(self) -> list[str]:
        """The two lines exactly as 000 prints them: ``citation_precision=0.2222 (2/9)``."""
        return [
            f"citation_precision={self.fraction()}",
            f"reachable_precision={self.reachable_fraction()}",
        ]


@dataclass(frozen=True)
class Share(Ratio):
    """Claims fully supported by their own citations, over the claims that count (004, C7)
    and were checked: a claim that could not be checked has no label, and is counted apart
    (``unchecked``), as :class:`Precision` counts an unchecked citation."""

    supported: int
    total: int
    unchecked: int = 0

    __str__ = Ratio.fraction


def _ratio(numerator: int, denominator: int) -> float | None:
    return numerator / denominator if denominator else None


def figure(value: float | None) -> str:
    """A figure as every summary writes it: four decimals, or ``n/a`` when it is undefined."""
    return "n/a" if value is None else f"{value:.4f}"


def fraction(value: float | None, numerator: int, denominator: int, unchecked: int = 0) -> str:
    """A ratio as the summaries write it: ``0.3333 (1/3)``, or ``n/a (0/0)``; with
    ``unchecked`` items beside the ``denominator`` checked ones, ``0.5000 (1/2, 2 of 3
    checked)``."""
    shown = figure(value)
    if unchecked:
        checked = f"{denominator} of {denominator + unchecked} checked"
        return f"{shown} ({numerator}/{denominator}, {checked})"
    return f"{shown} ({numerator}/{denominator})"
