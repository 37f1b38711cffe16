"""``assert verdict.label == "supported"`` (the README's first example) explains itself
(issue 11): pytest's ``pytest_assertrepr_compare`` shows the labels as words, then the claim
and each citation's label, reason and quote, as ``assert_supported`` does."""

from __future__ import annotations

import pytest
from plugin_helpers import (
    BOILING_URL,
    CONTRADICTED_CLAIM,
    OLD_REPORT_URL,
    SUPPORTED_CLAIM,
    Citations,
)

TESTS = f"""\
from pytest_citations import Label

BOILING = "{BOILING_URL}"
OLD_REPORT = "{OLD_REPORT_URL}"


def test_label_equals(citation_verifier):
    verdict = citation_verifier.verify("{CONTRADICTED_CLAIM}", [BOILING])
    assert verdict.label == "supported"


def test_label_is(citation_verifier):
    citation_verifier.verify("{SUPPORTED_CLAIM}", [BOILING])
    verdict = citation_verifier.verify("{CONTRADICTED_CLAIM}", [BOILING])
    assert verdict.label is Label.SUPPORTED


def test_citation_label_in(citation_verifier):
    verdict = citation_verifier.verify("{SUPPORTED_CLAIM}", [BOILING, OLD_REPORT])
    assert verdict.citations[1].label in ("supported", "partial")


def test_other_comparisons_are_left_alone(citation_verifier):
    assert [1, 2] == [1, 3]
"""


@pytest.fixture
def outcome(citations: Citations) -> pytest.RunResult:
    """The tests above, recorded, then replayed offline."""
    citations.pytester.makepyfile(test_labels=TESTS)
    with citations.web():
        citations.run_tests("--citations-record=once")
    result = citations.run_tests()
    result.assert_outcomes(failed=4)
    return result


def test_a_label_compared_to_a_string_shows_the_claim_and_its_citations(
    outcome: pytest.RunResult,
) -> None:
    outcome.stdout.fnmatch_lines(
        [
            "*_ test_label_equals _*",
            '>       assert verdict.label == "supported"',
            "E       assert 'contradicted' == 'supported'",
            f"E         claim: {CONTRADICTED_CLAIM}",
            "E         label: contradicted",
            f"E           {BOILING_URL}",
            "E               contradicted, confidence 0.90",
            "E               origin status: 200, rid: *",
            'E               quote: "On high mountains the air pressure is lower*90 °C*"',
            "test_labels.py:9: AssertionError",
        ]
    )
    assert "<Label." not in outcome.stdout.str()  # never the enum's repr


def test_identity_shows_the_verdict_that_has_the_label(outcome: pytest.RunResult) -> None:
    outcome.stdout.fnmatch_lines(
        [
            "*_ test_label_is _*",
            "E       assert 'contradicted' is 'supported'",
            f"E         claim: {CONTRADICTED_CLAIM}",
            "E         label: contradicted",
        ]
    )


def test_a_citations_label_shows_the_claim_it_belongs_to(outcome: pytest.RunResult) -> None:
    outcome.stdout.fnmatch_lines(
        [
            "*_ test_citation_label_in _*",
            "E       assert 'unreachable' in ('supported', 'partial')",
            f"E         claim: {SUPPORTED_CLAIM}",
            "E         label: supported",
            f"E           {OLD_REPORT_URL}",
            "E               unreachable (http_404), confidence 1.00",
        ]
    )


def test_other_comparisons_keep_pytests_own_explanation(outcome: pytest.RunResult) -> None:
    outcome.stdout.fnmatch_lines(
        ["E       assert [[]1, 2[]] == [[]1, 3[]]", "E         At index 1 diff: 2 != 3"]
    )


def test_without_a_verifier_the_labels_still_read_as_words(citations: Citations) -> None:
    citations.pytester.makepyfile(
        test_plain="""
        from pytest_citations import Label

        def test_plain():
            assert Label.PARTIAL == "supported"
        """
    )

    result = citations.run_tests()

    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["E       *assert 'partial' == 'supported'"])
