"""The audit trail (S1): one SQLite row per citation, never a token or a storage URL, and the
stored page read back by rid through the Storage API."""

from __future__ import annotations

import asyncio
import datetime
import sqlite3

import pytest

from pytest_citations import AuthenticationError, ClaimRequest, Label, Reason, Verifier
from pytest_citations.fetchers import StoredPageNotFound
from pytest_citations.pipeline.audit import AuditLog
from pytest_citations.retrieval.embedders.hashed import LexicalEmbedder
from pytest_citations.sanitize import Secret
from pytest_citations.verdicts import CitationVerdict, ClaimVerdict

URL = "https://example.org/water"
PDF = "https://example.org/water.pdf"
DEAD = "https://example.org/dead"
CLAIM = "Water boils at 100 degrees Celsius at sea level."


def test_s1_one_row_per_citation_with_run_id_rid_and_time(
    crawlbase, judge, settings, article, tmp_path
):
    crawlbase.add(URL, markdown=article(CLAIM))
    audit = AuditLog(tmp_path / "audit.sqlite", run_id="run-0001")

    async def scenario():
        async with Verifier(settings(), embedder=LexicalEmbedder(), audit=audit) as verifier:
            return await verifier.verify_many(
                [
                    ClaimRequest.of(CLAIM, [URL, PDF]),
                    ClaimRequest.of("Ice melts at 0 degrees Celsius.", [DEAD]),
                ]
            )

    before = datetime.datetime.now(datetime.UTC).replace(microsecond=0)
    asyncio.run(scenario())
    rows = sorted(audit.rows(), key=lambda row: row.url)
    audit.close()

    assert [(r.url, r.label, r.reason) for r in rows] == [
        (DEAD, "unreachable", Reason.HTTP_404),
        (URL, "supported", None),
        (PDF, "not_found", Reason.PDF_UNSUPPORTED),
    ]
    dead, page, pdf = rows
    assert {r.run_id for r in rows} == {"run-0001"}
    assert page.rid == crawlbase.rid_for(URL)
    assert dead.rid == crawlbase.rid_for(DEAD)
    assert pdf.rid == ""  # no stored page, still a row
    assert page.claim == pdf.claim == CLAIM
    assert dead.claim == "Ice melts at 0 degrees Celsius."
    assert page.confidence == pytest.approx(0.9)
    for row in rows:
        checked = datetime.datetime.strptime(row.checked_at, "%Y-%m-%dT%H:%M:%SZ").replace(
            tzinfo=datetime.UTC
        )
        assert checked >= before


def test_s1_audit_file_holds_no_token_and_no_storage_url(
    crawlbase, judge, settings, article, tmp_path, secret_values
):
    crawlbase.add(URL, markdown=article(CLAIM), fail_normal=True)  # the JS token is used too
    path = tmp_path / "audit.sqlite"
    audit = AuditLog(path)

    async def scenario():
        async with Verifier(settings(), embedder=LexicalEmbedder(), audit=audit) as verifier:
            await verifier.verify(CLAIM, [URL, DEAD])

    asyncio.run(scenario())
    assert len(audit.rows()) == 2
    audit.close()

    data = b"".join(p.read_bytes() for p in tmp_path.iterdir() if p.name.startswith(path.name))
    assert crawlbase.rid_for(URL, javascript=True).encode() in data  # the file was written
    for secret in secret_values:
        assert secret.encode() not in data
    assert b"storage?" not in data
    assert b"token=" not in data
    columns = {row[1] for row in sqlite3.connect(path).execute("PRAGMA table_info(citations)")}
    assert columns == {
        "id",
        "run_id",
        "checked_at",
        "rid",
        "claim",
        "url",
        "label",
        "confidence",
        "reason",
    }


def test_s1_rows_of_separate_runs_stay_apart(tmp_path):
    verdict = ClaimVerdict(CLAIM, Label.NOT_FOUND, (CitationVerdict(PDF, Label.NOT_FOUND),))
    first = AuditLog(tmp_path / "a.sqlite", run_id="first")
    second = AuditLog(tmp_path / "a.sqlite", run_id="second")
    try:
        assert first.record([verdict]) == 1
        assert second.record([verdict, verdict]) == 2
        assert len(first.rows()) == 1
        assert len(second.rows()) == 2
        assert len(first.rows("second")) == 2
    finally:
        first.close()
        second.close()


@pytest.mark.parametrize("token", ["normal", "js"])
def test_s1_stored_page_read_back_by_rid_with_either_token(
    crawlbase, judge, make_verifier, article, token
):
    page = article(CLAIM)
    crawlbase.add(URL, markdown=page)

    async def crawl():
        async with make_verifier() as verifier:
            return (await verifier.verify(CLAIM, [URL])).citations[0].rid

    rid = asyncio.run(crawl())
    assert rid

    only = {"crawlbase_js_token": None} if token == "normal" else {"crawlbase_token": None}

    async def replay():
        async with make_verifier(**only) as verifier:
            text = await verifier.stored_page(rid)
            return text, verifier.usage

    crawlbase.reset_counters()
    text, usage = asyncio.run(replay())

    assert text == page
    assert crawlbase.storage_count == 1
    assert crawlbase.crawl_count == 0
    assert usage.storage_reads == 1
    assert usage.credits == 0  # reading back is free


def test_s1_unknown_rid_is_stored_page_not_found(crawlbase, judge, make_verifier):
    async def replay():
        async with make_verifier() as verifier:
            await verifier.stored_page("0123456789abcdef")

    with pytest.raises(StoredPageNotFound, match="0123456789abcdef"):
        asyncio.run(replay())


def test_s1_empty_rid_is_refused_without_a_request(crawlbase, judge, make_verifier):
    async def replay():
        async with make_verifier() as verifier:
            await verifier.stored_page("")

    with pytest.raises(ValueError, match="rid"):
        asyncio.run(replay())
    assert crawlbase.storage_count == 0


def test_s1_stored_page_with_a_refused_token_names_the_variable(crawlbase, judge, make_verifier):
    bad = "cb-bad-storage-value-77cc"

    async def replay():
        async with make_verifier(
            crawlbase_token=Secret(bad, "CRAWLBASE_TOKEN"), crawlbase_js_token=None
        ) as verifier:
            await verifier.stored_page("0123456789abcdef")

    with pytest.raises(AuthenticationError, match="CRAWLBASE_TOKEN") as caught:
        asyncio.run(replay())
    assert bad not in str(caught.value) + repr(caught.value)
