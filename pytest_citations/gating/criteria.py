"""Acceptance criteria and the release decision (004, C7): set before seeing scores, applied
per claim and per case, summed up as pass/fail with the criterion that failed."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from ..labels import DEFAULT_FAILING_LABELS, Label, Reason, unchecked_meaning
from ..verdicts import ClaimVerdict

if TYPE_CHECKING:
    from .figures import Figure


class Decision(StrEnum):
    """Whether a claim, a case or a run may ship: a failure wins over ``incomplete``
    (something could not be checked, or did not run), which wins over ``pass``."""

    PASS = "pass"
    FAIL = "fail"
    INCOMPLETE = "incomplete"


#: Reason of a claim whose figure is in no evidence the judge saw.
NUMBER_NOT_IN_EVIDENCE = "number_not_in_evidence"


@dataclass(frozen=True)
class Criteria:
    """What a claim and a case must meet to ship. Ini defaults, overridable per case."""

    fail_on: tuple[str, ...] = tuple(label.value for label in DEFAULT_FAILING_LABELS)
    forbid_contradicted_topics: tuple[str, ...] = ()
    numbers_traceable: bool = False
    min_supported_share: float | None = None
    uncited_allowed: bool = True
    min_precision: float | None = None
    #: Count citations the verifier could not check as their labels. Off by default: a
    #: judge or crawler that is down must not let a contradicted claim pass.
    allow_unchecked: bool = False

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready mapping (the JSON report's ``run.gates.criteria``)."""
        return {
            "fail_on": list(self.fail_on),
            "forbid_contradicted_topics": list(self.forbid_contradicted_topics),
            "numbers_traceable": self.numbers_traceable,
            "min_supported_share": self.min_supported_share,
            "uncited_allowed": self.uncited_allowed,
            "min_precision": self.min_precision,
            "allow_unchecked": self.allow_unchecked,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Criteria:
        """Inverse of :meth:`to_dict`; a key left out keeps its default, a value not of its
        key's kind (see :func:`checked_criteria`) is a ValueError."""
        return cls().merged(checked_criteria(data))

    def merged(self, overrides: Mapping[str, Any]) -> Criteria:
        """These criteria with a case's ``criteria:`` (and ``min_precision:``) applied."""
        values = dict(overrides)
        for key in ("fail_on", "forbid_contradicted_topics"):
            if key in values:
                values[key] = tuple(values[key])
        return replace(self, **values)


_FIELDS = frozenset(Criteria.__dataclass_fields__)
_FLAGS = frozenset({"numbers_traceable", "uncited_allowed", "allow_unchecked"})


def checked_criteria(data: Mapping[str, Any]) -> dict[str, Any]:
    """Criteria read back from a report (a run's gates, a case's own ``criteria:``), each
    value of its key's kind: labels for ``fail_on``, names for the topics, true or false,
    a fraction from 0 to 1 (or null) for a threshold; keys of no criterion are left out. A
    value of another kind is a ValueError naming its key: a report that says ``nan`` for a
    threshold would pass every case."""
    found: dict[str, Any] = {}
    for key, value in data.items():
        if key not in _FIELDS:
            continue
        if key == "fail_on" or key == "forbid_contradicted_topics":
            names = value if isinstance(value, list | tuple) else None
            if names is None or not all(isinstance(name, str) for name in names):
                raise ValueError(f"criterion {key} is {value!r:.40}, not a list of names")
            if key == "fail_on":
                names = [Label(name).value for name in names]
            found[key] = tuple(names)
        elif key in _FLAGS:
            if not isinstance(value, bool):
                raise ValueError(f"criterion {key} is {value!r:.40}, not true or false")
            found[key] = value
        elif value is not None:
            number = value if isinstance(value, int | float) and not isinstance(value, bool) else -1
            if not 0 <= number <= 1:  # nan is not
                raise ValueError(f"criterion {key} is {value!r:.40}, not a fraction from 0 to 1")
            found[key] = value
        else:
            found[key] = None
    return found


@dataclass(frozen=True)
class Failure:
    """A criterion a claim or case did not meet, and why."""

    criterion: str
    message: str

    def __str__(self) -> str:
        return f"{self.criterion}: {self.message}"


@dataclass(frozen=True)
class ClaimFacts:
    """What the case file says of a claim beside its text: its markers, topic, whether it
    is general phrasing, its human label, whether it was split from the answer, and the
    marker of each URL it cites; the criteria read its topic, whether it is general, and
    its citations' markers."""

    markers: tuple[str, ...] = ()
    topic: str | None = None
    general: bool = False
    expect: str | None = None
    derived: bool = False
    #: (url, marker) of each citation, to name citations as the case file does: ``[1] url``.
    cited: tuple[tuple[str, str], ...] = ()
    answer_span: tuple[int, int] | None = None


@dataclass(frozen=True)
class UncheckedCitation:
    """Why a claim could not be checked: a citation (``url``, its ``marker`` in the case file)
    and its reason (``judge_error``, ``over_budget``, ``request_refused`` for a request new
    since the recording, ...), or a check beyond the claim's own citations (no ``url``) in
    its own words (``detail``)."""

    reason: str
    url: str | None = None
    marker: str | None = None
    detail: str = ""

    @property
    def meaning(self) -> str:
        """The reason in words."""
        return self.detail or unchecked_meaning(self.reason)

    def __str__(self) -> str:
        if self.url is None:
            return self.detail or f"{self.reason} ({self.meaning})"
        marker = f"[{self.marker}] " if self.marker else ""
        return f"{marker}{self.url}: {self.reason} ({unchecked_meaning(self.reason)})"

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready mapping."""
        return {
            "reason": self.reason,
            "url": self.url,
            "marker": self.marker,
            "detail": self.detail,
            "meaning": self.meaning,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> UncheckedCitation:
        """Inverse of :meth:`to_dict`."""
        url, marker = data.get("url"), data.get("marker")
        return cls(
            str(data["reason"]),
            str(url) if url is not None else None,
            str(marker) if marker is not None else None,
            str(data.get("detail") or ""),
        )


def describe_unchecked(
    verdict: ClaimVerdict, markers: tuple[tuple[str, str], ...] = ()
) -> tuple[UncheckedCitation, ...]:
    """Each citation the verifier could not check (``[1] url: judge_error (why)``); the
    claim's problems when no citation carries the reason (a check beyond its citations)."""
    named = dict(markers)
    found = tuple(
        UncheckedCitation(citation.reason or "", citation.url, named.get(citation.url))
        for citation in verdict.unchecked
    )
    if found:
        return found
    why = Reason.OVER_BUDGET if verdict.over_budget else Reason.REQUEST_REFUSED
    if not verdict.lacks_recording:
        why = "unchecked"
    return tuple(UncheckedCitation(why, detail=problem) for problem in verdict.problems)


@dataclass(frozen=True)
class ClaimAssessment:
    """A claim's verdict against the criteria."""

    verdict: ClaimVerdict
    failures: tuple[Failure, ...] = ()
    missing: tuple[Figure, ...] = ()
    #: The citations that could not be checked (see :func:`describe_unchecked`); empty
    #: when all were, or when the run counts them as their labels.
    unchecked: tuple[UncheckedCitation, ...] = ()

    @property
    def passed(self) -> bool:
        """True when no criterion failed and nothing was left unchecked."""
        return self.decision == "pass"

    @property
    def incomplete(self) -> bool:
        """Not decided: some citation could not be checked and nothing failed anyway."""
        return self.decision == "incomplete"

    @property
    def decision(self) -> Decision:
        """``fail`` (a real failure wins), ``incomplete`` or ``pass``."""
        if self.failures:
            return Decision.FAIL
        return Decision.INCOMPLETE if self.unchecked else Decision.PASS


def evidence_texts(verdict: ClaimVerdict) -> list[str]:
    """Quotes and passages the judge saw for this claim."""
    texts = [c.evidence_quote for c in verdict.citations if c.evidence_quote]
    texts += [passage for shown in verdict.evidence for passage in shown.passages]
    return texts


def assess_claim(verdict: ClaimVerdict, facts: ClaimFacts, criteria: Criteria) -> ClaimAssessment:
    """Apply the claim-level criteria: failing labels, forbidden contradicted topics,
    numbers and dates traceable to the evidence, and uncited claims only when general."""
    label = verdict.label
    failures: list[Failure] = []
    if label.value in criteria.fail_on:
        failures.append(Failure("fail_on", f"the claim is {label.value}"))
    if (
        label is Label.CONTRADICTED
        and facts.topic
        and facts.topic in criteria.forbid_contradicted_topics
    ):
        failures.append(
            Failure("forbid_contradicted_topics", f"a contradicted claim about {facts.topic!r}")
        )
    missing: tuple[Figure, ...] = ()
    if label is Label.UNCITED:
        if not criteria.uncited_allowed:
            failures.append(Failure("uncited_allowed", "the claim cites nothing"))
        elif not facts.general:
            failures.append(
                Failure("uncited_allowed", "the claim cites nothing and is not marked general")
            )
        else:
            failures += _figures_failures(verdict, uncited=True)[0]
    elif criteria.numbers_traceable:
        found, missing = _figures_failures(verdict, uncited=False)
        failures += found
    unchecked: tuple[UncheckedCitation, ...] = ()
    # A request missing from the recording, or a document without a URL, is never a label,
    # even where the run counts other unchecked citations as their labels: nothing was
    # fetched or judged for it.
    if not verdict.complete and (not criteria.allow_unchecked or verdict.never_a_label):
        unchecked = describe_unchecked(verdict, facts.cited)
        failures = [f for f in failures if _stands_unchecked(f, verdict)]
    return ClaimAssessment(verdict, tuple(failures), missing, unchecked)


def _figures_failures(
    verdict: ClaimVerdict, *, uncited: bool
) -> tuple[list[Failure], tuple[Figure, ...]]:
    """The check on a claim's figures (numbers and dates): an ``uncited`` claim may state
    none; each figure of a cited one must stand in the evidence the judge saw. (The failure,
    the figures missing from the evidence.)"""
    # The figures' tables and patterns load here, for a claim whose figures are checked,
    # rather than in every run that decides a claim.
    from .numbers import has_figures, missing_figures

    if uncited:
        if not has_figures(verdict.claim):
            return [], ()
        return [Failure("uncited_allowed", "an uncited claim may not state a number or date")], ()
    missing = tuple(missing_figures(verdict.claim, evidence_texts(verdict)))
    if not missing:
        return [], ()
    shown = ", ".join(repr(figure.text) for figure in missing)
    said = f"{NUMBER_NOT_IN_EVIDENCE}: {shown} appears in no cited passage or quote"
    return [Failure("numbers_traceable", said)], missing


def _stands_unchecked(failure: Failure, verdict: ClaimVerdict) -> bool:
    """True for a failure that no answer of the unchecked citations could undo: a checked
    citation contradicts the claim, and one contradiction decides the claim (A1)."""
    return (
        failure.criterion in ("fail_on", "forbid_contradicted_topics")
        and verdict.label is Label.CONTRADICTED
        and any(c.checked and c.label is Label.CONTRADICTED for c in verdict.citations)
    )
