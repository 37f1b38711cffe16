"""The figures of a run, the checks that decide PASS, the printed table and the JSON."""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import os
import platform
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pytest_citations import CitationVerdict, ClaimVerdict, Label
from pytest_citations.pipeline.aggregate import aggregate_verdicts

from .expectations import NOT_JUDGED_REASONS, Predicted
from .instrumentation import RunResult
from .scenario import SPECIAL_KINDS, Scenario

WALL_FACTOR = 1.5
LABEL_ORDER = ("supported", "partial", "contradicted", "not_found", "unreachable")
CHECKS = (
    ("fetches", "fetches = expected"),
    ("judge_calls", "judge calls = pairs + joint"),
    ("wall", f"wall <= {WALL_FACTOR} x ideal"),
)
#: (name, one cell per run, note) of one row of the table.
Row = tuple[str, list[str], str]
Results = list[dict[str, Any]]


@dataclass
class _Observed:
    """What the engine's verdicts and the emulators show about one run."""

    citations: list[tuple[str, CitationVerdict]]
    judged_pairs: set[tuple[str, str]]
    joint_checks: set[tuple[str, frozenset[Any]]]
    joint_ordered: set[tuple[str, tuple[Any, ...]]]
    single_calls: int
    per_url_diff: dict[str, tuple[int, int]]  # url: (made, expected)


def _joint_checks(
    verdicts: list[ClaimVerdict],
) -> tuple[set[tuple[str, frozenset[Any]]], set[tuple[str, tuple[Any, ...]]]]:
    """004, C2: a claim that no single citation supports or contradicts, with two or more
    judged citations, gets one joint check over all their passages."""
    joint_checks: set[tuple[str, frozenset[Any]]] = set()
    joint_ordered: set[tuple[str, tuple[Any, ...]]] = set()
    for claim in verdicts:
        evidence = tuple(getattr(claim, "evidence", ()))
        if len(evidence) >= 2 and aggregate_verdicts(claim.citations) not in (
            Label.SUPPORTED,
            Label.CONTRADICTED,
        ):
            joint_checks.add((claim.claim, frozenset(evidence)))
            joint_ordered.add((claim.claim, evidence))
    return joint_checks, joint_ordered


def _observe(run: RunResult, predicted: Predicted) -> _Observed:
    citations = [(claim.claim, v) for claim in run.verdicts for v in claim.citations]
    judged_pairs = {(text, v.url) for text, v in citations if v.reason not in NOT_JUDGED_REASONS}
    joint_checks, joint_ordered = _joint_checks(run.verdicts)
    stats = run.emulator
    per_url_expected = {u: len(e.crawls) for u, e in predicted.per_url.items() if e.crawls}
    per_url_diff = {
        url: (stats["per_url"].get(url, 0), per_url_expected.get(url, 0))
        for url in set(stats["per_url"]) | set(per_url_expected)
        if stats["per_url"].get(url, 0) != per_url_expected.get(url, 0)
    }
    single_calls = stats["judge"] - stats["judge_joint"]
    return _Observed(
        citations, judged_pairs, joint_checks, joint_ordered, single_calls, per_url_diff
    )


def _request_figures(run: RunResult, predicted: Predicted, seen: _Observed) -> dict[str, Any]:
    stats = run.emulator
    return {
        "crawl_requests": stats["crawl"],
        "expected_crawl_requests": predicted.crawls,
        "per_url_mismatches": {
            u: {"made": a, "expected": b} for u, (a, b) in seen.per_url_diff.items()
        },
        "storage_requests": stats["storage"],
        "judge_requests": stats["judge"],
        "judge_requests_per_citation": seen.single_calls,
        "judge_requests_joint": stats["judge_joint"],
        "judge_requests_duplicate": stats["judge_duplicates"],
        "expected_joint_checks": len(seen.joint_checks),
        "joint_checks_by_evidence_order": len(seen.joint_ordered),
        "credits": stats["credits"],
        "engine_credits": run.usage["credits"],
        "expected_credits": predicted.credits,
        "engine_judge_calls": run.usage["judge_calls"],
        "judged_pairs": len(seen.judged_pairs),
        "expected_judged_pairs": len(predicted.judged_pairs),
        "citations": len(seen.citations),
        "distinct_urls": len({v.url for _, v in seen.citations}),
        "citation_labels": dict(Counter(v.label.value for _, v in seen.citations)),
        "claim_labels": dict(Counter(claim.label.value for claim in run.verdicts)),
        "judge_tokens": stats["judge_tokens"],
        "max_in_flight": {
            "crawl": stats["crawl_max_in_flight"],
            "judge": stats["judge_max_in_flight"],
        },
    }


def _timeline(run: RunResult) -> dict[str, Any]:
    crawl_events = [e for e in run.http_events if e[0] == "crawl"]
    judge_events = [e for e in run.http_events if e[0] == "judge"]
    embed_calls = run.embed_calls
    return {
        "claims_embedded": embed_calls[0][1] if embed_calls else None,
        "first_crawl_start": min((e[1] for e in crawl_events), default=None),
        "last_crawl_end": max((e[2] for e in crawl_events), default=None),
        "embed_busy": sum(e - s for s, e, _ in embed_calls),
        "embed_calls": len(embed_calls),
        "last_embed_end": max((e for _, e, _ in embed_calls), default=None),
        "first_judge_start": min((e[1] for e in judge_events), default=None),
        "last_judge_end": max((e[2] for e in judge_events), default=None),
    }


def figures(
    run: RunResult, predicted: Predicted, embed_seconds: float, embed_cpu: float, latency: float
) -> dict[str, Any]:
    """Every figure of one run, its checks and whether it passes."""
    n = run.concurrency
    seen = _observe(run, predicted)
    stats = run.emulator
    fetch_requests = stats["crawl"] + stats["storage"]
    latency_bound = (math.ceil(fetch_requests / n) + math.ceil(stats["judge"] / n)) * latency
    ideal = latency_bound + embed_seconds
    embedded = [text for _, _, texts in run.embed_calls for text in texts]
    expected_texts = {text for group in predicted.embed_groups for text in group}
    checks = {
        "fetches": stats["crawl"] == predicted.crawls and not seen.per_url_diff,
        "judge_calls": seen.single_calls == len(seen.judged_pairs)
        and stats["judge_joint"] == len(seen.joint_checks)
        and stats["judge_duplicates"] == 0,
        "wall": run.wall <= WALL_FACTOR * ideal,
    }
    return {
        "concurrency": n,
        **_request_figures(run, predicted, seen),
        "embedded_texts": len(embedded),
        "distinct_embedded_texts": len(set(embedded)),
        "embedded_texts_as_predicted": set(embedded) == expected_texts,
        "wall_s": run.wall,
        "ideal_s": ideal,
        "latency_bound_s": latency_bound,
        "embedding_alone_s": embed_seconds,
        "ratio": run.wall / ideal,
        "cpu_s": run.cpu,
        "embedding_alone_cpu_s": embed_cpu,
        "tracemalloc_peak_mib": run.tracemalloc_peak,
        "maxrss_mib": run.maxrss,
        "timeline_s": _timeline(run),
        "checks": checks,
        "pass": all(checks.values()),
    }


def _fmt(value: Any, digits: int = 1) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return str(value)


def _column(results: Results, key: str, digits: int = 1) -> list[str]:
    return [_fmt(r[key], digits) for r in results]


def _request_rows(results: Results) -> list[Row]:
    first = results[0]
    return [
        (
            "crawl requests",
            _column(results, "crawl_requests"),
            f"expected {first['expected_crawl_requests']}",
        ),
        ("storage requests", _column(results, "storage_requests"), ""),
        ("judge requests", _column(results, "judge_requests"), "judge emulator"),
        (
            "  per citation",
            _column(results, "judge_requests_per_citation"),
            f"expected {first['expected_judged_pairs']} (claim-URL pairs)",
        ),
        (
            "  joint checks (C2)",
            _column(results, "judge_requests_joint"),
            "expected "
            + "/".join(_column(results, "expected_joint_checks"))
            + " (claim, judged URL set)",
        ),
        ("  identical repeats", _column(results, "judge_requests_duplicate"), "expected 0"),
        (
            "credits",
            _column(results, "credits"),
            f"expected {_fmt(first['expected_credits'])}; engine counted "
            + "/".join(_column(results, "engine_credits")),
        ),
        ("judge calls (engine)", _column(results, "engine_judge_calls"), "the engine's own count"),
        (
            "claim-URL pairs judged",
            _column(results, "judged_pairs"),
            f"expected {first['expected_judged_pairs']} of {first['citations']} citations",
        ),
        ("distinct URLs", _column(results, "distinct_urls"), ""),
    ]


def _label_rows(results: Results) -> list[Row]:
    as_predicted = all(
        r["embedded_texts"] == r["distinct_embedded_texts"] and r["embedded_texts_as_predicted"]
        for r in results
    )
    return [
        (
            "max in flight crawl/judge",
            [f"{r['max_in_flight']['crawl']}/{r['max_in_flight']['judge']}" for r in results],
            "",
        ),
        (
            "citations s/p/c/nf/u",
            ["/".join(str(r["citation_labels"].get(k, 0)) for k in LABEL_ORDER) for r in results],
            "",
        ),
        (
            "texts embedded",
            _column(results, "embedded_texts"),
            "distinct, as predicted" if as_predicted else "MISMATCH with prediction",
        ),
    ]


def _time_rows(results: Results) -> list[Row]:
    def timeline(key: str) -> list[str]:
        return [_fmt(r["timeline_s"][key]) for r in results]

    same = all(r.get("traced_run_same_requests", True) for r in results)
    return [
        ("wall time (s)", _column(results, "wall_s"), ""),
        ("ideal (s)", _column(results, "ideal_s"), "latency bound + embedding alone"),
        ("  latency bound (s)", _column(results, "latency_bound_s"), ""),
        ("  embedding alone (s)", _column(results, "embedding_alone_s"), ""),
        ("wall / ideal", _column(results, "ratio", 2), f"limit {WALL_FACTOR}"),
        ("CPU time in run (s)", _column(results, "cpu_s"), "this process, all threads"),
        ("CPU embedding alone (s)", _column(results, "embedding_alone_cpu_s"), ""),
        ("embed busy in run (s)", timeline("embed_busy"), "model time inside the run"),
        ("last crawl done at (s)", timeline("last_crawl_end"), ""),
        ("last embed done at (s)", timeline("last_embed_end"), ""),
        ("last judge done at (s)", timeline("last_judge_end"), ""),
        (
            "tracemalloc peak (MiB)",
            _column(results, "tracemalloc_peak_mib"),
            "Python allocations, separate traced run" + ("" if same else " (its requests DIFFER)"),
        ),
        (
            "maxrss (MiB)",
            _column(results, "maxrss_mib", 0),
            "process peak after the timed run (model included)",
        ),
    ]


def _check_rows(results: Results) -> list[Row]:
    rows: list[Row] = [
        (title, ["PASS" if r["checks"][key] else "FAIL" for r in results], "")
        for key, title in CHECKS
    ]
    rows.append(("RESULT", ["PASS" if r["pass"] else "FAIL" for r in results], ""))
    return rows


def table(results: Results) -> list[str]:
    """The table's lines: one column per concurrency limit, a note after each row, then any
    URL crawled a different number of times than expected."""
    rows = _request_rows(results) + _label_rows(results)
    rows += _time_rows(results) + _check_rows(results)
    width = max(len(name) for name, _, _ in rows)
    columns = [f"N={r['concurrency']}" for r in results]
    cell = max([len(c) for c in columns] + [len(v) for _, values, _ in rows for v in values]) + 2
    lines = [" " * width + "".join(c.rjust(cell) for c in columns)]
    for name, values, note in rows:
        lines.append(
            name.ljust(width)
            + "".join(v.rjust(cell) for v in values)
            + (f"   {note}" if note else "")
        )
    for r in results:
        for url, counts in r["per_url_mismatches"].items():
            lines.append(
                f"  N={r['concurrency']}: {url}: {counts['made']} crawls, "
                f"expected {counts['expected']}"
            )
    return lines


def print_report(header: list[str], results: Results) -> None:
    for line in [*header, "", *table(results)]:
        print(line)


@dataclass
class Environment:
    """The run's circumstances that the header and the JSON report."""

    args: argparse.Namespace
    model_load_s: float
    load_before: float
    rss_before: float


def header(env: Environment, scenario: Scenario, predicted: Predicted) -> list[str]:
    """Python, CPUs, embedder; the scenario; latency, model load, memory and machine load."""
    args = env.args
    kinds = Counter(spec.kind for spec in scenario.pages.values())
    words = [
        len(spec.page.markdown.split())
        for spec in scenario.pages.values()
        if spec.kind == "normal" and spec.page is not None
    ]
    citations = sum(len(r.urls) for r in scenario.requests)
    sharing = Counter(url for r in scenario.requests for url in r.urls)
    claims = len(predicted.embed_groups[0])
    return [
        f"pytest-citations engine benchmark ({platform.python_version()}, "
        f"{multiprocessing.cpu_count()} CPUs, embedder {args.embedder}, emulators in "
        f"{args.emulators})",
        f"scenario: {len(scenario.requests)} claims ({len({r.claim for r in scenario.requests})}"
        f" distinct), {citations} citations, {len(scenario.pages)} URLs "
        f"({kinds['normal']} normal ~{sum(words) // max(len(words), 1)} words; "
        + ", ".join(f"{k} {kinds[k]}" for k in SPECIAL_KINDS if kinds[k])
        + ")",
        f"URL sharing: most cited URL {max(sharing.values())} claims, "
        f"{sum(1 for c in sharing.values() if c >= 10)} URLs cited by 10+ claims, "
        f"{sum(1 for c in sharing.values() if c == 1)} by one claim",
        f"latency {args.latency:.3f} s per fetch and per judge call; model load+warm-up "
        f"{env.model_load_s:.1f} s (excluded); embedding alone: {predicted.embed_texts} texts "
        f"({predicted.embed_texts - claims} passages + {claims} claims), mean of before and "
        f"after each run; maxrss before runs {env.rss_before:.0f} MiB; load average "
        f"{env.load_before:.1f} before, {os.getloadavg()[0]:.1f} after",
    ]


def write_json(
    path: Path, env: Environment, scenario: Scenario, predicted: Predicted, results: Results
) -> None:
    """Every figure of every run, with the arguments and the scenario, as JSON."""
    arguments = {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(env.args).items()}
    payload = {
        "python": platform.python_version(),
        "cpus": multiprocessing.cpu_count(),
        "arguments": arguments,
        "scenario": {
            "claims": len(scenario.requests),
            "distinct_claims": len({r.claim for r in scenario.requests}),
            "citations": sum(len(r.urls) for r in scenario.requests),
            "urls": len(scenario.pages),
            "page_kinds": dict(Counter(spec.kind for spec in scenario.pages.values())),
            "expected_crawl_requests": predicted.crawls,
            "expected_credits": predicted.credits,
            "expected_judged_pairs": len(predicted.judged_pairs),
            "embedding_texts": predicted.embed_texts,
        },
        "model_load_s": env.model_load_s,
        "load_average_before": env.load_before,
        "load_average_after": list(os.getloadavg()),
        "runs": results,
        "pass": all(r["pass"] for r in results),
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(payload, indent=2, sort_keys=True) + "\n")
