"""Verdicts beyond the per-URL four (004, C2/C3/C7; issue 4), end to end through pytester
against the emulators: numbers traceable to the evidence, joint support over several cited
pages, partial support as a first-class label, and misattribution to a retrieved source."""

from __future__ import annotations

import pytest
from plugin_helpers import (
    NOT_FOUND_CLAIM,
    PARTIAL_CLAIM,
    REFUNDS_CLAIM,
    REFUNDS_URL,
    RETURNS_URL,
    SOFTWARE_URL,
    Citations,
    Web,
    claims_by_nodeid,
    load_report,
    single_claim_case,
)

_FILLER = (
    "Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor "
    "incididunt ut labore et dolore magna aliqua. Ut enim ad minim veniam, quis nostrud "
    "exercitation ullamco laboris nisi ut aliquip ex ea commodo consequat."
)


def article(*sentences: str, title: str = "Reference article") -> str:
    """A page well above every fetch threshold, holding ``sentences`` in its last paragraph."""
    return "\n\n".join([f"# {title}", _FILLER, _FILLER, _FILLER, " ".join(sentences)]) + "\n"


# -- numbers_traceable ---------------------------------------------------------------------------

REPORT_URL = "https://reports.example.com/annual-2023"
REPORT_SENTENCE = "Revenue grew 87% in 2023."
CLAIM_85 = "Revenue grew 85% in 2023."
CLAIM_87 = "Revenue grew 87% in 2023."


def _record_revenue(citations: Citations, *args: str) -> pytest.RunResult:
    """Record both revenue cases; the judge calls the 85% claim supported with a real quote
    of a page that says 87%."""
    with citations.web(site=False) as web:
        web.crawlbase.add(REPORT_URL, markdown=article(REPORT_SENTENCE, title="Annual report"))
        web.judge.rule(CLAIM_85, label="supported", quote=REPORT_SENTENCE)
        return citations.run("--citations-record=once", *args, gate="default")


def test_a_figure_absent_from_the_evidence_fails_even_when_the_judge_says_supported(
    citations: Citations,
) -> None:
    citations.write("cases/wrong.yaml", single_claim_case("wrong", CLAIM_85, REPORT_URL))
    citations.write("cases/right.yaml", single_claim_case("right", CLAIM_87, REPORT_URL))
    citations.write("pytest.ini", "[pytest]\ncitations_numbers_traceable = true\n")
    report = citations.path / "report.json"

    result = _record_revenue(citations, "-v", "cases/", "--citations-report", str(report))

    result.assert_outcomes(passed=3, failed=1)
    result.stdout.fnmatch_lines(
        [
            "*right.yaml::right::claim-1 PASSED [[]supported[]]*",
            "*wrong.yaml::wrong::claim-1 FAILED*",
        ]
    )
    out = result.stdout.str()
    assert (
        "claim fails numbers_traceable: number_not_in_evidence: '85%' appears in no cited "
        "passage or quote" in out
    )
    assert f'quote: "{REPORT_SENTENCE}"' in out  # the judge's verdict stands beside it
    claims = claims_by_nodeid(load_report(report))
    wrong = claims["cases/wrong.yaml::wrong::claim-1"]
    assert wrong["label"] == "supported"
    assert wrong["citations"][0]["evidence_quote"] == REPORT_SENTENCE
    [failure] = wrong["failures"]
    assert failure["criterion"] == "numbers_traceable"
    assert "number_not_in_evidence" in failure["message"]
    assert "'85%'" in failure["message"]
    assert claims["cases/right.yaml::right::claim-1"]["failures"] == []


def test_numbers_traceable_is_a_criterion_a_case_can_switch_on(citations: Citations) -> None:
    citations.write("cases/wrong.yaml", single_claim_case("wrong", CLAIM_85, REPORT_URL))
    recorded = _record_revenue(citations, "cases/")
    recorded.assert_outcomes(passed=2)  # off by default: the judge's word stands

    citations.write(
        "cases/wrong.yaml",
        single_claim_case("wrong", CLAIM_85, REPORT_URL) + "criteria:\n  numbers_traceable: true\n",
    )
    replayed = citations.run("cases/", gate="default")

    replayed.assert_outcomes(passed=1, failed=1)
    replayed.stdout.fnmatch_lines(["*number_not_in_evidence: '85%'*"])


# -- joint support -------------------------------------------------------------------------------

HISTORY_URL = "https://museum.example.org/history"
VISIT_URL = "https://museum.example.org/visit"
HISTORY_SENTENCE = "The Tagus museum opened in Lisbon."
VISIT_SENTENCE = "The Tagus museum admits school groups free."
JOINT_CLAIM = "The Tagus museum opened in Lisbon and admits school groups free."
JOINT_CASE = f"""\
id: museum
citations:
  1: {HISTORY_URL}
  2: {VISIT_URL}
claims:
  - text: {JOINT_CLAIM}
    cites: [1, 2]
"""


def _serve_museum(web: Web, *, history_latency: float | None = None) -> None:
    web.crawlbase.add(
        HISTORY_URL, markdown=article(HISTORY_SENTENCE, title="History"), latency=history_latency
    )
    web.crawlbase.add(VISIT_URL, markdown=article(VISIT_SENTENCE, title="Visit"))


def test_a_claim_each_page_holds_half_of_is_supported_jointly(citations: Citations) -> None:
    citations.write("cases/museum.yaml", JOINT_CASE)
    report = citations.path / "report.json"
    with citations.web(site=False) as web:
        _serve_museum(web)
        # Per page, the judge finds the claim not stated; the joint request goes to the
        # emulator's joint oracle, which quotes one sentence from each source.
        web.judge.rule(JOINT_CLAIM, label="not_found", quote=None)
        result = citations.run(
            "--citations-record=once", "-v", "cases/", "--citations-report", str(report),
            gate="default"
        )
        joint_calls = [call for call in web.judge.calls if len(call.passages) > 1]

    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(["*museum::claim-1 PASSED [[]supported[]]*"])
    assert joint_calls, "no joint request reached the judge"
    claim = claims_by_nodeid(load_report(report))["cases/museum.yaml::museum::claim-1"]
    assert claim["label"] == "supported"
    assert [c["label"] for c in claim["citations"]] == ["not_found", "not_found"]
    assert sorted(claim["joint_support"]) == sorted([HISTORY_URL, VISIT_URL])
    line = next(line for line in result.outlines if "jointly by" in line)
    assert line.startswith("  cases/museum.yaml::museum::claim-1: supported (jointly by ")
    assert HISTORY_URL in line
    assert VISIT_URL in line

    # Offline, the joint verdict replays from the cassette.
    replay = citations.run("cases/", "--citations-report", str(report), gate="default")
    replay.assert_outcomes(passed=2)
    claim = claims_by_nodeid(load_report(report))["cases/museum.yaml::museum::claim-1"]
    assert claim["label"] == "supported"


def test_joint_sources_follow_the_citation_order_not_the_order_pages_answer(
    citations: Citations,
) -> None:
    """Source 1 of the joint request is citation [1] even when its page answers last, so that
    a judge's quotes name the right pages and the recorded request replays."""
    citations.write("cases/museum.yaml", JOINT_CASE)
    with citations.web(site=False) as web:
        _serve_museum(web, history_latency=0.5)
        web.judge.rule(
            JOINT_CLAIM,
            label="supported",
            quote=None,  # per page: "supported" without a quote, which the guard rejects
            quotes=[(1, HISTORY_SENTENCE), (2, VISIT_SENTENCE)],
        )
        recorded = citations.run("--citations-record=once", "-v", "cases/", gate="default")

    recorded.assert_outcomes(passed=2)
    recorded.stdout.fnmatch_lines(["*museum::claim-1 PASSED [[]supported[]]*"])
    replayed = citations.run("-v", "cases/", gate="default")
    replayed.assert_outcomes(passed=2)
    replayed.stdout.fnmatch_lines(["*museum::claim-1 PASSED [[]supported[]]*"])
    assert "could not be checked" not in replayed.stdout.str()


def test_a_joint_quote_absent_from_the_source_it_names_does_not_support(
    citations: Citations,
) -> None:
    citations.write("cases/museum.yaml", JOINT_CASE)
    citations.write("pytest.ini", "[pytest]\ncitations_fail_on = not_found contradicted\n")
    report = citations.path / "report.json"
    with citations.web(site=False) as web:
        _serve_museum(web)
        # Both quotes are real sentences, but each is attributed to the other source.
        web.judge.rule(
            JOINT_CLAIM,
            label="supported",
            quote=None,
            quotes=[(1, VISIT_SENTENCE), (2, HISTORY_SENTENCE)],
        )
        result = citations.run(
            "--citations-record=once", "cases/", "--citations-report", str(report), gate="ini"
        )
        joint_labels = [call.label for call in web.judge.calls if len(call.passages) > 1]

    assert joint_labels == ["supported"]  # the judge did say supported
    result.assert_outcomes(passed=1, failed=1)
    claim = claims_by_nodeid(load_report(report))["cases/museum.yaml::museum::claim-1"]
    assert claim["label"] == "not_found"
    assert claim["joint_support"] == []
    assert {c["reason"] for c in claim["citations"]} == {"evidence_quote_not_in_source"}
    assert "jointly by" not in result.stdout.str()


def test_one_wrong_quote_among_right_ones_spoils_joint_support(citations: Citations) -> None:
    citations.write("cases/museum.yaml", JOINT_CASE)
    report = citations.path / "report.json"
    with citations.web(site=False) as web:
        _serve_museum(web)
        web.judge.rule(
            JOINT_CLAIM,
            label="supported",
            quote=None,
            quotes=[
                (1, HISTORY_SENTENCE),
                (2, VISIT_SENTENCE),
                (2, "The Tagus museum is free for everyone."),
            ],
        )
        citations.run("--citations-record=once", "cases/", "--citations-report", str(report),
                      gate="default")

    claim = claims_by_nodeid(load_report(report))["cases/museum.yaml::museum::claim-1"]
    assert claim["label"] == "not_found"
    assert claim["joint_support"] == []


# -- partial -------------------------------------------------------------------------------------

PARTIAL_CASE = f"""\
id: returns
citations:
  1: {RETURNS_URL}
  2: {REFUNDS_URL}
claims:
  - text: {PARTIAL_CLAIM}
    cites: [1]
  - text: {REFUNDS_CLAIM}
    cites: [2]
"""


def test_partial_is_a_label_of_items_summary_and_report(citations: Citations) -> None:
    citations.write("cases/returns.yaml", PARTIAL_CASE)
    report = citations.path / "report.json"

    result, _ = citations.record("-v", "cases/", "--citations-report", report, gate="contradicted")

    result.assert_outcomes(passed=3)
    result.stdout.fnmatch_lines(
        [
            "*returns::claim-1 PASSED [[]partial[]]*",
            "*returns::claim-2 PASSED [[]supported[]]*",
            "case * claims  supported  partial  contradicted *",
            "cases/returns.yaml::returns  *2  *1  *1  *0 *",
            "claims to look at:",
            "  cases/returns.yaml::returns::claim-1: partial",
        ]
    )
    loaded = load_report(report)
    claim = claims_by_nodeid(loaded)["cases/returns.yaml::returns::claim-1"]
    assert claim["label"] == "partial"
    assert claim["citations"][0]["label"] == "partial"
    assert "14 days" in claim["citations"][0]["evidence_quote"]
    # Partial support is not support: it counts in neither precision nor supported share.
    assert loaded["summary"]["citation_precision"] == 0.5
    assert loaded["summary"]["supported_share"] == 0.5


@pytest.mark.parametrize(
    ("args", "ini", "criteria", "gate"),
    [
        (("--citations-fail-on", "contradicted,partial"), "", "", "args"),
        ((), "[pytest]\ncitations_fail_on = contradicted partial\n", "", "ini"),
        ((), "", "criteria:\n  fail_on: [partial]\n", "contradicted"),
    ],
    ids=["command line", "ini", "case criteria"],
)
def test_partial_fails_when_configured_to(
    citations: Citations, args: tuple[str, ...], ini: str, criteria: str, gate: str
) -> None:
    citations.write("cases/returns.yaml", PARTIAL_CASE)
    recorded, _ = citations.record("cases/", gate="contradicted")
    recorded.assert_outcomes(passed=3)

    citations.write("cases/returns.yaml", PARTIAL_CASE + criteria)
    if ini:
        citations.write("pytest.ini", ini)
    result = citations.run("-v", "cases/", *args, gate=gate)

    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines(
        ["*returns::claim-1 FAILED*", "*returns::claim-2 PASSED [[]supported[]]*"]
    )
    assert "claim is partial (failing labels: " in result.stdout.str()


# -- misattribution ------------------------------------------------------------------------------


def test_a_claim_its_citation_misses_but_a_retrieved_page_supports_is_misattributed(
    citations: Citations,
) -> None:
    citations.write(
        "cases/licences.yaml",
        f"""\
        id: licences
        citations:
          1: {RETURNS_URL}
        retrieved:
          - {SOFTWARE_URL}
        claims:
          - text: {NOT_FOUND_CLAIM}
            cites: [1]
        """,
    )
    report = citations.path / "report.json"

    result, web = citations.record("-v", "cases/", "--citations-report", report,
                                   gate="contradicted")

    assert web.crawlbase.count(SOFTWARE_URL) >= 1
    result.assert_outcomes(passed=2)  # not a failing label by default
    result.stdout.fnmatch_lines(
        [
            "*licences::claim-1 PASSED [[]misattributed[]]*",
            "claims to look at:",
            f"  cases/licences.yaml::licences::claim-1: misattributed (supported instead by "
            f"{SOFTWARE_URL})",
        ]
    )
    claim = claims_by_nodeid(load_report(report))["cases/licences.yaml::licences::claim-1"]
    assert claim["label"] == "misattributed"
    assert claim["misattributed_to"] == [SOFTWARE_URL]
    # Its own citation stays what it was; the retrieved page is no citation of the claim.
    assert [(c["url"], c["label"]) for c in claim["citations"]] == [(RETURNS_URL, "not_found")]


def test_misattribution_names_the_retrieved_marker(citations: Citations) -> None:
    citations.write(
        "cases/licences.yaml",
        f"""\
        id: licences
        citations:
          1: {RETURNS_URL}
          2: {REFUNDS_URL}
        retrieved:
          3: {SOFTWARE_URL}
        criteria:
          fail_on: [contradicted, misattributed]
        claims:
          - text: {NOT_FOUND_CLAIM}
            cites: [1]
          - text: {REFUNDS_CLAIM}
            cites: [2]
        """,
    )

    result, _ = citations.record("-v", "cases/", gate="default")

    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines(
        [
            "*licences::claim-1 FAILED*",
            "*licences::claim-2 PASSED [[]supported[]]*",
            "claim is misattributed (failing labels: contradicted, misattributed)",
            f"  supported instead by the uncited source: [[]3[]] {SOFTWARE_URL}",
        ]
    )


def test_a_claim_its_own_citation_supports_is_not_misattributed(citations: Citations) -> None:
    citations.write(
        "cases/refunds.yaml",
        f"""\
        id: refunds
        citations:
          1: {REFUNDS_URL}
        retrieved:
          - {SOFTWARE_URL}
        claims:
          - text: {REFUNDS_CLAIM}
            cites: [1]
        """,
    )
    report = citations.path / "report.json"

    result, web = citations.record("cases/", "--citations-report", report, gate="default")

    result.assert_outcomes(passed=2)
    claim = claims_by_nodeid(load_report(report))["cases/refunds.yaml::refunds::claim-1"]
    assert claim["label"] == "supported"
    assert claim["misattributed_to"] == []
    assert web.crawlbase.count(SOFTWARE_URL) == 0  # nothing to look for elsewhere
