#!/usr/bin/env python
"""The ``numbers_traceable`` check on WiCE dev: false alarms and caught figures.

* False alarms: for each ``supported`` claim with figures, ``missing_figures(claim, gold)``
  with the union of one gold evidence set (the set that flags least); every figure it flags
  is a false alarm, since people found the claim fully supported by those sentences.
* Caught: for each figure of a sub-claim whose digits annotators marked as not supported,
  whether ``missing_figures(subclaim, gold)`` flags it for every gold set (also given the
  whole article). Two counts: every such figure (the wide count: a marked figure the gold
  sentences do state, in another context, cannot be caught by comparing values), and only the
  figures whose digits no gold set contains (the narrow count, "36 of the 37").

    python benchmarks/wice_figures.py [--data PATH] [--show 20] [--json FILE]
"""

from __future__ import annotations

import argparse
import gzip
import importlib.util
import json
import re
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from pytest_citations.gating import figures as project_figures  # noqa: E402

DATA = HERE.parent.parent / "shared" / "data" / "wice-dev" / "wice_dev.jsonl.gz"


def gold_sets(row: dict[str, Any], evidence: list[str]) -> list[list[str]]:
    """Each alternative gold set as its sentences (empty sets dropped)."""
    sets = []
    for group in row["supporting_sentences"]:
        kept = [evidence[i] for i in sorted(set(group)) if evidence[i].split()]
        if kept:
            sets.append(kept)
    return sets


def marked_words(row: dict[str, Any]) -> list[str]:
    """Tokens annotators marked as not supported that hold a digit."""
    return [
        token
        for token, marked in zip(row["claim_tokens"], row["non_supported_spans"], strict=True)
        if marked and any(character.isdigit() for character in token)
    ]


def _digit_runs(text: str) -> list[str]:
    """Numbers in ``text`` with thousands separators dropped: "180,000" is one run."""
    return re.findall(r"\d+", re.sub(r"(?<=\d)[,.\u00a0\u202f](?=\d{3})", "", text))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--show", type=int, default=0, help="print up to N false alarms/misses")
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument(
        "--figures", type=Path, default=None, help="another figures.py to score (an old version)"
    )
    args = parser.parse_args()
    module: Any = project_figures
    if args.figures:
        spec = importlib.util.spec_from_file_location("figures_under_test", args.figures)
        if spec is None or spec.loader is None:
            raise SystemExit(f"cannot load {args.figures}")
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module  # dataclasses look their module up
        spec.loader.exec_module(module)
    extract_figures = module.extract_figures
    missing_figures = module.missing_figures
    with gzip.open(args.data, "rt", encoding="utf-8") as handle:
        rows = [json.loads(line) for line in handle]
    claims = {r["id"]: r for r in rows if r["kind"] == "claim"}

    supported = alarms = 0
    shown_alarms: list[str] = []
    for row in claims.values():
        if row["label"] != "supported" or not extract_figures(row["claim"]):
            continue
        sets = gold_sets(row, row["evidence"])
        if not sets:
            continue
        supported += 1
        flagged = min((missing_figures(row["claim"], s) for s in sets), key=len)
        if flagged:
            alarms += 1
            if len(shown_alarms) < args.show:
                shown_alarms.append(
                    f"- {row['id']}: {row['claim']}\n  flagged {[f.text for f in flagged]}\n"
                    f"  gold: {' | '.join(sets[0])[:600]}"
                )

    marked = caught_gold = caught_page = absent = caught_absent = 0
    shown_misses: list[str] = []
    for row in rows:
        if row["kind"] != "subclaim":
            continue
        parent = claims[row["parent"]]
        evidence = row.get("evidence") or parent["evidence"]
        sets = gold_sets(row, evidence) or [[]]
        digits = {run for token in marked_words(row) for run in _digit_runs(token)}
        for figure in extract_figures(row["claim"]):
            if not digits & set(_digit_runs(figure.text)):
                continue
            marked += 1
            hit_gold = all(figure in missing_figures(row["claim"], s) for s in sets)
            caught_gold += hit_gold
            runs = set(_digit_runs(figure.text))
            if not any(runs <= set(_digit_runs(" ".join(s))) for s in sets):
                absent += 1
                caught_absent += hit_gold
            caught_page += figure in missing_figures(row["claim"], evidence)
            if not hit_gold and len(shown_misses) < args.show:
                shown_misses.append(f"- {row['id']}: {row['claim']} (marked: {figure.text!r})")

    figures = {
        "supported_claims_with_figures": supported,
        "false_alarms": alarms,
        "false_alarm_rate": round(alarms / max(supported, 1), 4),
        "marked_figures": marked,
        "caught_given_gold": caught_gold,
        "caught_rate_gold": round(caught_gold / max(marked, 1), 4),
        "caught_given_page": caught_page,
        "marked_figures_absent_from_gold": absent,
        "caught_absent_from_gold": caught_absent,
    }
    print("numbers_traceable on WiCE dev")
    print(
        f"  false alarms on supported claims with figures, given the gold sentences: "
        f"{alarms}/{supported} = {figures['false_alarm_rate']:.1%}"
    )
    print(
        f"  annotator-marked unsupported figures caught given the gold sentences: "
        f"{caught_gold}/{marked} = {figures['caught_rate_gold']:.1%} "
        f"(given the whole article: {caught_page}/{marked})"
    )
    print(
        f"  of them, figures whose digits no gold set contains: caught {caught_absent}/{absent} = "
        f"{caught_absent / max(absent, 1):.1%}"
    )
    if shown_alarms:
        print("false alarms:\n" + "\n".join(shown_alarms))
    if shown_misses:
        print("missed:\n" + "\n".join(shown_misses))
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2) + "\n")


if __name__ == "__main__":
    main()
