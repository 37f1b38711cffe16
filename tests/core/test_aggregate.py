"""Per-claim aggregation (A1) and citation precision (A2, A3's example figures)."""

from __future__ import annotations

import asyncio

import pytest

from pytest_citations import ClaimRequest, Label, Precision, Reason
from pytest_citations.pipeline.aggregate import aggregate, aggregate_verdicts
from pytest_citations.verdicts import CitationVerdict

S, P, C, N, U = (
    Label.SUPPORTED,
    Label.PARTIAL,
    Label.CONTRADICTED,
    Label.NOT_FOUND,
    Label.UNREACHABLE,
)


@pytest.mark.parametrize(
    ("labels", "expected"),
    [
        ([], N),  # an empty list is not_found
        ([S], S),
        ([C], C),
        ([N], N),
        ([U], U),
        ([P], P),
        ([S, C], C),  # one contradiction outweighs every support
        ([S, S, S, C], C),
        ([C, U, U], C),
        ([S, N], S),
        ([S, U], S),
        ([N, U], N),  # unreachable only when every citation is
        ([U, U, U], U),
        ([P, N], P),  # partial ranks between supported and not_found
        ([P, U], P),
        ([P, S], S),
        ([P, C], C),
        ([N, N], N),
    ],
)
def test_a1_claim_label_table(labels, expected):
    assert aggregate(labels) is expected
    assert aggregate(reversed(labels)) is expected  # order never matters


def test_a1_aggregate_verdicts_reads_the_labels():
    verdicts = [CitationVerdict("https://a.org/x", U), CitationVerdict("https://b.org/y", S)]
    assert aggregate_verdicts(verdicts) is S
    assert aggregate_verdicts(iter(verdicts)) is S


def test_a2_precision_lines_exactly_as_000_prints_them():
    labels = [S, S, U, U, U, N, N, C, P]
    precision = Precision.of(labels)

    assert (precision.supported, precision.total, precision.reachable) == (2, 9, 6)
    assert precision.lines() == [
        "citation_precision=0.2222 (2/9)",
        "reachable_precision=0.3333 (2/6)",
    ]
    assert precision.citation == pytest.approx(2 / 9)
    assert precision.reachable_precision == pytest.approx(2 / 6)


def test_a2_partial_does_not_count_as_supported():
    assert Precision.of([P, P, S]).supported == 1


def test_a2_reachable_precision_undefined_when_nothing_was_reachable():
    precision = Precision.of([U, U])
    assert precision.reachable_precision is None
    assert precision.lines() == [
        "citation_precision=0.0000 (0/2)",
        "reachable_precision=n/a (0/0)",
    ]


def test_a2_no_citations_at_all():
    precision = Precision.of([])
    assert precision.citation is None
    assert precision.lines() == ["citation_precision=n/a (0/0)", "reachable_precision=n/a (0/0)"]


def test_a2_precision_adds_up_over_batches():
    total = Precision.of([S, U, N]) + Precision.of([S, C, U, U, N, P])
    assert total == Precision.of([S, S, U, U, U, N, N, C, P])
    assert total.lines()[0] == "citation_precision=0.2222 (2/9)"


# -- End to end ---------------------------------------------------------------------------------

CLAIM_WATER = "Water boils at 100 degrees Celsius at sea level."
CLAIM_ICE = "Ice melts at 0 degrees Celsius."
CLAIM_MOON = "The moon is made of green cheese."


def test_a3_seed_fixture_nine_citations_two_supported_three_unreachable(
    crawlbase, judge, make_verifier, article
):
    water = article(CLAIM_WATER)
    ice = article(CLAIM_ICE, title="Ice")
    crawlbase.add("https://ok.org/water", markdown=water)
    crawlbase.add("https://ok.org/ice", markdown=ice)
    crawlbase.add("https://ok.org/eggs", markdown=article("Whisk three eggs with butter."))
    crawlbase.add("https://dead.org/gone", markdown="# Gone\n", original_status=410)
    crawlbase.add("https://soft.org/missing", markdown="# Page not found\n\nNothing here.")
    crawlbase.add("https://moved.org/deep/page", markdown=water, final_url="https://moved.org/")
    requests = [
        ClaimRequest.of(CLAIM_WATER, ["https://ok.org/water", "https://dead.org/gone"]),
        ClaimRequest.of(
            CLAIM_ICE,
            ["https://ok.org/ice", "https://soft.org/missing", "https://ok.org/eggs"],
        ),
        ClaimRequest.of(
            CLAIM_MOON,
            [
                "https://ok.org/water",
                "https://never-registered.org/x",
                "https://moved.org/deep/page",
                "https://files.org/report.pdf",
            ],
        ),
    ]

    async def scenario():
        async with make_verifier() as verifier:
            return await verifier.verify_many(requests)

    results = asyncio.run(scenario())

    assert [r.claim for r in results] == [CLAIM_WATER, CLAIM_ICE, CLAIM_MOON]
    assert [r.label for r in results] == [S, S, N]
    assert [c.label for c in results[2].citations] == [N, U, N, N]
    assert [[c.reason for c in r.citations] for r in results] == [
        [None, Reason.HTTP_410],
        [None, Reason.SOFT_404, None],
        [None, Reason.HTTP_404, Reason.REDIRECTED_TO_HOMEPAGE, Reason.PDF_UNSUPPORTED],
    ]
    precision = Precision.of(c.label for r in results for c in r.citations)
    assert precision.lines() == [
        "citation_precision=0.2222 (2/9)",
        "reachable_precision=0.3333 (2/6)",
    ]


def test_a1_contradiction_wins_end_to_end(crawlbase, judge, verify, article):
    crawlbase.add("https://a.org/right", markdown=article(CLAIM_WATER))
    crawlbase.add(
        "https://b.org/wrong",
        markdown=article("Water boils at 90 degrees Celsius at sea level.", title="Wrong"),
    )
    result, _ = verify(
        CLAIM_WATER, ["https://a.org/right", "https://b.org/wrong", "https://c.org/dead"]
    )
    assert [c.label for c in result.citations] == [S, C, U]
    assert result.label is C


def test_c2_claim_without_citations_is_uncited(crawlbase, judge, verify):
    # A1 maps an empty list of citation labels to not_found (see the table above); the
    # verifier records a claim that cites nothing as uncited (004, C2), asking nobody.
    result, _ = verify(CLAIM_WATER, [])
    assert result.label is Label.UNCITED
    assert result.citations == ()
    assert crawlbase.crawl_count == judge.call_count == 0


def test_a1_every_citation_unreachable_makes_the_claim_unreachable(crawlbase, judge, verify):
    result, _ = verify(CLAIM_WATER, ["https://a.org/dead", "https://b.org/dead"])
    assert result.label is U


def test_a2_duplicate_urls_of_one_claim_are_one_citation(crawlbase, judge, verify, article):
    crawlbase.add("https://a.org/water", markdown=article(CLAIM_WATER))
    result, _ = verify(CLAIM_WATER, ["https://a.org/water", " https://a.org/water "])
    assert len(result.citations) == 1
