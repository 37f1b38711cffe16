"""``pytest-citations batch outputs.jsonl``: a JSONL file of claims, a CSV report, and the two
precision lines on standard output."""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from ..atomic import write_atomically
from ..cases import Case, Claim
from ..gating.criteria import Criteria
from ..gating.deciding import decide_file, precision_of
from ..gating.result import ClaimResult
from ..pipeline.audit import AuditLog
from ..pipeline.settings import Settings
from ..pipeline.verifier import ClaimRequest, Verifier
from ..reports import csv_report
from ..verdicts import ClaimVerdict
from .common import EXIT_CODES, EXIT_FAILED, Subcommands, run_engine
from .progress import Progress
from .verify import add_allow_unchecked, unchecked_exit


@dataclass(frozen=True)
class BatchRecord:
    """One line of a batch file: ``{"id": …, "claim": …, "urls": [...]}``."""

    line: int
    id: str
    claim: str
    urls: tuple[str, ...]


def add(commands: Subcommands, parent: argparse.ArgumentParser) -> None:
    """The ``batch`` subcommand."""
    batch = commands.add_parser(
        "batch",
        parents=[parent],
        help="verify a JSONL file of {id, claim, urls} records",
        description="Verify one claim per line, write a CSV report, and print the citation "
        "and reachable precision on standard output. A bad line is reported with its line "
        "number and skipped.",
        epilog=EXIT_CODES,
    )
    batch.add_argument(
        "input",
        metavar="outputs.jsonl",
        help='JSONL file, one {"id": ..., "claim": ..., "urls": [...]} record a line',
    )
    batch.add_argument("--out", metavar="report.csv", help="CSV report, one row per citation")
    batch.add_argument("--audit", metavar="PATH", help="append verdicts to an SQLite audit index")
    batch.add_argument(
        "--quiet", action="store_true", help="no progress bar (there is none off a terminal)"
    )
    add_allow_unchecked(batch)
    batch.set_defaults(run=run)


def _problem(data: Any) -> str | None:
    """Why a parsed line is not a record, or None."""
    if not isinstance(data, dict):
        return "a record must be a JSON object"
    if not isinstance(data.get("claim"), str) or not data["claim"].strip():
        return "'claim' must be a non-empty string"
    urls = data.get("urls")
    if not isinstance(urls, list) or not all(isinstance(url, str) for url in urls):
        return "'urls' must be a list of strings"
    if isinstance(data.get("id"), dict | list):
        return "'id' must be a string or a number"
    return None


def read_batch(path: Path, errors: TextIO) -> tuple[list[BatchRecord], int]:
    """The valid records of a JSONL file, and how many lines were skipped (each reported
    with its line number: not JSON, nested deeper than the parser follows, or not a
    record). Blank lines are ignored."""
    records: list[BatchRecord] = []
    skipped = 0
    with path.open(encoding="utf-8", errors="replace") as handle:
        for number, raw in enumerate(handle, start=1):
            if not raw.strip():
                continue
            try:
                data = json.loads(raw)
            except json.JSONDecodeError as error:
                problem: str | None = f"invalid JSON ({error.msg})"
            except RecursionError:
                problem = "invalid JSON (nested too deeply to read)"
            else:
                problem = _problem(data)
            if problem is not None:
                skipped += 1
                print(f"{path}:{number}: skipped: {problem}", file=errors)
                continue
            record_id = str(data.get("id", number))
            records.append(
                BatchRecord(number, record_id, data["claim"].strip(), tuple(data["urls"]))
            )
    return records, skipped


def decided(
    source: str, records: list[BatchRecord], verdicts: list[ClaimVerdict], allow_unchecked: bool
) -> list[ClaimResult]:
    """Each record's claim decided as the plugin decides a claim under its default criteria
    (every label but supported fails, an unchecked citation leaves the claim unchecked
    unless the run allows it)."""
    cases = [_case(source, record) for record in records]
    found = decide_file(source, cases, verdicts, Criteria(allow_unchecked=allow_unchecked))
    return [found.claims[(case.id, 1)] for case in cases]


def _write_csv(path: Path, source: str, claims: list[ClaimResult]) -> None:
    """One row per citation, each named by its record's id and line, written atomically:
    000's columns stay as they were, the decision is one of the added ones."""
    table = csv_report.rows(claims, lambda c: (c.where.case, f"{source}:{c.where.line}"))
    write_atomically(path, csv_report.text(table))


def _case(source: str, record: BatchRecord) -> Case:
    """A batch record as a case of one claim citing its URLs."""
    markers = tuple(str(n) for n in range(1, len(record.urls) + 1))
    claim = Claim(1, record.claim, record.urls, markers, record.line)
    return Case(
        id=record.id,
        path=Path(source),
        line=record.line,
        question=None,
        answer=None,
        citations=dict(zip(markers, record.urls, strict=True)),
        claims=(claim,),
    )


def run(args: argparse.Namespace) -> int:
    """Verify every record; costs on standard error, precision on standard output."""

    async def work(settings: Settings) -> int:
        records, skipped = read_batch(Path(args.input), sys.stderr)
        audit = AuditLog(Path(args.audit)) if args.audit else None
        try:
            async with Verifier(settings, audit=audit) as verifier:
                with Progress(sys.stderr, len(records), quiet=args.quiet) as progress:
                    verdicts = await verifier.verify_many(
                        [ClaimRequest.of(r.claim, r.urls) for r in records], progress=progress
                    )
                usage = verifier.usage
        finally:
            if audit is not None:
                audit.close()
        claims = decided(args.input, records, verdicts, args.allow_unchecked)
        if args.out:
            _write_csv(Path(args.out), args.input, claims)
        for line in precision_of(claims).lines():
            print(line)
        print(
            f"claims={len(records)} skipped_lines={skipped} "
            f"crawlbase_credits={usage.credits:g} judge_calls={usage.judge_calls} "
            f"judge_tokens={usage.judge_tokens}",
            file=sys.stderr,
        )
        return EXIT_FAILED if skipped else unchecked_exit(args, verdicts)

    return run_engine(args, work)
