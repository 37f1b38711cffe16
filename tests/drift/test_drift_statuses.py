"""Each drift status, against the emulators (issue 12): record, change the live page, run
the drift check, and look at the status, the verdicts side by side and what was spent."""

from __future__ import annotations

import pytest
from drift_world import (
    BOILING_CLAIM,
    BOILING_SENTENCE,
    BOILING_URL,
    FOOTER,
    GIFT_CLAIM,
    LOREM,
    NEW_FOOTER,
    RETURNS_CLAIM,
    RETURNS_PAGE,
    RETURNS_SENTENCE,
    RETURNS_URL,
    World,
)

from pytest_citations import Label, Reason
from pytest_citations.drift import CitationDrift, DriftPolicy, DriftReport, DriftStatus
from pytest_citations.sandbox import NOT_FOUND_MARKDOWN


def only(report: DriftReport, url: str, claim: str | None = None) -> CitationDrift:
    found = [d for d in report.citations if d.url == url and (claim is None or d.claim == claim)]
    assert len(found) == 1, found
    return found[0]


@pytest.fixture
def recorded(world: World) -> World:
    """One case file, two supported claims on two pages, recorded."""
    world.case("policy", (RETURNS_CLAIM, [RETURNS_URL]), (BOILING_CLAIM, [BOILING_URL]))
    world.record()
    return world


def test_a_page_whose_only_change_is_a_date_in_the_footer_is_unchanged(recorded: World) -> None:
    recorded.crawlbase.edit(RETURNS_URL, FOOTER, NEW_FOOTER)
    recorded.crawlbase.edit(BOILING_URL, FOOTER, NEW_FOOTER)

    report = recorded.drift()

    assert [d.status for d in report.citations] == [DriftStatus.UNCHANGED] * 2
    assert only(report, RETURNS_URL).detail == "only digits changed"
    assert all(d.new is None and not d.flipped for d in report.citations)
    # One crawl sequence per URL, and nothing for the judge.
    assert recorded.crawlbase.crawl_count == 2
    assert recorded.judge.call_count == 0
    assert (report.costs.crawls, report.costs.judge_calls) == (2, 0)
    assert not report.failed
    assert report.decision() == "pass"


def test_evidence_that_lost_its_number_is_judged_again_and_flips(recorded: World) -> None:
    recorded.crawlbase.edit(RETURNS_URL, "within 30 days", "within a few days")

    report = recorded.drift()

    drift = only(report, RETURNS_URL)
    assert drift.status is DriftStatus.EVIDENCE_CHANGED
    assert drift.evidence_changed
    assert drift.missing_evidence == (RETURNS_SENTENCE,)
    assert drift.old.label is Label.SUPPORTED
    assert drift.new is not None
    assert drift.new.label is Label.PARTIAL
    assert (
        drift.new.evidence_quote == "Consumers can return hardware within a few days of delivery."
    )
    assert drift.flipped
    assert drift.worse
    assert drift.labels() == "supported → partial"
    assert drift.diff == (
        f"- {RETURNS_SENTENCE}",
        "+ Consumers can return hardware within a few days of delivery.",
    )
    assert only(report, BOILING_URL).status is DriftStatus.UNCHANGED
    # Judged again once: the one citation whose evidence changed.
    assert recorded.judge.call_count == 1
    assert recorded.judge.calls[0].claim == RETURNS_CLAIM
    assert report.costs.judge_calls == 1
    assert report.failed
    assert report.decision() == "fail (flipped 1)"


def test_a_changed_number_in_the_evidence_is_evidence_not_furniture(recorded: World) -> None:
    recorded.crawlbase.edit(RETURNS_URL, "within 30 days", "within 14 days")

    drift = only(recorded.drift(), RETURNS_URL)

    assert drift.status is DriftStatus.EVIDENCE_CHANGED
    assert drift.new is not None
    assert drift.new.label is Label.CONTRADICTED
    assert drift.diff == (f"- {RETURNS_SENTENCE}", f"+ {RETURNS_SENTENCE.replace('30', '14')}")


def test_a_page_edited_away_from_the_evidence_costs_no_judge_call(recorded: World) -> None:
    recorded.crawlbase.edit(RETURNS_URL, "original packaging", "original box and its inlays")

    report = recorded.drift()

    drift = only(report, RETURNS_URL)
    assert drift.status is DriftStatus.EDITED
    assert drift.new is None
    assert not drift.evidence_changed
    assert drift.detail == "1 paragraph changed, none the verdict rests on"
    assert drift.diff == (
        "- Items must come back with all accessories and the original packaging.",
        "+ Items must come back with all accessories and the original box and its inlays.",
    )
    assert recorded.judge.call_count == 0
    assert not report.failed


def test_a_paragraph_added_on_top_repacks_passages_but_is_only_an_edit(world: World) -> None:
    long_page = "\n\n".join(["# Manual", *[LOREM] * 6, BOILING_SENTENCE, *[LOREM] * 3]) + "\n"
    world.serve({BOILING_URL: long_page})
    world.case("manual", (BOILING_CLAIM, [BOILING_URL]))
    world.record()
    world.crawlbase.edit(BOILING_URL, "# Manual\n\n", "# Manual\n\nA new introduction.\n\n")

    drift = only(world.drift(), BOILING_URL)

    assert drift.status is DriftStatus.EDITED
    assert drift.diff == ("+ A new introduction.",)
    assert world.judge.call_count == 0


def test_a_not_found_verdict_rests_on_every_passage_its_judge_saw(recorded: World) -> None:
    recorded.case("gift", (GIFT_CLAIM, [RETURNS_URL]))
    recorded.record("gift")
    recorded.crawlbase.edit(RETURNS_URL, FOOTER, NEW_FOOTER)

    report = recorded.drift("gift")

    # The footer shares no word with the claim: its new date is not drift.
    assert only(report, RETURNS_URL).status is DriftStatus.UNCHANGED
    recorded.crawlbase.edit(RETURNS_URL, "original packaging", "original packaging or cash")

    drift = only(recorded.drift("gift"), RETURNS_URL)

    assert drift.status is DriftStatus.EVIDENCE_CHANGED
    assert drift.new is not None
    assert drift.new.label is Label.NOT_FOUND
    assert not drift.flipped
    assert recorded.judge.call_count == 1


def test_a_page_that_moved_with_its_evidence_is_moved_and_keeps_its_verdict(
    recorded: World,
) -> None:
    moved_to = "https://shop.example.com/help/returns-and-refunds"
    recorded.crawlbase.add(RETURNS_URL, markdown=RETURNS_PAGE, final_url=moved_to)

    report = recorded.drift()

    drift = only(report, RETURNS_URL)
    assert drift.status is DriftStatus.MOVED
    assert drift.detail == f"final URL {RETURNS_URL} → {moved_to}"
    assert drift.new is None
    assert not drift.flipped
    assert recorded.judge.call_count == 0
    assert not report.failed  # moved is not in the default fail_on


def test_a_homepage_redirect_is_moved_and_flips_to_not_found(recorded: World) -> None:
    recorded.crawlbase.add(
        RETURNS_URL, markdown="# Shop\n\nWelcome!", final_url="https://shop.example.com/"
    )

    report = recorded.drift()

    drift = only(report, RETURNS_URL)
    assert drift.status is DriftStatus.MOVED
    assert drift.detail.endswith("(the homepage)")
    assert drift.new is not None
    assert (drift.new.label, drift.new.reason) == (Label.NOT_FOUND, Reason.REDIRECTED_TO_HOMEPAGE)
    assert drift.flipped
    assert recorded.judge.call_count == 0
    assert report.decision() == "fail (flipped 1)"


@pytest.mark.parametrize(
    ("served", "reason"),
    [
        ({"markdown": NOT_FOUND_MARKDOWN, "original_status": 404}, Reason.HTTP_404),
        ({"markdown": NOT_FOUND_MARKDOWN, "original_status": 410}, Reason.HTTP_410),
        ({"markdown": "# Oops\n\nSorry, this page does not exist anymore."}, Reason.SOFT_404),
        ({"markdown": RETURNS_PAGE, "fail_normal": True, "fail_js": True}, Reason.CRAWL_FAILED),
    ],
    ids=["http_404", "http_410", "soft_404", "crawl_failed"],
)
def test_a_page_that_is_gone(recorded: World, served: dict[str, object], reason: str) -> None:
    recorded.crawlbase.add(RETURNS_URL, **served)

    report = recorded.drift()

    drift = only(report, RETURNS_URL)
    assert drift.status is DriftStatus.GONE
    assert drift.new is not None
    assert (drift.new.label, drift.new.reason) == (Label.UNREACHABLE, reason)
    assert drift.labels() == f"supported → unreachable ({reason})"
    assert recorded.judge.call_count == 0
    assert report.failed
    assert report.counts()["gone"] == 1


def test_a_page_that_now_needs_javascript(recorded: World) -> None:
    recorded.crawlbase.add(
        RETURNS_URL,
        markdown="# Shop\n\nPlease enable JavaScript.",
        markdown_full="# Shop\n\nPlease enable JavaScript to continue.",
        markdown_js=RETURNS_PAGE,
    )

    report = recorded.drift()

    drift = only(report, RETURNS_URL)
    assert drift.status is DriftStatus.NOW_NEEDS_JS
    assert drift.new is None  # the rendered page still holds the evidence
    assert recorded.judge.call_count == 0
    # Readability, full text, then the rendered page: JavaScript costs double.
    assert report.costs.crawls == 1 + 3
    assert report.costs.credits_by_kind["javascript"] == 2.0


def test_a_url_that_now_leads_to_a_pdf(recorded: World) -> None:
    pdf = "https://shop.example.com/files/returns-policy.pdf"
    recorded.crawlbase.add(RETURNS_URL, markdown=RETURNS_PAGE, final_url=pdf)

    drift = only(recorded.drift(), RETURNS_URL)

    assert drift.status is DriftStatus.NOW_PDF
    assert drift.detail == f"the URL leads to a PDF now: {pdf}"


#: The returns page cut to one sentence whose number changed: below the thin-page size, so
#: the fetch rules escalate to JavaScript and judge the rendered text.
THIN_FOURTEEN_DAYS = "# Returns\n\nConsumers can return hardware within 14 days of delivery.\n"


@pytest.mark.parametrize(
    ("served", "finding", "detail"),
    [
        ({"markdown": THIN_FOURTEEN_DAYS}, DriftStatus.NOW_NEEDS_JS,
         "readable only with JavaScript now"),
        ({"markdown": RETURNS_PAGE.replace("30 days", "14 days"),
          "final_url": "https://shop.example.com/help/returns-and-refunds"}, DriftStatus.MOVED,
         f"final URL {RETURNS_URL} → https://shop.example.com/help/returns-and-refunds"),
        ({"markdown": RETURNS_PAGE.replace("30 days", "14 days"),
          "final_url": "https://shop.example.com/files/returns.pdf"}, DriftStatus.NOW_PDF,
         "the URL leads to a PDF now: https://shop.example.com/files/returns.pdf"),
    ],
    ids=["now_needs_js", "moved", "now_pdf"],
)  # fmt: skip
def test_a_rule_finding_never_hides_that_the_evidence_changed(
    recorded: World, served: dict[str, object], finding: DriftStatus, detail: str
) -> None:
    recorded.crawlbase.add(RETURNS_URL, **served)

    report = recorded.drift()

    drift = only(report, RETURNS_URL)
    # The evidence changed: the status says so, and the rule's finding stays a detail.
    assert drift.status is DriftStatus.EVIDENCE_CHANGED
    assert drift.evidence_changed
    assert drift.also == (finding,)
    assert drift.detail == (
        f"{detail}; 1 evidence paragraph gone or changed; the quote no longer stands in the page"
    )
    assert drift.new is not None
    assert drift.new.label is Label.CONTRADICTED
    assert drift.flipped
    assert report.counts()["evidence_changed"] == 1
    assert report.to_dict()["citations"][0]["also"] == [finding.value]
    # A nightly --fail-on evidence_changed sees it; one on the rule's status still does too.
    assert DriftPolicy.parse("evidence_changed").reasons(drift) == ["evidence_changed"]
    assert DriftPolicy.parse(finding.value).reasons(drift) == [finding.value]


def test_a_page_that_needs_javascript_with_its_evidence_intact_stays_now_needs_js(
    recorded: World,
) -> None:
    thin = "# Shop\n\nPlease enable JavaScript."
    recorded.crawlbase.add(RETURNS_URL, markdown=thin, markdown_js=RETURNS_PAGE)

    drift = only(recorded.drift(), RETURNS_URL)

    assert drift.status is DriftStatus.NOW_NEEDS_JS
    assert drift.also == ()
    assert not drift.evidence_changed
