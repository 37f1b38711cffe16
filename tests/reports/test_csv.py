"""``--citations-csv PATH`` (issue 5): one row per citation, in the columns of 000's batch
report (case, claim, url, label, reason, confidence, final_url, original_status, rid), then
(issue 11) the claim's id, the claim's label, the evidence quote and the claim's decision.

A nine-citation case is recorded against the emulators and replayed offline, and the shipped
examples are replayed from their cassettes; ``pytest --citations`` runs in a subprocess.
"""

from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from ops_support import (
    BOILING_URL,
    CONTRADICTED_CLAIM,
    GONE_URL,
    NINE_CASE,
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
    base_env,
    copy_examples,
    emulators,
    run_pytest,
)

from pytest_citations.sandbox import rid_for

#: 000's nine columns, in 000's order.
HEADER_000 = [
    "case",
    "claim",
    "url",
    "label",
    "reason",
    "confidence",
    "final_url",
    "original_status",
    "rid",
]
#: ...and the four issue 11 adds after them.
HEADER = [*HEADER_000, "claim_id", "claim_label", "evidence_quote", "decision"]


#: (claim, url, label, reason) of the nine rows, in claim then citation order.
NINE_ROWS = [
    (SUPPORTED_CLAIM, BOILING_URL, "supported", ""),
    (SUPPORTED_CLAIM, OLD_REPORT_URL, "unreachable", "http_404"),
    (REFUNDS_CLAIM, REFUNDS_URL, "supported", ""),
    (REFUNDS_CLAIM, GONE_URL, "unreachable", "http_404"),
    (CONTRADICTED_CLAIM, BOILING_URL, "contradicted", ""),
    (PARTIAL_CLAIM, RETURNS_URL, "partial", ""),
    (NOT_FOUND_CLAIM, RETURNS_URL, "not_found", ""),
    (NOT_FOUND_CLAIM, SOFT_404_URL, "unreachable", "soft_404"),
    (NOT_FOUND_CLAIM, PDF_URL, "not_found", "pdf_unsupported"),
]
#: (claim id, claim label, decision) of the same rows: the default fail_on fails every label
#: but supported, so claim-3 (contradicted), claim-4 (partial) and claim-5 (not_found) fail.
NINE_CLAIMS = [
    *[("cases/nine.yaml::nine::claim-1", "supported", "pass")] * 2,
    *[("cases/nine.yaml::nine::claim-2", "supported", "pass")] * 2,
    ("cases/nine.yaml::nine::claim-3", "contradicted", "fail"),
    ("cases/nine.yaml::nine::claim-4", "partial", "fail"),
    *[("cases/nine.yaml::nine::claim-5", "not_found", "fail")] * 3,
]
#: Labels whose verdicts carry the judge's evidence quote; the others have none.
QUOTED = {"supported", "partial", "contradicted"}


def read_rows(path: Path) -> tuple[list[str], list[dict[str, str]]]:
    text = path.read_text(encoding="utf-8")
    reader = csv.DictReader(io.StringIO(text))
    rows = list(reader)
    return list(reader.fieldnames or []), rows


def expected_row(case: str, claim: dict[str, Any], citation: dict[str, Any]) -> dict[str, str]:
    """What the CSV must say about one citation of the JSON report."""
    status = citation["original_status"]
    return {
        "case": case,
        "claim": claim["claim"],
        "url": citation["url"],
        "label": citation["label"],
        "reason": citation["reason"] or "",
        "confidence": f"{citation['confidence']:.4f}",
        "final_url": citation["final_url"] or "",
        "original_status": "" if status is None else str(status),
        "rid": citation["rid"] or "",
        "claim_id": claim["nodeid"],
        "claim_label": claim["label"],
        "evidence_quote": citation["evidence_quote"] or "",
        "decision": claim["decision"],
    }


@dataclass
class Nine:
    recording: Run
    replay: Run
    recorded_csv: Path
    replayed_csv: Path


@pytest.fixture(scope="module")
def nine(tmp_path_factory: pytest.TempPathFactory) -> Nine:
    project = tmp_path_factory.mktemp("nine")
    (project / "cases").mkdir()
    (project / "cases" / "nine.yaml").write_text(NINE_CASE, encoding="utf-8")
    with emulators(project) as web:
        recording = run_pytest(
            project,
            "cases/",
            "--citations-record=once",
            "--citations-csv",
            "recorded.csv",
            env=web.env,
        )
    # The emulators are gone and no token is set: the replay is offline.
    replay = run_pytest(
        project, "cases/", "--citations-csv", "out/replayed.csv", env=base_env(project)
    )
    return Nine(recording, replay, project / "recorded.csv", project / "out" / "replayed.csv")


def test_recorded_run_writes_one_row_per_citation(nine: Nine) -> None:
    # The default gate fails claim-3 (contradicted), claim-4 (partial), claim-5 (not_found).
    assert nine.recording.returncode == 1, nine.recording.stdout
    assert "citation_precision=0.2222 (2/9)" in nine.recording.stdout
    header, rows = read_rows(nine.recorded_csv)

    assert header == HEADER
    assert [(r["claim"], r["url"], r["label"], r["reason"]) for r in rows] == NINE_ROWS
    assert {row["case"] for row in rows} == {"cases/nine.yaml::nine"}
    assert [(r["claim_id"], r["claim_label"], r["decision"]) for r in rows] == NINE_CLAIMS
    for row in rows:
        assert bool(row["evidence_quote"]) == (row["label"] in QUOTED), row
        if row["url"] == PDF_URL:
            assert (row["final_url"], row["original_status"], row["rid"]) == ("", "", "")
            continue
        assert row["final_url"] == row["url"]
        assert row["rid"] == rid_for(row["url"])  # the stored page of the normal crawl
        assert row["original_status"] == ("404" if row["reason"] == "http_404" else "200")
        assert 0 <= float(row["confidence"]) <= 1
    text = nine.recorded_csv.read_text(encoding="utf-8")
    for value in SECRETS.values():
        assert value not in text


def test_replay_writes_the_same_csv(nine: Nine) -> None:
    assert nine.replay.returncode == 1, nine.replay.stdout
    assert "replayed:" in nine.replay.stdout

    assert nine.replayed_csv.read_bytes() == nine.recorded_csv.read_bytes()


def test_shipped_examples_csv_matches_the_json_report(tmp_path: Path) -> None:
    copy_examples(tmp_path)

    run = run_pytest(
        tmp_path,
        "cases/",
        "--citations-csv",
        "report.csv",
        "--citations-report",
        "report.json",
        env=base_env(tmp_path, lexical=False),
        lexical=False,
    )

    assert run.returncode == 1, run.stdout
    report = json.loads((tmp_path / "report.json").read_text(encoding="utf-8"))
    expected = [
        expected_row(f"{case['file']}::{case['id']}", claim, citation)
        for case in report["cases"]
        for claim in case["claims"]
        for citation in claim["citations"]
    ]
    header, rows = read_rows(tmp_path / "report.csv")
    assert header == HEADER
    assert len(rows) == report["summary"]["citations"] > 0
    assert rows == expected
    # The new columns are not empty by accident: both decisions and quotes are there.
    assert {row["decision"] for row in rows} == {"pass", "fail"}
    assert sum(bool(row["evidence_quote"]) for row in rows) >= 5
