"""The gating rules, stated on the pure decisions: hand-built cases, claims and verdicts go
through :func:`decide_file`, :func:`assess_claim`, :func:`decide_case` and :func:`decide_run`
with no pytest run, no emulator and no judge heuristics in between (004, C4, C5, C7; A1, A2).

Claim rules: the failing labels (``fail_on``), forbidden contradicted topics, numbers
traceable to the evidence, uncited claims only as general phrasing without figures, and
unchecked citations that leave a claim unchecked (no label, decision ``incomplete``). Case
rules: the precision and supported share thresholds over what was checked, what unchecked
citations leave undecided, and fail over incomplete over pass. Then the claim's result, the
baseline, an update run, and the run's own gates.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from pytest_citations.cases.model import Case, Claim
from pytest_citations.gating.baseline import Baseline
from pytest_citations.gating.calibration import AgreementGate
from pytest_citations.gating.criteria import (
    ClaimAssessment,
    ClaimFacts,
    Criteria,
    Decision,
    Failure,
    assess_claim,
)
from pytest_citations.gating.deciding import (
    BaselineRef,
    FileResult,
    case_info,
    decide_case,
    decide_claim,
    decide_file,
)
from pytest_citations.gating.decisions import decide_run
from pytest_citations.gating.messages import (
    ALLOW_UNCHECKED_HINT,
    MISSING_RECORDING_HINT,
    case_message,
    claim_message,
)
from pytest_citations.gating.precision import Precision, Share
from pytest_citations.gating.result import (
    BaselineChange,
    BaselineKind,
    CaseResult,
    ClaimResult,
    ClaimStatus,
    Location,
)
from pytest_citations.labels import Label, Reason
from pytest_citations.verdicts import CitationVerdict, ClaimVerdict, Evidence

FILE = "cases/water.yaml"
A, B, C = "https://example.org/a", "https://example.org/b", "https://example.org/c"
PLAIN = "Water boils when heated."
FIGURE = "Water boils at 100 degrees Celsius at sea level."
QUESTION = "When does water boil?"
NOT_REACHED = (
    "[2] https://example.org/b: judge_error "
    "(the judge could not be reached or answered with an error)"
)


def cited(label: Label, url: str = A, reason: str | None = None) -> CitationVerdict:
    """One citation's verdict."""
    return CitationVerdict(url, label, evidence_quote=None, confidence=0.9, reason=reason)


def unreached(url: str = B) -> CitationVerdict:
    """A citation the judge could not be reached for (the verifier's own label for it)."""
    return cited(Label.NOT_FOUND, url, Reason.JUDGE_ERROR)


def verdict(
    label: Label, *citations: CitationVerdict, text: str = PLAIN, **more: Any
) -> ClaimVerdict:
    """A claim's verdict; without citations, one citation of ``A`` with the claim's label."""
    found = citations or (() if label is Label.UNCITED else (cited(label),))
    return ClaimVerdict(text, label, found, **more)


def claim(index: int = 1, markers: Sequence[str] = ("1",), **more: Any) -> Claim:
    """A claim of the case, citing ``markers`` (``1`` is A, ``2`` is B, ``3`` is C)."""
    urls = tuple({"1": A, "2": B, "3": C}[marker] for marker in markers)
    return Claim(index, more.pop("text", PLAIN), urls, tuple(markers), 3 + index, **more)


def case(*claims: Claim, **more: Any) -> Case:
    """The case ``water`` of :data:`FILE` with ``claims`` (one claim citing A by default)."""
    fields: dict[str, Any] = {
        "id": "water",
        "path": Path(FILE),
        "line": 1,
        "question": QUESTION,
        "answer": None,
        "citations": {"1": A, "2": B, "3": C},
        "claims": claims or (claim(),),
    }
    return Case(**{**fields, **more})


def assess(
    verdicts: Sequence[ClaimVerdict],
    rules: Criteria | None = None,
    baseline: BaselineRef | None = None,
    updating: bool = False,
    **case_fields: Any,
) -> FileResult:
    """One case of one claim per verdict (claim ``n`` cites its verdict's URLs), decided
    against the run's ``rules``; ``case_fields`` (``criteria``, ``min_precision``...) go to
    the case."""
    markers = {A: "1", B: "2", C: "3"}
    claims = [
        claim(n, [markers[c.url] for c in v.citations], general=v.label is Label.UNCITED)
        for n, v in enumerate(verdicts, start=1)
    ]
    fields = {"claims": tuple(claims), **case_fields}
    found = [case(**fields)]
    return decide_file(FILE, found, verdicts, rules or lenient(), baseline, updating=updating)


def lenient(**fields: Any) -> Criteria:
    """The run's criteria with ``contradicted`` alone failing, the gate these rules are
    stated against (the default fails every label but supported, see below)."""
    return Criteria(**{"fail_on": ("contradicted",), **fields})


@dataclass(frozen=True)
class Said:
    """A one-claim case's claim, decided, and what its item says: an error (setup) when it
    could not be checked, a failure when it fails."""

    result: ClaimResult
    error: str | None
    failure: str | None


def outcome(found: ClaimVerdict, rules: Criteria | None = None, **more: Any) -> Said:
    """The claim of a one-claim case and what its item says."""
    decided = assess([found], rules, **more)
    result = decided.claims[("water", 1)]
    message = claim_message(result, decided.cases["water"])
    incomplete = result.decision is Decision.INCOMPLETE
    return Said(result, message if incomplete else None, None if incomplete else message)


def case_said(case: CaseResult) -> tuple[str | None, str | None]:
    """(error, failure) of a case's own item."""
    message = case_message(case)
    return (message, None) if case.item is Decision.INCOMPLETE else (None, message)


def failures(assessment: ClaimAssessment) -> list[str]:
    """The criteria a claim missed, as its record lists them."""
    return [str(failure) for failure in assessment.failures]


# -- the claim's label against fail_on -----------------------------------------------------------


@pytest.mark.parametrize("label", [label for label in Label if label is not Label.UNCITED])
def test_by_default_only_a_supported_claim_passes(label: Label) -> None:
    """004's worked example fails a partial claim; no cited page backing a claim, or only
    an uncited one, or none reachable, is no evidence either."""
    assessment = assess_claim(verdict(label), ClaimFacts(), Criteria())
    if label is Label.SUPPORTED:
        assert assessment.decision is Decision.PASS
        assert failures(assessment) == []
    else:
        assert assessment.decision is Decision.FAIL
        assert failures(assessment) == [f"fail_on: the claim is {label.value}"]


def test_the_item_of_a_failing_label_names_the_failing_labels() -> None:
    found = outcome(verdict(Label.CONTRADICTED))
    assert found.error is None
    assert found.failure is not None
    first = found.failure.splitlines()[0]
    assert first == "claim is contradicted (failing labels: contradicted)"
    assert f"claim: {PLAIN}" in found.failure  # followed by the explanation
    assert outcome(verdict(Label.PARTIAL)).failure is None


def test_a_custom_fail_on_fails_its_labels_and_only_those() -> None:
    rules = lenient(fail_on=("not_found", "unreachable"))
    assert failures(assess_claim(verdict(Label.NOT_FOUND), ClaimFacts(), rules)) == [
        "fail_on: the claim is not_found"
    ]
    assert assess_claim(verdict(Label.UNREACHABLE), ClaimFacts(), rules).decision == "fail"
    assert assess_claim(verdict(Label.CONTRADICTED), ClaimFacts(), rules).passed
    found = outcome(verdict(Label.NOT_FOUND), rules)
    assert found.failure is not None
    assert found.failure.startswith("claim is not_found (failing labels: not_found, unreachable)")


def test_a_cases_criteria_override_the_runs_fail_on() -> None:
    overridden = {"fail_on": ["partial"]}
    assert outcome(verdict(Label.PARTIAL), criteria=overridden).failure is not None
    assert outcome(verdict(Label.CONTRADICTED), criteria=overridden).failure is None
    assert case_info(FILE, case(criteria=overridden)).rules(lenient()).fail_on == ("partial",)


def test_a_contradicted_claim_on_a_forbidden_topic_fails_whatever_fail_on_says() -> None:
    rules = lenient(fail_on=("not_found",), forbid_contradicted_topics=("pay", "leave"))
    contradicted = verdict(Label.CONTRADICTED)
    assert failures(assess_claim(contradicted, ClaimFacts(topic="pay"), rules)) == [
        "forbid_contradicted_topics: a contradicted claim about 'pay'"
    ]
    assert assess_claim(contradicted, ClaimFacts(topic="weather"), rules).passed
    assert assess_claim(contradicted, ClaimFacts(), rules).passed
    assert assess_claim(verdict(Label.SUPPORTED), ClaimFacts(topic="pay"), rules).passed
    on_topic = decide_file(FILE, [case(claim(topic="pay"))], [contradicted], rules)
    assert on_topic.claims[("water", 1)].failures == (
        Failure("forbid_contradicted_topics", "a contradicted claim about 'pay'"),
    )


# -- numbers traceable --------------------------------------------------------------------------


def test_a_figure_missing_from_the_evidence_fails_when_numbers_must_be_traceable() -> None:
    seen = (Evidence(A, ("Water boils at 90 degrees Celsius.",)),)
    found = verdict(Label.SUPPORTED, text=FIGURE, evidence=seen)
    assessment = assess_claim(found, ClaimFacts(), lenient(numbers_traceable=True))
    assert assessment.decision is Decision.FAIL
    assert failures(assessment) == [
        "numbers_traceable: number_not_in_evidence: '100' appears in no cited passage or quote"
    ]
    assert [figure.text for figure in assessment.missing] == ["100"]
    assert assess_claim(found, ClaimFacts(), lenient()).passed  # off by default


def test_a_figure_in_a_passage_or_in_the_quote_passes() -> None:
    rules = lenient(numbers_traceable=True)
    in_passage = (Evidence(A, ("At sea level water boils at 100 degrees Celsius.",)),)
    assert assess_claim(
        verdict(Label.SUPPORTED, text=FIGURE, evidence=in_passage), ClaimFacts(), rules
    ).passed
    quoted = CitationVerdict(A, Label.SUPPORTED, evidence_quote="it boils at 100 degrees")
    assert assess_claim(verdict(Label.SUPPORTED, quoted, text=FIGURE), ClaimFacts(), rules).passed


# -- uncited claims ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "general", "rules", "failed"),
    [
        (PLAIN, True, lenient(), None),
        (
            FIGURE,
            True,
            lenient(),
            "uncited_allowed: an uncited claim may not state a number or date",
        ),
        (
            PLAIN,
            False,
            lenient(),
            "uncited_allowed: the claim cites nothing and is not marked general",
        ),
        (PLAIN, True, lenient(uncited_allowed=False), "uncited_allowed: the claim cites nothing"),
    ],
    ids=["general", "general-with-a-figure", "not-general", "not-allowed"],
)
def test_an_uncited_claim_passes_only_as_general_phrasing_without_figures(
    text: str, general: bool, rules: Criteria, failed: str | None
) -> None:
    assessment = assess_claim(verdict(Label.UNCITED, text=text), ClaimFacts(general=general), rules)
    assert failures(assessment) == ([failed] if failed else [])
    assert assessment.decision is (Decision.FAIL if failed else Decision.PASS)


# -- unchecked citations -----------------------------------------------------------------------

MARKERS = ClaimFacts(cited=((A, "1"), (B, "2")))


def test_an_unchecked_citation_leaves_the_claim_incomplete() -> None:
    found = verdict(Label.SUPPORTED, cited(Label.SUPPORTED), unreached())
    assessment = assess_claim(found, MARKERS, lenient())
    assert assessment.decision is Decision.INCOMPLETE
    assert [str(line) for line in assessment.unchecked] == [NOT_REACHED]
    item = outcome(found)
    assert (item.result.status, item.result.label) == (ClaimStatus.UNCHECKED, None)
    assert item.failure is None
    assert item.error is not None
    lines = item.error.splitlines()
    assert lines[:2] == [
        "claim could not be checked: 1 of 2 citations unchecked",
        f"  {NOT_REACHED}",
    ]
    # An unchecked claim says it has no label, and its unchecked citation shows no label.
    assert "status: unchecked (no label)" in lines
    assert not any(line.startswith("label:") for line in lines)
    assert "      unchecked (judge_error), confidence 0.90" in lines
    assert lines[-1] == ALLOW_UNCHECKED_HINT


def test_a_checked_contradiction_fails_the_claim_whatever_the_unchecked_citation_says() -> None:
    found = verdict(Label.CONTRADICTED, cited(Label.CONTRADICTED), unreached())
    assessment = assess_claim(found, MARKERS, lenient())
    assert assessment.decision is Decision.FAIL
    assert failures(assessment) == ["fail_on: the claim is contradicted"]
    item = outcome(found)
    assert item.error is None
    assert item.failure is not None
    assert f"also not checked: 1 of 2 citations\n  {NOT_REACHED}" in item.failure
    # Its label is decided by the checked contradiction (A1): the claim is checked.
    assert (item.result.status, item.result.label) == (ClaimStatus.CHECKED, Label.CONTRADICTED)


def test_only_a_checked_contradiction_stands_beside_an_unchecked_citation() -> None:
    unread = cited(Label.CONTRADICTED, B, Reason.JUDGE_INVALID_RESPONSE)
    found = verdict(Label.CONTRADICTED, cited(Label.SUPPORTED), unread)
    assessment = assess_claim(found, MARKERS, lenient())
    assert (assessment.decision, failures(assessment)) == (Decision.INCOMPLETE, [])


def test_a_failure_the_unchecked_citation_could_undo_is_not_a_failure_yet() -> None:
    rules = lenient(fail_on=("not_found",), numbers_traceable=True)
    only_unchecked = verdict(Label.NOT_FOUND, unreached())
    assert assess_claim(only_unchecked, MARKERS, rules).decision is Decision.INCOMPLETE
    untraced = verdict(Label.SUPPORTED, cited(Label.SUPPORTED), unreached(), text=FIGURE)
    assessment = assess_claim(untraced, MARKERS, rules)
    assert (assessment.decision, failures(assessment)) == (Decision.INCOMPLETE, [])


def test_allow_unchecked_counts_unchecked_citations_as_their_labels() -> None:
    rules = lenient(fail_on=("not_found",), allow_unchecked=True)
    passing = assess_claim(
        verdict(Label.SUPPORTED, cited(Label.SUPPORTED), unreached()), MARKERS, rules
    )
    assert (passing.decision, passing.unchecked) == (Decision.PASS, ())
    counted = outcome(verdict(Label.SUPPORTED, cited(Label.SUPPORTED), unreached()), rules)
    assert (counted.result.status, counted.result.label) == (ClaimStatus.CHECKED, Label.SUPPORTED)
    failing = assess_claim(verdict(Label.NOT_FOUND, unreached()), MARKERS, rules)
    assert failures(failing) == ["fail_on: the claim is not_found"]


@pytest.mark.parametrize(
    "found",
    [
        verdict(Label.NOT_FOUND, cited(Label.NOT_FOUND, B, Reason.REQUEST_REFUSED)),
        verdict(
            Label.SUPPORTED,
            problems=("no recording of a retrieved page",),
            unrecorded=("no recording of a retrieved page",),
        ),
    ],
    ids=["request_refused", "unrecorded"],
)
def test_a_missing_recording_stays_incomplete_even_with_allow_unchecked(
    found: ClaimVerdict,
) -> None:
    rules = lenient(fail_on=("not_found",), allow_unchecked=True)
    assert assess_claim(found, MARKERS, rules).decision is Decision.INCOMPLETE
    item = outcome(found, rules)
    assert item.error is not None
    assert item.error.splitlines()[-1] == MISSING_RECORDING_HINT


# -- case thresholds ---------------------------------------------------------------------------

HALF = [verdict(Label.SUPPORTED), verdict(Label.NOT_FOUND, cited(Label.NOT_FOUND, B))]


@pytest.mark.parametrize("minimum", [0.5, 0.25])
def test_a_case_at_or_above_min_precision_passes(minimum: float) -> None:
    decided = assess(HALF, lenient(min_precision=minimum)).cases["water"]
    assert (decided.decision, *case_said(decided)) == (Decision.PASS, None, None)
    assert decided.precision == Precision(1, 2, 2)


def test_a_case_below_min_precision_fails_and_lists_what_was_not_supported() -> None:
    decided = assess(HALF, lenient(min_precision=0.6)).cases["water"]
    assert decided.decision is Decision.FAIL
    assert [str(f) for f in decided.failures] == [
        "min_precision: citation precision 0.5000 (1/2) below 0.6"
    ]
    assert case_said(decided)[1] == (
        "case 'water' fails min_precision: citation precision 0.5000 (1/2) below 0.6\n"
        f"  claim-2: not_found    {B}"
    )


def test_a_case_below_min_supported_share_fails_and_one_at_it_passes() -> None:
    at = assess(HALF, lenient(min_supported_share=0.5)).cases["water"]
    assert at.decision is Decision.PASS
    decided = assess(HALF, lenient(min_supported_share=0.75)).cases["water"]
    assert decided.decision is Decision.FAIL
    assert [str(f) for f in decided.failures] == [
        "min_supported_share: fully supported claims 0.5000 (1/2) below 0.75"
    ]
    assert case_said(decided)[1] == (
        "case 'water' fails min_supported_share: fully supported claims 0.5000 (1/2) below 0.75"
    )


def test_uncited_general_phrasing_does_not_count_in_the_supported_share() -> None:
    general = [verdict(Label.SUPPORTED), verdict(Label.UNCITED)]
    decided = assess(general, lenient(min_supported_share=1.0)).cases["water"]
    assert decided.decision is Decision.PASS


def test_a_threshold_unchecked_citations_could_still_meet_is_undecided() -> None:
    open_case = [verdict(Label.SUPPORTED), verdict(Label.NOT_FOUND, unreached())]
    rules = lenient(min_precision=0.6, min_supported_share=0.75)
    decided = assess(open_case, rules).cases["water"]
    assert decided.decision is Decision.INCOMPLETE
    assert decided.failures == ()
    # Precision and share count what was checked; the unchecked are counted beside them.
    assert (decided.precision, decided.share) == (Precision(1, 1, 1, 1), Share(1, 1, 1))
    assert decided.incomplete == (
        "claim-2 could not be checked",
        "min_supported_share: fully supported claims 1.0000 (1/1, 1 of 2 checked) could fall "
        "below 0.75: 1 claim unchecked",
        "min_precision: citation precision 1.0000 (1/1, 1 of 2 checked) could fall below 0.6: "
        "1 citation unchecked",
    )
    error, failure = case_said(decided)
    assert failure is None
    assert error is not None
    assert error.startswith(
        "case 'water' could not be decided: min_supported_share: fully supported claims"
    )
    assert error.splitlines()[-1] == ALLOW_UNCHECKED_HINT


def test_a_threshold_unchecked_citations_could_not_lift_fails() -> None:
    hopeless = [
        verdict(Label.NOT_FOUND, cited(Label.NOT_FOUND, A)),
        verdict(Label.NOT_FOUND, cited(Label.NOT_FOUND, C)),
        verdict(Label.NOT_FOUND, unreached()),
    ]
    decided = assess(hopeless, lenient(min_precision=0.5)).cases["water"]
    assert decided.decision is Decision.FAIL
    assert [str(f) for f in decided.failures] == [
        "min_precision: citation precision 0.0000 (0/2, 2 of 3 checked) below 0.5, even if the "
        "1 unchecked citation were supported"
    ]


def test_a_share_its_unchecked_claims_could_not_lift_fails() -> None:
    # The first claim's checked citation supports it, its other is unchecked: the claim has
    # no label (that citation could contradict it), so it counts as unchecked.
    settled = [
        verdict(Label.SUPPORTED, cited(Label.SUPPORTED), unreached()),
        verdict(Label.NOT_FOUND, cited(Label.NOT_FOUND, C)),
    ]
    decided = assess(settled, lenient(min_supported_share=0.75)).cases["water"]
    assert decided.decision is Decision.FAIL
    assert [str(f) for f in decided.failures] == [
        "min_supported_share: fully supported claims 0.0000 (0/1, 1 of 2 checked) below 0.75, "
        "even if the 1 unchecked claim were supported"
    ]


def test_with_allow_unchecked_a_missed_threshold_fails_instead_of_waiting() -> None:
    open_case = [verdict(Label.SUPPORTED), verdict(Label.NOT_FOUND, unreached())]
    rules = lenient(min_precision=0.6, allow_unchecked=True)
    assert assess(open_case, rules).cases["water"].decision is Decision.FAIL


@pytest.mark.parametrize(
    ("run", "own", "decision"),
    [(0.9, 0.5, Decision.PASS), (0.5, 0.9, Decision.FAIL), (None, 0.6, Decision.FAIL)],
)
def test_a_cases_own_min_precision_wins_over_the_runs(
    run: float | None, own: float, decision: Decision
) -> None:
    decided = assess(HALF, lenient(min_precision=run), min_precision=own).cases["water"]
    assert decided.decision is decision
    rules = case_info(FILE, case(min_precision=own)).rules(lenient(min_precision=run))
    assert rules.min_precision == own


def test_a_cases_criteria_set_thresholds_the_run_does_not_have() -> None:
    strict = {"min_supported_share": 0.75}
    assert assess(HALF, criteria=strict).cases["water"].decision is Decision.FAIL
    assert assess(HALF).cases["water"].decision is Decision.PASS
    loose = {"min_precision": 0.5}
    relaxed = assess(HALF, lenient(min_precision=0.9), criteria=loose).cases["water"]
    assert relaxed.decision is Decision.PASS


# -- the case's decision: fail > incomplete > pass ---------------------------------------------


def decided(found: ClaimVerdict, index: int = 1, rules: Criteria | None = None) -> ClaimResult:
    """Claim ``index`` of the case, citing A and B, decided."""
    where = Location(FILE, "water", f"claim-{index}", 3 + index, index)
    facts = ClaimFacts(markers=("1", "2"), cited=((A, "1"), (B, "2")))
    return decide_claim(where, found, facts, rules or lenient())


def case_of(*claims: ClaimVerdict, rules: Criteria | None = None) -> CaseResult:
    """The case of these claims (``claim-1``, ``claim-2``...), decided."""
    results = [decided(found, n) for n, found in enumerate(claims, start=1)]
    info = case_info(FILE, case())
    return decide_case(info, results, info.rules(rules or lenient()))


PASSING = verdict(Label.SUPPORTED)
FAILING = verdict(Label.CONTRADICTED)
OPEN = verdict(Label.SUPPORTED, cited(Label.SUPPORTED), unreached())


def test_a_failing_claim_fails_the_case_even_beside_an_incomplete_one() -> None:
    decisions = (decided(PASSING).decision, decided(FAILING).decision, decided(OPEN).decision)
    assert decisions == ("pass", "fail", "incomplete")
    assert case_of(PASSING, FAILING).decision is Decision.FAIL
    assert case_of(OPEN, FAILING).decision is Decision.FAIL
    assert case_of(OPEN, PASSING).decision is Decision.INCOMPLETE
    assert case_of(PASSING, PASSING).decision is Decision.PASS


def test_a_missed_threshold_fails_the_case_even_beside_an_incomplete_claim() -> None:
    hopeless = verdict(Label.NOT_FOUND)
    assert case_of(OPEN, hopeless, hopeless, rules=lenient(min_precision=0.9)).decision is (
        Decision.FAIL
    )
    # At 1/2 checked, the unchecked citation could still lift precision to 2/3: undecided.
    assert case_of(OPEN, hopeless, rules=lenient(min_precision=0.5)).decision is (
        Decision.INCOMPLETE
    )


def test_the_case_decision_names_the_claim_that_failed_and_the_ones_not_checked() -> None:
    failed = case_of(FAILING, OPEN)
    assert [str(f) for f in failed.failures] == ["fail_on: claim-1 the claim is contradicted"]
    assert failed.incomplete == ("claim-2 could not be checked",)
    waiting = case_of(PASSING, OPEN)
    assert (waiting.decision, waiting.incomplete) == (
        Decision.INCOMPLETE,
        ("claim-2 could not be checked",),
    )


# -- the claim record --------------------------------------------------------------------------

CONTROLS = "\x1b[31m\x1b]8;;https://evil.example\x07"


def test_the_claim_result_is_built_once_with_page_text_free_of_control_sequences() -> None:
    hostile = CitationVerdict(
        A,
        Label.CONTRADICTED,
        evidence_quote=f"{CONTROLS}boils at 90",
        final_url=f"{A}{CONTROLS}",
        reason=None,
    )
    found = verdict(Label.CONTRADICTED, hostile, evidence=(Evidence(A, (f"It {CONTROLS}boils.",)),))
    file = assess([found], question=f"When{CONTROLS}?", min_precision=0.4)
    result = file.claims[("water", 1)]
    assert result.nodeid == f"{FILE}::water::claim-1"
    assert result.decision is Decision.FAIL
    assert result.failures == (Failure("fail_on", "the claim is contradicted"),)
    assert result.citations[0].evidence_quote == "boils at 90"
    assert result.citations[0].final_url == A
    assert result.evidence == (Evidence(A, ("It boils.",)),)
    info = file.cases["water"].info
    assert (info.question, info.min_precision) == ("When?", 0.4)
    assert result.where == Location(FILE, "water", "claim-1", 4, 1)


def test_the_result_of_an_unchecked_claim_is_incomplete_and_says_why() -> None:
    found = verdict(Label.SUPPORTED, cited(Label.SUPPORTED), unreached())
    file = assess([found], lenient(min_precision=0.3))
    result = file.claims[("water", 1)]
    assert (result.decision, result.status, result.label) == (
        Decision.INCOMPLETE,
        ClaimStatus.UNCHECKED,
        None,
    )
    assert [str(line) for line in result.unchecked] == [NOT_REACHED]
    assert [(u.url, u.reason, u.marker) for u in result.unchecked] == [(B, "judge_error", "2")]
    assert result.failures == ()
    assert file.cases["water"].info.question == QUESTION
    assert file.cases["water"].info.min_precision is None  # the case's own, not the run's


def test_a_case_file_needs_one_verdict_per_claim() -> None:
    with pytest.raises(ValueError, match="1 claims but 2 verdicts"):
        decide_file(FILE, [case()], HALF, lenient())


# -- the baseline ------------------------------------------------------------------------------


def baseline(label: str) -> BaselineRef:
    """A baseline holding ``label`` for the claim and its one citation of A."""
    stored = {
        "claim": PLAIN,
        "label": label,
        "citations": [{"url": A, "label": label, "reason": None}],
    }
    return BaselineRef(Baseline({f"{FILE}::water::claim-1": stored}), "baseline.json")


def change(kind: BaselineKind, old: str) -> BaselineChange:
    return BaselineChange(kind, old, ((A, old, None),), "baseline.json")


def test_a_regression_against_the_baseline_fails_with_old_and_new_side_by_side() -> None:
    """A claim that regressed against the baseline passed (its decision said ``pass``)
    while its item failed: the regression is now one of the claim's failures."""
    found = outcome(verdict(Label.PARTIAL), baseline=baseline("supported"))
    assert found.result.baseline == change(BaselineKind.REGRESSION, "supported")
    assert found.result.decision is Decision.FAIL
    assert found.result.failures == (
        Failure("baseline", "regressed against the baseline baseline.json (supported -> partial)"),
    )
    assert found.failure is not None
    assert found.failure.startswith(
        "claim regressed against the baseline baseline.json\n"
        "label: supported -> partial\n"
        f"  {A}: supported -> partial\n"
        f"claim: {PLAIN}"
    )


def test_an_improvement_or_an_unchanged_label_passes() -> None:
    better = outcome(verdict(Label.SUPPORTED), baseline=baseline("partial"))
    assert (better.failure, better.result.baseline) == (
        None,
        change(BaselineKind.IMPROVEMENT, "partial"),
    )
    same = outcome(verdict(Label.PARTIAL), baseline=baseline("partial"))
    assert (same.failure, same.result.baseline) == (None, change(BaselineKind.UNCHANGED, "partial"))


def test_an_incomplete_claim_is_not_compared_with_the_baseline() -> None:
    found = verdict(Label.NOT_FOUND, unreached(A))
    item = outcome(found, baseline=baseline("supported"))
    assert item.result.baseline is None
    assert item.failure is None
    assert item.error is not None


def test_while_updating_only_a_regression_does_not_fail() -> None:
    regressed = outcome(verdict(Label.PARTIAL), baseline=baseline("supported"), updating=True)
    assert regressed.failure is None
    assert regressed.result.decision is Decision.PASS
    assert regressed.result.baseline == change(BaselineKind.REGRESSION, "supported")


def test_while_updating_a_missed_criterion_still_fails() -> None:
    contradicted = outcome(
        verdict(Label.CONTRADICTED), baseline=baseline("supported"), updating=True
    )
    assert contradicted.result.baseline == change(BaselineKind.REGRESSION, "supported")
    assert contradicted.result.failures == (Failure("fail_on", "the claim is contradicted"),)
    assert contradicted.failure is not None
    incomplete = outcome(
        verdict(Label.NOT_FOUND, unreached(A)), baseline=baseline("supported"), updating=True
    )
    assert incomplete.result.decision is Decision.INCOMPLETE


# -- the run's gates ---------------------------------------------------------------------------


HALF_SUITE = Precision(1, 2, 2)
HALF_SHARE = Share(1, 2)


def gates(
    precision: Precision = HALF_SUITE,
    share: Share = HALF_SHARE,
    agreement: AgreementGate | None = None,
    **rules: Any,
) -> tuple[list[Failure], list[Failure]]:
    """The run's failures and undecided gates (a suite at 1 of 2 citations and claims)."""
    run = decide_run(precision, share, lenient(**rules), agreement)
    return list(run.failures), list(run.undecided)


def test_the_suite_thresholds_pass_at_them_and_fail_below_them() -> None:
    assert gates(min_precision=0.5, min_supported_share=0.5) == ([], [])
    assert gates() == ([], [])
    failed, undecided = gates(min_precision=0.6, min_supported_share=0.75)
    assert failed == [
        Failure("min_precision", "suite citation_precision=0.5000 (1/2) below 0.6"),
        Failure("min_supported_share", "suite share 0.5000 (1/2) below 0.75"),
    ]
    assert undecided == []


def test_suite_thresholds_unchecked_citations_could_still_meet_are_undecided() -> None:
    # One of three citations, and one of three claims, could not be checked.
    open_ = Precision(1, 2, 2, 1), Share(1, 2, 1)
    failed, undecided = gates(*open_, min_precision=0.6, min_supported_share=0.6)
    assert failed == []
    assert undecided == [
        Failure(
            "min_precision",
            "suite citation_precision=0.5000 (1/2, 2 of 3 checked) below 0.6, with 1 citation "
            "unchecked",
        ),
        Failure(
            "min_supported_share",
            "suite share 0.5000 (1/2, 2 of 3 checked) below 0.6, with 1 claim unchecked",
        ),
    ]
    # A threshold the unchecked could not lift fails, whatever they say.
    assert gates(*open_, min_supported_share=0.75)[0] == [
        Failure(
            "min_supported_share",
            "suite share 0.5000 (1/2, 2 of 3 checked) below 0.75, even if the 1 unchecked "
            "claim were supported",
        )
    ]
    # One the checked figures meet, but the unchecked could still take below it.
    assert gates(*open_, min_precision=0.5)[1] == [
        Failure(
            "min_precision",
            "suite citation_precision=0.5000 (1/2, 2 of 3 checked) could fall below 0.5: "
            "1 citation unchecked",
        )
    ]


def test_the_calibration_gate_with_nothing_to_measure_is_undecided_never_a_pass() -> None:
    assert gates(agreement=AgreementGate("kappa", 0.6, None, 0)) == (
        [],
        [
            Failure(
                "min_agreement",
                "no claim in this run carries an 'expect:' label, so the "
                "judge's kappa cannot be measured against 0.6",
            )
        ],
    )


@pytest.mark.parametrize(
    ("value", "failed"),
    [
        (0.6, None),
        (0.9, None),
        (0.5, "judge kappa 0.5000 below 0.6"),
        (None, "judge kappa n/a below 0.6"),
    ],
)
def test_the_calibration_gate_fails_below_its_minimum(
    value: float | None, failed: str | None
) -> None:
    found, undecided = gates(agreement=AgreementGate("kappa", 0.6, value, 12))
    assert found == ([Failure("min_agreement", failed)] if failed else [])
    assert undecided == []
