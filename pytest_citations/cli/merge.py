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
import os
from dataclasses import replace
from pathlib import Path

from ..errors import CitationsError
from ..gating.base_report import read_base
from ..gating.build import Findings, build_run
from ..gating.precision import Precision
from ..gating.redecision import decide_again
from ..gating.run_result import Base, BaselineFacts, RunResult
from ..gating.shards import Shard, holding_problems, identity_problems, shard_problems
from ..pipeline.audit import new_run_id
from ..reports import RENDERERS, RunInfo, junit_report, write_report
from ..reports.info import SourceLinks
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
    # Every report format the plugin writes: a format registered in RENDERERS gets its flag
    # here too (--markdown PATH is the Markdown summary's).
    for name in RENDERERS:
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
    merge.add_argument(
        "--source-sha",
        metavar="SHA",
        help="the commit the reports link each claim's line at under GitHub Actions: a pull "
        "request's head (default CITATIONS_SOURCE_SHA, else GITHUB_SHA)",
    )
    merge.add_argument(
        "--artifact",
        metavar="NAME",
        help="the artifact the reports are uploaded as, which the Markdown summary names for "
        "the HTML report (default CITATIONS_ARTIFACT)",
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
            problems += holding_problems(read.shard, _held(read))
    return problems


def _held(read: ReadReport) -> set[str]:
    """The case files a report holds anything of: a case, why it was not verified, an item
    the selection left out or that did not run."""
    items = [*read.found.skipped.values(), *read.found.deselected.values()]
    return (
        {case.info.file for case in read.cases}
        | set(read.found.file_errors)
        | {item.file for item in items}
    )


def decided_again(reads: list[ReadReport]) -> tuple[Findings, list[str]]:
    """What every shard found, its claims and cases decided again (never read from what it
    states of them or of the run), and every stated decision the claims do not make, named."""
    merged, problems = Findings(), []
    for read in reads:
        said = decide_again(read.cases, read.found, read.gates)
        problems += [f"{read.name}: {line}" for line in said]
        merged.absorb(read.found)
    return merged, problems


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
    reads: list[ReadReport], found: Findings, base: Base | None
) -> tuple[RunResult, RunInfo]:
    """The merged run, decided as one serial run is, by
    :func:`~pytest_citations.gating.build.build_run` over every shard's claims, and its
    metadata."""
    stored: dict[str, Precision] = {}
    for read in reads:
        stored.update(read.baseline[0] if read.baseline else {})
    first = reads[0].info
    baseline = BaselineFacts(reads[0].baseline[1], stored) if reads[0].baseline else None
    result = build_run(found, reads[0].gates, base=base, baseline=baseline)
    shards = sorted(reads, key=lambda read: read.shard.shard if read.shard else Shard(0, 0))
    info = replace(
        first,
        started=min(read.info.started for read in reads),
        run_id=new_run_id(),
        merged=tuple(_shard_entry(read) for read in shards),
        files=(),
    )
    return result, info


def _base(args: argparse.Namespace, reads: list[ReadReport]) -> Base | None:
    """The base to compare the merged run with: ``--compare``, which the shards need when
    they were compared with one (named as the shards named it)."""
    compared = reads[0].gates.compare
    if args.compare is None:
        if compared is not None:
            raise CitationsError(
                f"the shards were compared with {compared}: give it to the merge with "
                f"--compare {compared}"
            )
        return None
    return read_base(Path(args.compare), compared or args.compare)


def _files(args: argparse.Namespace) -> tuple[tuple[str, str], ...]:
    """The report files the merge writes, (format, path as given)."""
    found = [(name, getattr(args, f"out_{name}")) for name in RENDERERS]
    return tuple((name, path) for name, path in found if path)


def _links(args: argparse.Namespace) -> SourceLinks:
    """How the merged reports link to the claims' lines: the case files' names are those of
    the shards' runs, rooted where the merge runs (the repository's checkout)."""
    environ = os.environ
    commit = args.source_sha or environ.get("CITATIONS_SOURCE_SHA")
    artifact = args.artifact or environ.get("CITATIONS_ARTIFACT")
    return SourceLinks.from_env(environ, Path.cwd(), commit, artifact)


def _write(args: argparse.Namespace, result: RunResult, info: RunInfo) -> None:
    for name, path in info.files:
        problem = write_report(name, Path(path), RENDERERS[name](result, info))
        if problem is not None:
            raise CitationsError(problem)
    if args.junitxml:
        problem = write_report("junitxml", Path(args.junitxml), junit_report.render(result, info))
        if problem is not None:
            raise CitationsError(problem)


def run(args: argparse.Namespace) -> int:
    """Read, check, merge, write, print; exit with the merged decision's status."""
    try:
        reads = [read_report(Path(path), path) for path in args.reports]
        problems = merge_problems(reads)
        found = Findings()
        if not problems:
            found, problems = decided_again(reads)
            if problems:
                problems.append(DISAGREEING)
        if problems:
            for problem in problems:
                say(problem)
            return EXIT_USAGE
        result, info = merged_run(reads, found, _base(args, reads))
        info = replace(info, files=_files(args), links=_links(args))
        _write(args, result, info)
    except CitationsError as error:
        say(error)
        return EXIT_USAGE
    shards = reads[0].shard
    count = shards.shard.count if shards is not None else len(reads)
    files = shards.run_files if shards is not None else 0
    print(f"merged {len(reads)} shard reports of one run ({count} shards, {files} files)")
    for line in summary_lines(result, info):
        print(strip_controls(line.text))
    return EXIT_FAILED if result.failed else EXIT_OK
