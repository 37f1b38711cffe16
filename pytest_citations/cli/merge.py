"""``pytest-citations merge REPORT.json…``: the JSON reports of a run's shards
(``pytest --citations --citations-shard K/N`` on N CI runners) merged into the reports of
one run. The run is decided again from every claim, as one serial run would decide it: its
precision, supported share, thresholds, the judge's agreement, the baseline's precision and
the comparison with the base, and the release decision (the run's is never added up from
the shards'). Each claim's and case's decision is decided again from what the shard found of
its claims (:mod:`~pytest_citations.gating.redecision`), never read from the report. Its exit
status is the merged decision's, as pytest's would be: 0 pass, 1 fail or incomplete; 2 when
it refuses the inputs."""

from __future__ import annotations

import argparse
from dataclasses import replace
from pathlib import Path

from ..errors import CitationsError
from ..gating.base_report import load_base
from ..gating.conclusion import Base, conclude
from ..gating.decisions import RunDecision
from ..gating.redecision import decide_again
from ..gating.regression_lines import comparison_lines
from ..gating.release import release_of
from ..gating.run_report import RunReport
from ..gating.shards import Shard, holding_problems, identity_problems, shard_problems
from ..pipeline.audit import new_run_id
from ..precision import Precision
from ..reports import WRITERS, RunInfo, junit_report
from ..reports.info import BaselineLabels
from ..reports.json_reader import ReadReport, read_report
from ..reports.terminal import summary_lines
from ..sanitize import strip_controls
from .common import EXIT_CODES, EXIT_FAILED, EXIT_OK, EXIT_USAGE, Subcommands, say

#: The last line when a report states decisions its claims do not make.
DISAGREEING = (
    "a report states decisions its own claims do not make: it was edited after its run, or "
    "written by another version of pytest-citations (run the shards and the merge with one)"
)


def _flag(name: str) -> str:
    """Each report format's flag, as the plugin names it (the JSON report's is --report)."""
    return "--report" if name == "json" else f"--{name}"


def add(commands: Subcommands, parent: argparse.ArgumentParser) -> None:
    """The ``merge`` subcommand."""
    merge = commands.add_parser(
        "merge",
        parents=[parent],
        help="merge the JSON reports of a run's shards (--citations-shard) into one run's",
        description="Merge the JSON reports of every shard of one run (pytest --citations "
        "--citations-shard K/N --citations-report shard-K.json on N runners) into the reports "
        "of the whole run, decided again from every claim: precision, thresholds, acceptance "
        "criteria, the judge's agreement, the baseline and the comparison with the base, and "
        "the release decision. Prints the run's summary as pytest would.",
        epilog=EXIT_CODES + " Merge exits with the merged decision's status (0 pass, 1 fail "
        "or incomplete), and 2 when it refuses the inputs: a report that cannot be read, holds "
        "a value no run writes or states a decision its claims do not make, a shard missing, "
        "given twice or holding nothing of a file it ran, or shards of different runs (named "
        "by what differs: settings, case files, cassettes).",
    )
    merge.add_argument("reports", nargs="+", metavar="REPORT.json", help="a shard's JSON report")
    # Every report format the plugin writes: a format registered in WRITERS gets its flag
    # here too (--markdown PATH is the Markdown summary's).
    for name in WRITERS:
        plugin = "--citations-report" if name == "json" else f"--citations-{name}"
        said = f"write the report {plugin} writes"
        merge.add_argument(_flag(name), dest=f"out_{name}", metavar="PATH", help=said)
    merge.add_argument("--junitxml", metavar="PATH", help="write a JUnit XML file of the run")
    merge.add_argument(
        "--compare",
        metavar="BASE.json",
        help="the base the shards were compared with (--citations-compare), to compare the "
        "merged run with it",
    )
    merge.set_defaults(run=run)


def merge_problems(reads: list[ReadReport]) -> list[str]:
    """Why the reports are not the shards of one run (empty when they are): a report that
    is no shard's, shards missing, repeated or of other files, shards of runs made
    otherwise (named by what differs), a shard that holds nothing of a file it ran."""
    plain = [read.name for read in reads if read.shard is None]
    if plain:
        return [
            f"{name} is not a shard's report (run pytest with --citations-shard K/N)"
            for name in plain
        ]
    problems = shard_problems([read.shard for read in reads if read.shard is not None])
    problems += identity_problems([(read.name, read.identity) for read in reads])
    for read in reads:
        if read.shard is not None:
            problems += holding_problems(read.shard, _held(read.report))
    return problems


def _held(report: RunReport) -> set[str]:
    """The case files a report holds anything of: a case, why it was not verified, an item
    the selection left out or that did not run."""
    nodeids = [*report.skipped_items, *report.deselected]
    return (
        {case.file for case in report.cases}
        | set(report.file_errors)
        | {nodeid.split("::", 1)[0] for nodeid in nodeids}
    )


def decided_again(reads: list[ReadReport]) -> tuple[list[ReadReport], list[str]]:
    """Each shard's report decided again from its claims (never from what it states of its
    cases or of the run), and every stated decision the claims do not make, named."""
    found, problems = [], []
    for read in reads:
        again = decide_again(read.report, read.info.gates.criteria)
        found.append(replace(read, report=again.report))
        problems += [f"{read.name}: {line}" for line in again.disagreements]
    return found, problems


def _shard_entry(read: ReadReport) -> dict[str, object]:
    """What the merged report's ``run.merged`` says of one shard."""
    shard = read.shard.shard if read.shard is not None else None
    return {
        "index": shard.index if shard else None,
        "count": shard.count if shard else None,
        "run_id": read.info.run_id,
        "started": read.info.started,
        "report": read.name,
    }


def merged_run(
    reads: list[ReadReport], base: Base | None
) -> tuple[RunReport, RunDecision, RunInfo]:
    """The merged report, the run's decision, and its metadata (with what it measured)."""
    report = RunReport()
    stored: dict[str, Precision] = {}
    for read in reads:
        report.absorb(read.report)
        stored.update(read.baseline[0] if read.baseline else {})
    first = reads[0].info
    baseline = BaselineLabels(stored, reads[0].baseline[1]) if reads[0].baseline else None
    conclusion = conclude(report, first.gates, base)
    shards = sorted(reads, key=lambda read: read.shard.shard if read.shard else Shard(0, 0))
    info = replace(
        first,
        started=min(read.info.started for read in reads),
        run_id=new_run_id(),
        agreement=conclusion.agreement,
        baseline=baseline,
        comparison=conclusion.comparison,
        merged=tuple(_shard_entry(read) for read in shards),
    )
    return report, conclusion.decision, info


def _base(args: argparse.Namespace, reads: list[ReadReport]) -> Base | None:
    """The base to compare the merged run with: ``--compare``, which the shards need when
    they were compared with one (named as the shards named it)."""
    compared = reads[0].info.gates.compare
    if args.compare is None:
        if compared is not None:
            raise CitationsError(
                f"the shards were compared with {compared}: give it to the merge with "
                f"--compare {compared}"
            )
        return None
    return Base(load_base(Path(args.compare)), compared or args.compare)


def _write(args: argparse.Namespace, report: RunReport, decision: RunDecision,
           info: RunInfo) -> None:  # fmt: skip
    writers = {**WRITERS, "junitxml": junit_report.write}
    for name, write in writers.items():
        path = getattr(args, "junitxml" if name == "junitxml" else f"out_{name}")
        if path:
            write(Path(path), report, decision, info)


def run(args: argparse.Namespace) -> int:
    """Read, check, merge, write, print; exit with the merged decision's status."""
    try:
        reads = [read_report(Path(path), path) for path in args.reports]
        problems = merge_problems(reads)
        if not problems:
            reads, problems = decided_again(reads)
            if problems:
                problems.append(DISAGREEING)
        if problems:
            for problem in problems:
                say(problem)
            return EXIT_USAGE
        report, decision, info = merged_run(reads, _base(args, reads))
        _write(args, report, decision, info)
    except CitationsError as error:
        say(error)
        return EXIT_USAGE
    shards = reads[0].shard
    count = shards.shard.count if shards is not None else len(reads)
    files = shards.run_files if shards is not None else 0
    print(f"merged {len(reads)} shard reports of one run ({count} shards, {files} files)")
    comparison = info.comparison
    for line in summary_lines(
        report,
        decision,
        comparison=comparison_lines(comparison) if comparison is not None else (),
        calibration=info.agreement.lines() if info.agreement is not None else (),
        report_path=args.out_json,
        min_precision=info.gates.criteria.min_precision,
    ):
        print(strip_controls(line.text))
    return EXIT_FAILED if release_of(report, decision).failed else EXIT_OK
