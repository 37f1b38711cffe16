"""The ``pytest-citations`` command: ``verify``, ``batch``, ``replay`` and ``serve``.

Exit codes: 0 done; 1 a claim had a failing label (``verify --fail-on``), a citation could
not be checked (unless ``--allow-unchecked``), some batch lines were skipped, or a stored
page was not found; 2 usage or configuration error (a missing token names its variable, or
a service that cannot be reached); 3 a service refused a credential or the account has no
credits left.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from .aggregate import Precision
from .audit import AuditLog
from .backends import Backends
from .errors import AccountError, CitationsError, ConfigurationError, MissingTokenError
from .fetchers import StoredPageNotFound
from .labels import Label
from .network import TransientError
from .redact import LogRedaction
from .reports import ClaimRecord, csv
from .sanitize import clean
from .settings import Settings
from .verdicts import ClaimVerdict
from .verifier import ClaimRequest, Verifier

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_AUTH = 0, 1, 2, 3

#: The exit codes, shown by ``--help`` of the command and of every subcommand.
EXIT_CODES = (
    "Exit codes: 0 done; 1 failing label, a citation that could not be checked (unless "
    "--allow-unchecked), skipped batch lines or no stored page; 2 usage or configuration "
    "error (missing token, service unreachable); 3 credential refused or no credits left. "
    "Tokens come from CRAWLBASE_TOKEN, CRAWLBASE_JS_TOKEN and OPENAI_API_KEY "
    "(or ANTHROPIC_API_KEY)."
)


#: Request limits as global options (flag, Settings field, type, help). The command line
#: wins over the environment variable named in the help, which wins over the default.
LIMIT_OPTIONS: tuple[tuple[str, str, type[float] | type[int], str], ...] = (
    ("--timeout", "read_timeout", float, "seconds a read may wait (CITATIONS_TIMEOUT, 90)"),
    (
        "--connect-timeout",
        "connect_timeout",
        float,
        "seconds to connect (CITATIONS_CONNECT_TIMEOUT, 10)",
    ),
    (
        "--deadline",
        "deadline",
        float,
        "seconds a request may take in all, retries included (CITATIONS_DEADLINE, 180)",
    ),
    ("--retries", "retries", int, "retries after the first attempt (CITATIONS_RETRIES, 3)"),
    (
        "--max-page-chars",
        "max_page_chars",
        int,
        "characters of a page kept; the rest is cut (CITATIONS_MAX_PAGE_CHARS, 500000)",
    ),
)


@dataclass(frozen=True)
class BatchRecord:
    """One line of a batch file: ``{"id": …, "claim": …, "urls": [...]}``."""

    line: int
    id: str
    claim: str
    urls: tuple[str, ...]


def read_batch(path: Path, errors: TextIO) -> tuple[list[BatchRecord], int]:
    """The valid records of a JSONL file, and how many lines were skipped (each reported
    with its line number). Blank lines are ignored."""
    records: list[BatchRecord] = []
    skipped = 0
    with path.open(encoding="utf-8", errors="replace") as handle:
        for number, raw in enumerate(handle, start=1):
            if not raw.strip():
                continue
            problem = None
            try:
                data = json.loads(raw)
            except json.JSONDecodeError as error:
                problem = f"invalid JSON ({error.msg})"
            else:
                if not isinstance(data, dict):
                    problem = "a record must be a JSON object"
                elif not isinstance(data.get("claim"), str) or not data["claim"].strip():
                    problem = "'claim' must be a non-empty string"
                elif not isinstance(data.get("urls"), list) or not all(
                    isinstance(url, str) for url in data["urls"]
                ):
                    problem = "'urls' must be a list of strings"
            if problem is not None:
                skipped += 1
                print(f"{path}:{number}: skipped: {problem}", file=errors)
                continue
            record_id = str(data.get("id", number))
            records.append(
                BatchRecord(number, record_id, data["claim"].strip(), tuple(data["urls"]))
            )
    return records, skipped


class ProgressBar:
    """A one-line progress bar on a stream (redrawn on a terminal, sparse lines otherwise)."""

    def __init__(self, stream: TextIO, total: int, width: int = 30) -> None:
        self.stream = stream
        self.total = total
        self.width = width
        self.tty = stream.isatty()
        self._last_tenth = -1

    def __call__(self, done: int, total: int) -> None:
        filled = self.width * done // max(total, 1)
        bar = "#" * filled + "." * (self.width - filled)
        if self.tty:
            end = "\n" if done == total else ""
            self.stream.write(f"\r[{bar}] {done}/{total} claims{end}")
            self.stream.flush()
            return
        tenth = 10 * done // max(total, 1)
        if tenth != self._last_tenth or done == total:
            self._last_tenth = tenth
            self.stream.write(f"[{bar}] {done}/{total} claims\n")


async def _verify(args: argparse.Namespace, settings: Settings) -> int:
    audit = AuditLog(Path(args.audit)) if args.audit else None
    try:
        async with Verifier(settings, audit=audit) as verifier:
            verdict = await verifier.verify(args.claim, args.urls)
    finally:
        if audit is not None:
            audit.close()
    print(json.dumps(clean(verdict.to_dict()), indent=2, ensure_ascii=False))
    if verdict.label.value in _fail_on(args):
        return EXIT_FAILED
    return _unchecked_exit(args, [verdict])


def _unchecked_exit(args: argparse.Namespace, verdicts: Sequence[ClaimVerdict]) -> int:
    """A check that could not run is not a pass: exit 1 and say so, unless allowed."""
    unchecked = sum(len(verdict.unchecked) for verdict in verdicts)
    if not unchecked or args.allow_unchecked:
        return EXIT_OK
    print(
        f"pytest-citations: {unchecked} citation(s) could not be checked (see their reasons); "
        "fix the cause and run again, or pass --allow-unchecked",
        file=sys.stderr,
    )
    return EXIT_FAILED


def _fail_on(args: argparse.Namespace) -> set[str]:
    """The labels of ``verify --fail-on`` (comma-separated)."""
    return {label.strip() for label in (args.fail_on or "").split(",") if label.strip()}


async def _batch(args: argparse.Namespace, settings: Settings) -> int:
    records, skipped = read_batch(Path(args.input), sys.stderr)
    audit = AuditLog(Path(args.audit)) if args.audit else None
    try:
        async with Verifier(settings, audit=audit) as verifier:
            verdicts = await verifier.verify_many(
                [ClaimRequest.of(r.claim, r.urls) for r in records],
                progress=None if args.quiet else ProgressBar(sys.stderr, len(records)),
            )
            usage = verifier.usage
    finally:
        if audit is not None:
            audit.close()
    if args.out:
        claims = [
            ClaimRecord(
                nodeid=f"{args.input}:{record.line}",
                file=args.input,
                case=record.id,
                index=record.line,
                line=record.line,
                claim=verdict.claim,
                label=verdict.label.value,
                citations=verdict.citations,
            )
            for record, verdict in zip(records, verdicts, strict=True)
        ]
        # 000's batch report names each row by the record's id.
        csv.write_rows(Path(args.out), csv.rows(claims, {c.nodeid: c.case for c in claims}))
    precision = Precision.of(c.label for v in verdicts for c in v.citations)
    for line in precision.lines():
        print(line)
    print(
        f"claims={len(records)} skipped_lines={skipped} crawlbase_credits={usage.credits:g} "
        f"judge_calls={usage.judge_calls} judge_tokens={usage.judge_tokens}",
        file=sys.stderr,
    )
    return EXIT_FAILED if skipped else _unchecked_exit(args, verdicts)


async def _replay(args: argparse.Namespace, settings: Settings) -> int:
    async with Verifier(settings) as verifier:
        try:
            markdown = await verifier.stored_page(args.rid)
        except StoredPageNotFound as error:
            print(f"pytest-citations: {error}", file=sys.stderr)
            return EXIT_FAILED
    sys.stdout.write(markdown)
    if not markdown.endswith("\n"):
        sys.stdout.write("\n")
    return EXIT_OK


def _serve(args: argparse.Namespace) -> int:
    try:
        from .service import serve
    except ImportError:  # pragma: no cover - depends on the optional extra
        print(
            "pytest-citations: serve needs: pip install 'pytest-citations[service]'",
            file=sys.stderr,
        )
        return EXIT_USAGE
    serve(args.host, args.port)
    return EXIT_OK


def build_parser() -> argparse.ArgumentParser:
    """The argument parser, with ``--help`` for every command."""
    parser = argparse.ArgumentParser(
        prog="pytest-citations",
        description="Verify that cited pages support claims (Crawlbase + an LLM judge).",
        epilog=EXIT_CODES,
    )
    parser.add_argument("--judge", help="judge provider (default: JUDGE_PROVIDER or openai)")
    parser.add_argument("--model", help="judge model")
    parser.add_argument("--concurrency", type=int, help="requests in flight (default 4)")
    for flag, field, kind, text in LIMIT_OPTIONS:
        parser.add_argument(flag, dest=field, type=kind, metavar="N", help=text)
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    verify = commands.add_parser(
        "verify",
        help="verify one claim; prints 000's /verify JSON",
        description="Verify CLAIM against URLs and print the /verify response as JSON.",
        epilog=EXIT_CODES,
    )
    verify.add_argument("claim")
    verify.add_argument("urls", nargs="+", metavar="URL")
    verify.add_argument("--fail-on", help="comma-separated claim labels that exit 1")
    verify.add_argument("--audit", metavar="PATH", help="append verdicts to an SQLite audit index")
    verify.add_argument(
        "--allow-unchecked",
        action="store_true",
        help="exit 0 even when a citation could not be checked (fetch or judge errors)",
    )

    batch = commands.add_parser(
        "batch",
        help="verify a JSONL file of {id, claim, urls} records",
        description="000's batch mode: one record per line, a CSV report, and the two "
        "precision lines on standard output.",
        epilog=EXIT_CODES,
    )
    batch.add_argument("input", metavar="outputs.jsonl")
    batch.add_argument("--out", metavar="report.csv", help="CSV report, one row per citation")
    batch.add_argument("--audit", metavar="PATH", help="append verdicts to an SQLite audit index")
    batch.add_argument("--quiet", action="store_true", help="no progress bar")
    batch.add_argument(
        "--allow-unchecked",
        action="store_true",
        help="exit 0 even when citations could not be checked (fetch or judge errors)",
    )

    replay = commands.add_parser(
        "replay",
        help="print a stored page's markdown by rid (Storage API)",
        description="Read a page stored with store=true back from the Crawlbase Storage API.",
        epilog=EXIT_CODES,
    )
    replay.add_argument("rid")

    serve = commands.add_parser(
        "serve",
        help="run the /verify HTTP service (extra: service)",
        description="GET /health and POST /verify; a missing token answers 503.",
        epilog=EXIT_CODES,
    )
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=8000)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``pytest-citations`` command."""
    args = build_parser().parse_args(argv)
    if args.command == "serve":
        return _serve(args)
    if args.command == "verify":
        known = [label.value for label in Label]
        unknown = sorted(_fail_on(args) - set(known))
        if unknown:  # a typo must not turn the gate off
            print(
                f"pytest-citations: --fail-on: unknown label {unknown[0]!r}; choose from "
                + ", ".join(known),
                file=sys.stderr,
            )
            return EXIT_USAGE
    overrides: dict[str, Any] = {}
    if args.judge:
        overrides["judge_provider"] = args.judge
    if args.model:
        overrides["judge_model"] = args.model
    if args.concurrency:
        overrides["concurrency"] = args.concurrency
    for _, field, _, _ in LIMIT_OPTIONS:
        if getattr(args, field) is not None:
            overrides[field] = getattr(args, field)
    try:
        settings = Settings.from_env(**overrides)
    except ConfigurationError as error:
        print(f"pytest-citations: {error}", file=sys.stderr)
        return EXIT_USAGE
    runner = {"verify": _verify, "batch": _batch, "replay": _replay}[args.command]
    with LogRedaction(settings.redactor()):
        try:
            missing = Backends().missing(settings)
            if args.command in ("verify", "batch") and missing:
                # Before the first paid crawl, and every missing variable at once: a missing
                # judge key must not cost credits, nor a second run to learn of the next one.
                raise MissingTokenError(missing, "Set them in the environment.")
            return asyncio.run(runner(args, settings))
        except MissingTokenError as error:
            print(f"pytest-citations: {error}", file=sys.stderr)
            return EXIT_USAGE
        except AccountError as error:
            print(f"pytest-citations: {error}", file=sys.stderr)
            return EXIT_AUTH
        except (CitationsError, TransientError, OSError) as error:
            print(f"pytest-citations: {error}", file=sys.stderr)
            return EXIT_USAGE


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
