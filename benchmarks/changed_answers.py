"""What a pull request that changes some answers costs, against re-recording everything.

    python -m benchmarks.changed_answers [--changed 0.1] [--claims 200] [--urls 60]

On the plugin benchmark's world (200 claims citing 60 pages, in 20 case files of one answer
each), against the local emulators:

1. record the whole suite (``--citations-record=all``): the base branch's recordings;
2. change a share of the answers (every claim of each changed answer reworded, as a new
   prompt would), then run the pull request's gate with the tokens
   (``--citations-record=new_episodes``): only the changed claims are judged, and no page
   is fetched (every cited page is recorded);
3. the same changed suite re-recorded whole (``--citations-record=rewrite``), which is what
   a team without the recordings' reuse pays on every pull request;
4. the changed suite without tokens (a fork's pull request): nothing is sent, and every
   changed claim is unchecked, never a pass.

Prints judge calls, Crawlbase credits, crawl requests and wall time of each run, and the
share the pull request's run costs of the full re-record.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import yaml

from .engine.emulators import Emulators
from .engine.instrumentation import EMBEDDERS, maxrss_mib, warm_model
from .engine.scenario import build_scenario
from .plugin.__main__ import environment, live_environment, run_pytest, write_project

#: Where a request that the cassettes lack would go with the emulators stopped: nowhere.
DEAD = {"CRAWLBASE_API_URL": "http://127.0.0.1:9/", "OPENAI_BASE_URL": "http://127.0.0.1:9/v1"}


def change_answers(folder: Path, share: float) -> int:
    """Reword every claim of the first ``share`` of the case files; the claims changed."""
    files = sorted((folder / "cases").glob("*.yaml"))
    chosen = files[: max(1, round(len(files) * share))]
    changed = 0
    for path in chosen:
        case = yaml.safe_load(path.read_text(encoding="utf-8"))
        for claim in case["claims"]:
            text = claim["text"]
            claim["text"] = "As stated, " + text[0].lower() + text[1:]
            changed += 1
        path.write_text(yaml.safe_dump(case, sort_keys=False, allow_unicode=True, width=1000))
    return changed


def run(folder: Path, scenario: Any, model: str, record: str, latency: float) -> dict[str, Any]:
    """One ``pytest --citations cases/`` with the emulators up, and what they saw."""
    report = folder / f"{record}.json"
    with Emulators(scenario.fake_pages, latency, "process") as emulators:
        with environment(live_environment(emulators)):
            done = run_pytest(folder, model, 4, record, report)
        stats = emulators.stats()
    return {**done, **stats}


def unchecked(report: dict[str, Any]) -> int:
    return sum(
        1
        for case in report.get("cases", [])
        for claim in case.get("claims", [])
        if claim.get("unchecked") or claim.get("decision") == "incomplete"
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.changed_answers")
    parser.add_argument("--changed", type=float, default=0.1, help="share of answers changed")
    parser.add_argument("--claims", type=int, default=200)
    parser.add_argument("--urls", type=int, default=60)
    parser.add_argument("--files", type=int, default=20)
    parser.add_argument("--latency", type=float, default=0.2)
    parser.add_argument("--seed", type=int, default=2)
    args = parser.parse_args(argv)
    model = EMBEDDERS["minilm"]
    scenario = build_scenario(args.claims, args.urls, args.seed)
    warm_model(model, args.seed)
    with tempfile.TemporaryDirectory(prefix="citations-changed-") as scratch:
        base = Path(scratch) / "base"
        write_project(scenario, args.files, base)
        recorded = run(base, scenario, model, "all", args.latency)
        head = Path(scratch) / "head"
        shutil.copytree(base, head)
        changed = change_answers(head, args.changed)
        fork = Path(scratch) / "fork"
        shutil.copytree(head, fork)
        rewrite = Path(scratch) / "rewrite"
        shutil.copytree(head, rewrite)
        pull_request = run(head, scenario, model, "new_episodes", args.latency)
        full = run(rewrite, scenario, model, "rewrite", args.latency)
        with environment({**DEAD, "CRAWLBASE_TOKEN": "", "OPENAI_API_KEY": ""}):
            forked = run_pytest(fork, model, 4, "none", fork / "fork.json")
    print(
        f"changed answers: {args.claims} claims citing {args.urls} pages in {args.files} case "
        f"files; {changed} claims of {args.changed:.0%} of the answers reworded "
        f"(latency {args.latency:.2f} s, {EMBEDDERS['minilm']})"
    )
    rows = (("base recording (all)", recorded), ("pull request (new_episodes)", pull_request),
            ("full re-record (rewrite)", full))  # fmt: skip
    print(f"{'run':<30}{'judge calls':>12}{'credits':>10}{'crawls':>8}{'wall s':>9}{'exit':>6}")
    for title, figures in rows:
        print(
            f"{title:<30}{figures['judge']:>12}{figures['credits']:>10.0f}{figures['crawl']:>8}"
            f"{figures['wall']:>9.1f}{figures['exit']:>6}"
        )
    share = pull_request["judge"] / full["judge"] if full["judge"] else 0.0
    print(
        f"the pull request's run: {share:.1%} of the re-record's judge calls, "
        f"{pull_request['credits']:.0f} of {full['credits']:.0f} credits, "
        f"{pull_request['wall'] / full['wall']:.0%} of its wall time"
    )
    print(
        f"fork run (no tokens): exit {forked['exit']}, {unchecked(forked['report'])} claims "
        f"unchecked of {changed} changed; peak memory {maxrss_mib():.0f} MiB"
    )
    ok = (
        pull_request["crawl"] == 0
        and 0 < pull_request["judge"] < full["judge"]
        and forked["exit"] == 1
        and unchecked(forked["report"]) >= changed
    )
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
