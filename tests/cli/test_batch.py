"""``pytest-citations batch outputs.jsonl --out report.csv`` (issue 5, 000's batch mode, A3).

The fixture has 9 claim–URL pairs: 2 supported, 3 unreachable (two origin 404s and a soft
404), 2 not_found (the judge's, and a PDF), 1 partial and 1 contradicted, so 000's two lines
read ``citation_precision=0.2222 (2/9)`` and ``reachable_precision=0.3333 (2/6)``.
The real console script runs in a subprocess against the emulators on 127.0.0.1.
"""

from __future__ import annotations

import contextlib
import csv
import io
import json
import re
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from ops_support import (
    BOILING_URL,
    CONTRADICTED_CLAIM,
    GONE_URL,
    NOT_FOUND_CLAIM,
    OLD_REPORT_URL,
    PARTIAL_CLAIM,
    PDF_URL,
    REFUNDS_CLAIM,
    REFUNDS_URL,
    RETURNS_URL,
    SECRETS,
    SOFT_404_URL,
    SUPPORTED_CLAIM,
    Run,
    Web,
    emulators,
    run_cli,
)

CSV_HEADER = "case,claim,url,label,reason,confidence,final_url,original_status,rid"
PRECISION_LINES = "citation_precision=0.2222 (2/9)\nreachable_precision=0.3333 (2/6)\n"

#: The five valid records, in file order: (id, claim, urls).
RECORDS = [
    ("boil", SUPPORTED_CLAIM, [BOILING_URL, OLD_REPORT_URL]),
    ("refunds", REFUNDS_CLAIM, [REFUNDS_URL, GONE_URL]),
    ("mountains", CONTRADICTED_CLAIM, [BOILING_URL]),
    ("returns", PARTIAL_CLAIM, [RETURNS_URL]),
    ("software", NOT_FOUND_CLAIM, [RETURNS_URL, SOFT_404_URL, PDF_URL]),
]

#: (id, url) -> (label, reason) of every citation.
EXPECTED = {
    ("boil", BOILING_URL): ("supported", ""),
    ("boil", OLD_REPORT_URL): ("unreachable", "http_404"),
    ("refunds", REFUNDS_URL): ("supported", ""),
    ("refunds", GONE_URL): ("unreachable", "http_404"),
    ("mountains", BOILING_URL): ("contradicted", ""),
    ("returns", RETURNS_URL): ("partial", ""),
    ("software", RETURNS_URL): ("not_found", ""),
    ("software", SOFT_404_URL): ("unreachable", "soft_404"),
    ("software", PDF_URL): ("not_found", "pdf_unsupported"),
}


def record_line(record_id: str, claim: str, urls: list[str]) -> str:
    return json.dumps({"id": record_id, "claim": claim, "urls": urls}, ensure_ascii=False)


def clean_jsonl() -> str:
    return "".join(record_line(*record) + "\n" for record in RECORDS)


#: The same records with broken lines between them; the numbers are the file's line numbers.
DIRTY_LINES = [
    record_line(*RECORDS[0]),  # 1
    '{"id": "broken", "claim": "Water boils',  # 2: broken JSON
    record_line(*RECORDS[1]),  # 3
    json.dumps({"id": "no-claim", "urls": [BOILING_URL]}),  # 4: no claim
    "",  # 5: blank, ignored
    record_line(*RECORDS[2]),  # 6
    json.dumps({"id": "one-url", "claim": SUPPORTED_CLAIM, "urls": BOILING_URL}),  # 7
    record_line(*RECORDS[3]),  # 8
    json.dumps([SUPPORTED_CLAIM, [BOILING_URL]]),  # 9: not an object
    record_line(*RECORDS[4]),  # 10
]


def read_csv(path: Path) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(path.read_text(encoding="utf-8"))))


@dataclass
class Batch:
    """A finished batch run: the command's output, its files and the emulators it used."""

    run: Run
    web: Web
    csv_path: Path
    audit_path: Path


def _batch(tmp: Path, text: str, *extra: str) -> Iterator[Batch]:
    with emulators(tmp) as web:
        source = tmp / "outputs.jsonl"
        source.write_text(text, encoding="utf-8")
        csv_path = tmp / "out" / "report.csv"  # the folder does not exist yet
        audit_path = tmp / "audit.sqlite"
        run = run_cli(
            "batch",
            str(source),
            "--out",
            str(csv_path),
            "--audit",
            str(audit_path),
            *extra,
            env=web.env,
            cwd=tmp,
        )
        yield Batch(run, web, csv_path, audit_path)


@pytest.fixture(scope="module")
def clean(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Batch]:
    """The five valid records, run once for the module."""
    yield from _batch(tmp_path_factory.mktemp("clean"), clean_jsonl())


@pytest.fixture(scope="module")
def dirty(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Batch]:
    """The five valid records among four bad lines and a blank one."""
    yield from _batch(tmp_path_factory.mktemp("dirty"), "\n".join(DIRTY_LINES) + "\n")


def test_stdout_is_exactly_the_two_precision_lines_of_000(clean: Batch) -> None:
    assert clean.run.returncode == 0, clean.run.stderr
    assert clean.run.stdout == PRECISION_LINES
    clean.run.assert_no_secret()


def test_csv_has_one_row_per_citation_with_000s_columns(clean: Batch) -> None:
    text = clean.csv_path.read_text(encoding="utf-8")
    assert text.splitlines()[0].startswith(CSV_HEADER)  # 000's columns first, in order
    rows = read_csv(clean.csv_path)

    assert len(rows) == 9
    # In record order, then citation order.
    expected_order = [(rid, url) for rid, _, urls in RECORDS for url in urls]
    assert [(row["case"], row["url"]) for row in rows] == expected_order
    claims = {record_id: claim for record_id, claim, _ in RECORDS}
    crawlbase = clean.web.crawlbase
    for row in rows:
        key = (row["case"], row["url"])
        assert (row["label"], row["reason"]) == EXPECTED[key], key
        assert row["claim"] == claims[row["case"]]
        assert 0.0 <= float(row["confidence"]) <= 1.0
        if row["url"] == PDF_URL:  # never fetched (F7): no final URL, status or rid
            assert (row["final_url"], row["original_status"], row["rid"]) == ("", "", "")
        else:
            assert row["final_url"] == row["url"]
            assert row["rid"] == crawlbase.rid_for(row["url"])
            assert crawlbase.stored(row["rid"]) is not None
            expected_status = "404" if row["reason"] == "http_404" else "200"
            assert row["original_status"] == expected_status
    assert sum(row["label"] == "supported" for row in rows) == 2
    assert sum(row["label"] == "unreachable" for row in rows) == 3
    # The claim's decision under the default criteria: every label but supported fails
    # (here contradicted, partial and not_found).
    for row in rows:
        expected = "pass" if row["claim_label"] == "supported" else "fail"
        assert row["decision"] == expected, row
    assert {row["claim_label"] for row in rows if row["decision"] == "fail"} == {
        "contradicted", "partial", "not_found",
    }  # fmt: skip
    assert {row["decision"] for row in rows} == {"pass", "fail"}


def test_costs_on_stderr_match_what_the_emulators_billed(clean: Batch) -> None:
    web = clean.web
    found = re.search(
        r"claims=5 skipped_lines=0 crawlbase_credits=(\S+) judge_calls=(\d+) judge_tokens=(\d+)",
        clean.run.stderr,
    )

    assert found, clean.run.stderr
    assert float(found[1]) == web.crawlbase.credits > 0
    assert int(found[2]) == web.judge.call_count > 0
    assert int(found[3]) == web.judge.tokens["total"] > 0
    # Each distinct URL is crawled once although the boiling and returns pages are cited twice.
    assert web.crawlbase.count(BOILING_URL) == 1
    assert web.crawlbase.count(RETURNS_URL) == 1
    assert web.crawlbase.count(PDF_URL) == 0


def test_no_progress_bar_off_a_terminal(clean: Batch) -> None:
    # Standard error is a pipe here: a log gets no redrawn bar, only the costs line.
    assert "claim/s" not in clean.run.stderr
    assert "\r" not in clean.run.stderr
    assert "claims=5" in clean.run.stderr


def test_audit_index_has_a_row_per_citation_and_no_secret(clean: Batch) -> None:
    data = clean.audit_path.read_bytes()
    for variable, value in SECRETS.items():
        assert value.encode() not in data, f"the value of {variable} is in the audit index"
    assert b"storage?token" not in data  # only the rid of storage_url is kept (F8)

    with contextlib.closing(sqlite3.connect(clean.audit_path)) as db:
        rows = db.execute("SELECT rid, claim, url, label, confidence, checked_at FROM citations")
        stored = rows.fetchall()
    assert len(stored) == 9
    by_key = {(claim, url): (rid, label) for rid, claim, url, label, _, _ in stored}
    crawlbase = clean.web.crawlbase
    assert by_key[(SUPPORTED_CLAIM, BOILING_URL)] == (crawlbase.rid_for(BOILING_URL), "supported")
    assert by_key[(NOT_FOUND_CLAIM, PDF_URL)] == ("", "not_found")  # kept with an empty rid (S1)
    assert all(checked_at for *_, checked_at in stored)


def test_bad_lines_are_reported_with_their_number_and_skipped(dirty: Batch) -> None:
    run = dirty.run

    assert run.returncode == 1
    skipped = re.findall(r"outputs\.jsonl:(\d+): skipped: (.+)$", run.stderr, re.MULTILINE)
    assert [int(number) for number, _ in skipped] == [2, 4, 7, 9]
    reasons = dict(skipped)
    assert "JSON" in reasons["2"]
    assert "claim" in reasons["4"]
    assert "urls" in reasons["7"]
    assert "object" in reasons["9"]
    assert "skipped_lines=4" in run.stderr
    run.assert_no_secret()


def test_the_other_lines_are_still_processed(dirty: Batch) -> None:
    assert dirty.run.stdout == PRECISION_LINES  # all five good records, around the bad ones
    rows = read_csv(dirty.csv_path)
    assert [row["case"] for row in rows] == [rid for rid, _, urls in RECORDS for _ in urls]
    assert {(row["case"], row["url"]): (row["label"], row["reason"]) for row in rows} == EXPECTED


def test_batch_without_crawlbase_token_stops_before_any_request(web: Web, tmp_path: Path) -> None:
    source = tmp_path / "outputs.jsonl"
    source.write_text(clean_jsonl(), encoding="utf-8")
    report = tmp_path / "report.csv"

    run = run_cli("batch", str(source), "--out", str(report), env=web.without("CRAWLBASE_TOKEN"))

    assert run.returncode == 2
    assert "CRAWLBASE_TOKEN" in run.stderr
    assert run.stdout == ""
    assert not report.exists()
    assert web.crawlbase.crawl_count == 0
    run.assert_no_secret()


def test_a_missing_input_file_is_a_usage_error(web: Web, tmp_path: Path) -> None:
    run = run_cli("batch", str(tmp_path / "missing.jsonl"), env=web.env)

    assert run.returncode == 2
    assert "missing.jsonl" in run.stderr
    run.assert_no_secret()


def test_a_budget_caps_the_judge_calls_a_batch_sends(tmp_path: Path) -> None:
    """``--max-judge-calls`` (a global option, like the request limits): the judge gets that
    many calls and no more; the citations it could not judge are ``over_budget`` and, like
    any citation that could not be checked, make the command exit 1."""
    for batch in _batch(tmp_path, clean_jsonl(), "--max-judge-calls", "2"):
        rows = read_csv(batch.csv_path)

        assert batch.web.judge.call_count == 2
        assert [row["reason"] for row in rows].count("over_budget") == 3
        assert batch.run.returncode == 1
        assert "judge_calls=2 " in batch.run.stderr
        batch.run.assert_no_secret()
