"""Citation precision: the per-case ``::precision`` item and the run gate
(``--citations-min-precision``, ini ``citations_min_precision``, per-case ``min_precision:``).
"""

from __future__ import annotations

import pytest
from plugin_helpers import (
    BOILING_URL,
    NINE_CASE,
    SUPPORTED_CLAIM,
    Citations,
    single_claim_case,
)

NINE_PRECISION = "cases/nine.yaml::nine::precision"
#: No claim of the nine-citation case has this label: every claim item passes, so the exit
#: status and the FAIL line come from the precision checks alone.
CLAIMS_PASS = ("--citations-fail-on", "unreachable")


@pytest.fixture
def recorded(citations: Citations) -> Citations:
    """The nine-citation case (precision 2/9) and a fully supported one (1/1), recorded."""
    citations.write("cases/nine.yaml", NINE_CASE)
    citations.write("cases/clean.yaml", single_claim_case("clean", SUPPORTED_CLAIM, BOILING_URL))
    result, _ = citations.record("cases/", *CLAIMS_PASS, gate="args")
    result.assert_outcomes(passed=8)
    return citations


def test_without_a_threshold_precision_items_pass(recorded: Citations) -> None:
    result = recorded.run("cases/", "-v", *CLAIMS_PASS, gate="args")

    result.assert_outcomes(passed=8)
    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines([f"{NINE_PRECISION} PASSED*"])
    assert "FAIL Required citation precision" not in result.stdout.str()


def test_option_fails_the_case_below_it_and_the_run(recorded: Citations) -> None:
    result = recorded.run("cases/", *CLAIMS_PASS, "--citations-min-precision", "0.5", gate="args")

    result.assert_outcomes(passed=7, failed=1)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        [
            "*_ nine::precision _*",
            "*citation precision 0.2222 (2/9)*below*0.5*",
            "  claim-1: unreachable *https://example.org/old-report (http_404)",
            "  claim-2: unreachable *https://example.org/gone (http_404)",
            "  claim-3: contradicted *https://example.org/physics/boiling",
            "  claim-4: partial *https://shop.example.com/policies/returns",
            "  claim-5: not_found *https://shop.example.com/policies/returns",
            "  claim-5: unreachable *https://example.org/physics/vapour-pressure (soft_404)",
            "  claim-5: not_found *https://example.org/reports/boiling-points.pdf "
            "(pdf_unsupported)",
        ]
    )
    result.stdout.fnmatch_lines(
        ["FAIL Required citation precision of 0.5 not reached: citation_precision=0.3000 (3/10)"]
    )
    result.stdout.fnmatch_lines(["*min_precision=0.5*"])  # in the header
    assert "Traceback" not in result.stdout.str()


def test_option_passes_above_it(recorded: Citations) -> None:
    result = recorded.run("cases/", *CLAIMS_PASS, "--citations-min-precision", "0.2", gate="args")

    result.assert_outcomes(passed=8)
    assert result.ret == pytest.ExitCode.OK
    assert "FAIL Required citation precision" not in result.stdout.str()


def test_run_gate_fails_even_when_every_item_passes(recorded: Citations) -> None:
    # Case thresholds let each case pass; the suite's precision (3/10) is still too low.
    recorded.write("cases/nine.yaml", NINE_CASE + "min_precision: 0.2\n")

    result = recorded.run("cases/", *CLAIMS_PASS, "--citations-min-precision", "0.4", gate="args")

    result.assert_outcomes(passed=8)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        ["FAIL Required citation precision of 0.4 not reached: citation_precision=0.3000 (3/10)"]
    )


def test_ini_threshold(recorded: Citations) -> None:
    recorded.pytester.makeini("[pytest]\ncitations_min_precision = 0.5\n")

    result = recorded.run("cases/", *CLAIMS_PASS, "-rf", gate="args")

    result.assert_outcomes(passed=7, failed=1)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines([f"FAILED {NINE_PRECISION} - *"])
    result.stdout.fnmatch_lines(["FAIL Required citation precision of 0.5 not reached*"])


def test_command_line_wins_over_ini(recorded: Citations) -> None:
    recorded.pytester.makeini("[pytest]\ncitations_min_precision = 0.9\n")

    result = recorded.run("cases/", *CLAIMS_PASS, "--citations-min-precision", "0.2", gate="args")

    result.assert_outcomes(passed=8)
    assert result.ret == pytest.ExitCode.OK


def test_case_threshold_fails_only_its_case(recorded: Citations) -> None:
    recorded.write("cases/nine.yaml", NINE_CASE + "min_precision: 0.25\n")

    result = recorded.run("cases/", *CLAIMS_PASS, "-rf", gate="args")

    result.assert_outcomes(passed=7, failed=1)
    result.stdout.fnmatch_lines(
        [
            "*citation precision 0.2222 (2/9)*below*0.25*",
            f"FAILED {NINE_PRECISION} - *",
        ],
        consecutive=False,
    )
    # Without --citations-min-precision there is no run gate.
    assert "FAIL Required citation precision" not in result.stdout.str()


def test_case_threshold_overrides_the_option(recorded: Citations) -> None:
    recorded.write("cases/nine.yaml", NINE_CASE + "min_precision: 0.2\n")
    recorded.write(
        "cases/clean.yaml",
        single_claim_case("clean", SUPPORTED_CLAIM, BOILING_URL) + "min_precision: 1\n",
    )

    low = recorded.run("cases/", *CLAIMS_PASS, "--citations-min-precision", "0.25", "-v",
                       gate="args")

    low.assert_outcomes(passed=8)  # each case meets its own threshold
    low.stdout.fnmatch_lines([f"{NINE_PRECISION} PASSED*"])


@pytest.mark.parametrize("value", ["1.5", "-0.1", "most"])
def test_invalid_threshold_is_a_usage_error(citations: Citations, value: str) -> None:
    citations.write("cases/clean.yaml", single_claim_case("clean", SUPPORTED_CLAIM, BOILING_URL))

    result = citations.run("cases/", f"--citations-min-precision={value}", gate="default")

    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "Traceback" not in result.stderr.str()
