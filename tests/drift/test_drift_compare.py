"""The comparison rule of ``pytest_citations.drift.compare``, on its own (pure functions):
evidence exactly, furniture with digits masked, paragraphs rather than packed passages, and
the fetch rules' findings before any text."""

from __future__ import annotations

from pytest_citations import CitationVerdict, Label, Reason
from pytest_citations.drift import DriftStatus, Grounds, classify, compare_pages, evidence_of
from pytest_citations.drift.compare import masked, page_paragraphs, place
from pytest_citations.fetchers import FetchResult

URL = "https://example.org/guide"
QUOTE = "The museum opens at 9:00 on weekdays."
PAGE = f"# Guide\n\nTickets cost 12 euros.\n\n{QUOTE}\n\nLast updated 2025-01-03, 1,204 views.\n"


def verdict(label: Label = Label.SUPPORTED, quote: str | None = QUOTE) -> CitationVerdict:
    return CitationVerdict(URL, label, evidence_quote=quote)


def fetched(markdown: str = PAGE, **fields: object) -> FetchResult:
    return FetchResult(url=URL, markdown=markdown, final_url=URL, **fields)  # type: ignore[arg-type]


def test_digits_are_masked_whole() -> None:
    assert masked("Updated 2025-01-03 at 12:30, 1,204 views, 3.5 stars") == (
        "Updated 0 at 0, 0 views, 0 stars"
    )


def test_evidence_is_the_paragraph_the_quote_stands_in() -> None:
    assert evidence_of([PAGE], QUOTE) == Grounds((QUOTE,))


def test_a_quote_across_two_paragraphs_rests_on_both() -> None:
    shown = "First part of the rule.\n\nSecond part of the rule.\n\nUnrelated."
    evidence = evidence_of([shown], "of the rule. Second part")
    assert evidence == Grounds(("First part of the rule.", "Second part of the rule."))


def test_without_a_quote_every_shown_paragraph_is_evidence() -> None:
    evidence = evidence_of([PAGE], None, claim="The museum closes on Mondays.")
    # Paragraphs that share a word with the claim must stand verbatim; the others (a title,
    # a footer) with their digits masked.
    assert evidence == Grounds(
        (QUOTE,), ("# Guide", "Tickets cost 12 euros.", "Last updated 2025-01-03, 1,204 views.")
    )


def test_furniture_digits_are_not_drift_but_evidence_digits_are() -> None:
    evidence = Grounds((QUOTE,))
    footer = compare_pages(
        PAGE, PAGE.replace("2025-01-03, 1,204", "2026-03-09, 1,377"), evidence, QUOTE
    )
    assert not footer.evidence_changed
    assert not footer.edited
    assert footer.digits_only
    opening = compare_pages(PAGE, PAGE.replace("9:00", "10:00"), evidence, QUOTE)
    assert opening.evidence_changed
    assert opening.missing == (QUOTE,)
    assert opening.diff == (f"- {QUOTE}", f"+ {QUOTE.replace('9:00', '10:00')}")


def test_paragraphs_survive_a_repacking_of_passages() -> None:
    words = " ".join(["word"] * 120)
    page = f"{words}\n\n{QUOTE}\n\n{words}"
    moved = f"A new first paragraph.\n\n{words}\n\n{QUOTE}\n\n{words}"
    assert page_paragraphs(page) != page_paragraphs(moved)
    change = compare_pages(page, moved, Grounds((QUOTE,)), QUOTE)
    assert not change.evidence_changed
    assert change.edited
    assert change.diff == ("+ A new first paragraph.",)


def test_lines_shown_out_of_a_long_paragraph_stand_for_that_paragraph() -> None:
    # The judge is shown lines of the page under a word budget: here the last lines of a long
    # paragraph, which is not a paragraph of the page by itself.
    opening = " ".join(f"The hall holds room {n} for visitors." for n in range(12))
    long = f"{opening} {QUOTE} Guided tours leave from the hall."
    page = f"# Guide\n\n{long}\n\nTickets cost 12 euros.\n"
    shown = [f"The hall holds room 11 for visitors. {QUOTE} Guided tours leave from the hall."]
    assert shown[0] in long
    assert shown[0] not in page_paragraphs(page)
    # A change elsewhere on the page leaves the evidence standing: the page is edited.
    tickets = fetched(page.replace("Tickets cost 12 euros.", "Tickets are sold at the door."))
    elsewhere = classify(fetched(page), tickets, verdict(), shown)
    assert elsewhere.status is DriftStatus.EDITED
    assert not elsewhere.recheck
    # A change in the paragraph the lines came from, outside them, is compared exactly, as
    # any change of an evidence paragraph is.
    opening_changed = fetched(page.replace("room 3 for", "room 4 for"))
    inside = classify(fetched(page), opening_changed, verdict(), shown)
    assert inside.status is DriftStatus.EVIDENCE_CHANGED
    assert inside.missing_evidence == (long,)


def test_final_urls_compare_without_scheme_slash_query_or_fragment() -> None:
    assert place("http://Example.org/a/?utm=1#top") == place("https://example.org/a")
    assert place("https://example.org/a") != place("https://example.org/b")


def test_the_fetch_rules_decide_before_any_text() -> None:
    gone = fetched("", label=Label.UNREACHABLE, reason=Reason.HTTP_404)
    assert classify(fetched(), gone, verdict(), [PAGE]).status is DriftStatus.GONE
    still = fetched("", label=Label.UNREACHABLE, reason=Reason.SOFT_404)
    again = classify(gone, still, verdict(Label.UNREACHABLE, None), [])
    assert (again.status, again.recheck, again.detail) == (
        DriftStatus.UNCHANGED,
        False,
        "still unreachable (soft_404)",
    )


def test_a_dead_link_that_came_back_is_judged_again() -> None:
    gone = fetched("", label=Label.UNREACHABLE, reason=Reason.HTTP_404)
    back = classify(gone, fetched(), verdict(Label.UNREACHABLE, None), [])
    assert back.status is DriftStatus.EVIDENCE_CHANGED
    assert back.recheck
    assert back.detail == "readable again (was unreachable (http_404))"


def test_a_page_that_now_needs_javascript_keeps_its_verdict_if_the_evidence_stands() -> None:
    rendered = classify(fetched(), fetched(javascript=True), verdict(), [PAGE])
    assert (rendered.status, rendered.recheck) == (DriftStatus.NOW_NEEDS_JS, False)
    edited = fetched(PAGE.replace("9:00", "8:00"), javascript=True)
    changed = classify(fetched(), edited, verdict(), [PAGE])
    # Its evidence changed too: that is its status, the JavaScript finding stays beside it.
    assert (changed.status, changed.recheck, changed.evidence_changed) == (
        DriftStatus.EVIDENCE_CHANGED,
        True,
        True,
    )
    assert changed.also == (DriftStatus.NOW_NEEDS_JS,)
    assert changed.detail.startswith("readable only with JavaScript now; ")
