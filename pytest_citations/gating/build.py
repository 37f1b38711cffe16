"""The one function that decides a run as a whole, :func:`build_run`: from what the run
found (:class:`Findings`: its decided claims and the cases whose own item ran, gathered from
this process, from xdist workers or from shard reports), to the :class:`~.run_result.RunResult`
every output renders. The plugin and ``pytest-citations merge`` both call it, so a merge of
shard reports decides as the serial run would: each case from its claims (in a serial run,
the case its own item decided, never decided again), the suite's
thresholds, the judge's agreement with the human labels (C5), the comparison with a base,
and the release decision, never added up from the shards' own.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from ..network.usage import Spending, Usage
from .criteria import Decision
from .deciding import decide_case, in_order, precision_of, share_of, undecided_case
from .decisions import RunDecision, decide_run
from .result import CaseInfo, CaseResult, ClaimResult, Location, count_labels
from .run_result import (
    FAIL,
    INCOMPLETE,
    PASS,
    Base,
    BaselineFacts,
    FileError,
    Release,
    RunGates,
    RunResult,
)

if TYPE_CHECKING:
    from .calibration import Agreement, AgreementGate
    from .comparison import RunComparison


@dataclass
class Findings:
    """What a run found, before it is decided as a whole: each case seen, the claims whose
    items ran (a repeated node id replaces the claim), the cases whose own item ran (each
    with the decision its item made, when it was made in this process), the case files that
    could not be verified, the items that did not run or that the selection left out, what
    it spent and the cassettes it left unwritten, and the drift check."""

    cases: dict[str, CaseInfo] = field(default_factory=dict)
    claims: dict[str, ClaimResult] = field(default_factory=dict)
    #: The cases whose own item ran, by ``file::case``: the case as that item decided it, or
    #: None where only its claims came here (from an xdist worker, a shard's report).
    decided: dict[str, CaseResult | None] = field(default_factory=dict)
    file_errors: dict[str, FileError] = field(default_factory=dict)
    skipped: dict[str, Location] = field(default_factory=dict)
    deselected: dict[str, Location] = field(default_factory=dict)
    usage: Usage = field(default_factory=Usage)
    spending: Spending = field(default_factory=Spending)
    cassette_notes: list[str] = field(default_factory=list)
    drift: Mapping[str, Any] | None = None

    def add_claim(self, info: CaseInfo, claim: ClaimResult) -> None:
        """A claim whose item ran, and its case."""
        self.cases.setdefault(info.key, info)
        self.claims[claim.nodeid] = claim

    def add_case(self, info: CaseInfo, decided: CaseResult | None = None) -> None:
        """A case whose own item ran, and the case as the item ``decided`` it, if it is
        known here."""
        self.cases.setdefault(info.key, info)
        if self.decided.get(info.key) is None:
            self.decided[info.key] = decided

    def add_file_error(self, error: FileError) -> None:
        """A case file whose items could not be checked (the first report of it stands; the
        items it left unchecked are added up)."""
        known = self.file_errors.get(error.file)
        if known is None:
            self.file_errors[error.file] = error
        else:
            items = tuple(dict.fromkeys((*known.items, *error.items)))
            self.file_errors[error.file] = replace(known, items=items)

    def add_skipped(self, item: Location) -> None:
        """A case item that did not run (a skip mark, ``pytest.skip``): never a pass."""
        self.skipped.setdefault(item.nodeid, item)

    def add_deselected(self, items: Iterable[Location]) -> None:
        """Case items the user's selection (``-m``, ``-k``, ``--deselect``) left out."""
        for item in items:
            self.deselected.setdefault(item.nodeid, item)

    def add_cassette_notes(self, notes: Iterable[str]) -> None:
        """Cassettes a process left as they were, and why."""
        self.cassette_notes += [note for note in notes if note not in self.cassette_notes]

    def absorb(self, other: Findings) -> None:
        """Everything another run found (a shard's, whose case files this one does not
        hold)."""
        for key, info in other.cases.items():
            self.cases.setdefault(key, info)
        self.claims.update(other.claims)
        for key, case in other.decided.items():
            self.decided[key] = self.decided.get(key) or case
        for error in other.file_errors.values():
            self.add_file_error(error)
        for item in other.skipped.values():
            self.add_skipped(item)
        self.add_deselected(other.deselected.values())
        self.add_cassette_notes(other.cassette_notes)
        self.usage.add(other.usage)
        self.spending = self.spending.joined(other.spending)
        self.drift = self.drift or other.drift

    def __bool__(self) -> bool:
        return bool(self.cases or self.file_errors or self.skipped or self.drift is not None)


def _cases(found: Findings, gates: RunGates) -> list[CaseResult]:
    """Every case seen, sorted by file and line. A case whose own item ran is the case as
    that item decided it, when it was decided over the claims that ran; otherwise (its
    decision was made in another process, or over claims some of which did not run here)
    it is decided from the claims that ran."""
    claims: dict[str, list[ClaimResult]] = {key: [] for key in found.cases}
    for claim in found.claims.values():
        claims[claim.where.case_key].append(claim)
    cases = []
    for key, info in found.cases.items():
        ordered = in_order(claims[key])
        made = found.decided.get(key)
        # Most often the very claims the item decided over: the tuples compare by identity.
        if made is None or made.claims != ordered:
            rules = info.rules(gates.criteria)
            decided = key in found.decided
            made = (decide_case if decided else undecided_case)(info, ordered, rules)
        cases.append(made)
    return sorted(cases, key=lambda case: (case.info.file, case.info.line, case.info.case))


def calibration_gate(
    claims: Iterable[ClaimResult], gates: RunGates
) -> tuple[Agreement | None, AgreementGate | None]:
    """The judge's agreement with the claims' ``expect:`` labels (C5), over the claims that
    have a label, and its gate; neither for a run that asks for neither."""
    if not (gates.calibrate or gates.min_agreement):
        return None, None
    # The judge's calibration loads only for a run that measures it (build_run asks only
    # then).
    from .calibration import Agreement, AgreementGate

    pairs = [(c.expect, c.label.value) for c in claims if c.expect and c.label is not None]
    agreement = Agreement.of(pairs) if pairs else None
    if gates.min_agreement is None:
        return agreement, None
    metric, minimum = gates.min_agreement
    value = getattr(agreement, metric) if agreement is not None else None
    return agreement, AgreementGate(metric, minimum, value, len(pairs))


def _comparison(
    cases: list[CaseResult],
    base: Base,
    gates: RunGates,
    in_scope: Callable[[str], bool],
    left_out: frozenset[str],
) -> RunComparison:
    """The run's cases against its base, each change's ``fails`` decided by the gates."""
    # The comparison with a base (and its rules on relaxed criteria) loads only for a run
    # compared with one.
    from .regressions import compare_runs, states_of

    return compare_runs(
        base.cases,
        states_of(cases),
        base=base.shown,
        in_scope=in_scope,
        left_out=left_out,
        fail_on_regression=gates.fail_on_regression,
        max_drop=gates.max_precision_drop,
        gates=gates,
        base_gates=base.gates,
    )


def _compared(cases: list[CaseResult], comparison: RunComparison) -> list[CaseResult]:
    """The cases with each claim's difference from the base on it."""
    diffs = {change.where.nodeid: change for change in comparison.changes}
    found = []
    for case in cases:
        claims = tuple(replace(c, change=diffs.get(c.nodeid)) for c in case.claims)
        found.append(replace(case, claims=claims))
    return found


def _shown_share(case: CaseResult) -> str:
    share = case.share
    if not share.unchecked:
        return f"fully supported {share.supported} of {share.total}"
    return (
        f"fully supported {share.supported} of {share.total} checked, {share.unchecked} unchecked"
    )


def _case_line(case: CaseResult) -> tuple[Decision, str | None, str]:
    """(decision, reason, line) of one decided case."""
    shown = f"{case.key}: {_shown_share(case)}; "
    if case.decision is FAIL:
        return FAIL, str(case.failures[0]), shown + f"release decision: fail ({case.failures[0]})"
    if case.decision is INCOMPLETE:
        why = (case.incomplete or ("not every citation was checked",))[0]
        return INCOMPLETE, why, shown + f"release decision: incomplete ({why})"
    return PASS, None, shown + "release decision: pass"


def release_of(
    cases: Iterable[CaseResult],
    decision: RunDecision,
    file_errors: Sequence[FileError],
    skipped: Sequence[Location],
) -> Release:
    """The run's decision: each case's, the suite's own gates, the case files that could not
    be verified and the case items that did not run (each in order). A failure wins over
    ``incomplete``."""
    lines: list[tuple[Decision, str]] = []
    reasons: dict[Decision, list[str]] = {FAIL: [], INCOMPLETE: []}
    for case in cases:
        if case.decision is None:
            continue
        verdict, why, line = _case_line(case)
        lines.append((verdict, line))
        if why is not None:
            reasons[verdict].append(f"{case.key}: {why}")
    reasons[FAIL] += [str(failure) for failure in decision.failures]
    reasons[INCOMPLETE] += [f"{error.file}: not verified ({error.reason})" for error in file_errors]
    reasons[INCOMPLETE] += [str(failure) for failure in decision.undecided]
    if skipped:
        count = f"{len(skipped)} case item{'s' if len(skipped) != 1 else ''}"
        reasons[INCOMPLETE].append(f"{count} did not run ({skipped[0].nodeid} was skipped)")
    for verdict in (FAIL, INCOMPLETE):
        if reasons[verdict]:
            return Release(verdict, tuple(reasons[verdict]), tuple(lines))
    return Release(PASS if lines else None, (), tuple(lines))


def build_run(
    found: Findings,
    gates: RunGates,
    *,
    base: Base | None = None,
    in_scope: Callable[[str], bool] = lambda file: True,
    baseline: BaselineFacts | None = None,
) -> RunResult:
    """Decide the run from what it found (see the module's docstring). ``in_scope`` says
    which files of the base this run answers for (a shard's, or the files a selection
    ran); ``baseline`` is the baseline's stored precision and the run's claims against it."""
    cases = _cases(found, gates)
    comparison = None
    if base is not None:
        comparison = _comparison(cases, base, gates, in_scope, frozenset(found.deselected))
        cases = _compared(cases, comparison)
    claims = tuple(claim for case in cases for claim in case.claims)
    agreement = agreement_gate = None
    if gates.calibrate or gates.min_agreement:
        agreement, agreement_gate = calibration_gate(claims, gates)
    # Over every claim of the run, as each case's over its own.
    precision, share = precision_of(claims), share_of(claims)
    decision = decide_run(
        precision, share, gates.criteria, agreement=agreement_gate, comparison=comparison
    )
    errors = tuple(sorted(found.file_errors.values(), key=lambda error: error.file))
    skipped = tuple(sorted(found.skipped.values()))
    return RunResult(
        cases=tuple(cases),
        claims=claims,
        gates=gates,
        decision=decision,
        precision=precision,
        share=share,
        label_counts=count_labels(claims),
        release=release_of(cases, decision, errors, skipped),
        file_errors=errors,
        skipped=skipped,
        deselected=tuple(sorted(found.deselected.values())),
        usage=found.usage,
        spending=found.spending,
        cassette_notes=tuple(found.cassette_notes),
        comparison=comparison,
        agreement=agreement,
        baseline=baseline,
        drift=found.drift,
    )


__all__ = ["Findings", "build_run", "calibration_gate", "release_of"]
