"""XQuAD dev in 12 languages (and English questions on German pages, German on English):
does a route keep what the judge receives as good as today's?

For every question, with the default setting (``auto``: MiniLM on English pages,
multilingual-e5-small elsewhere) and the engine's own ranking:

* ``hit@1``: the passage holding the answer ranks first (``retrieval_languages.py``'s
  figure; a route that keeps the engine's passage order keeps it);
* ``answer@judge``: the answer span is inside what the judge receives (today: the top 3
  passages and a straddled neighbour; a route: its slices);
* ``first``: the first text the judge reads holds the answer;
* units (script-aware words) the judge receives, median and mean.

Signals of a unit come from what the page's embedder already gives: e5 embeds every
sentence (its vector is the unit's), MiniLM's token rows are pooled per unit.
"""

from __future__ import annotations

import gzip
import json
import re
import statistics
import sys
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.evidence.data import XQUAD_DIR, Claim, Layout
from benchmarks.evidence.signals import (
    Signals,
    claim_rows,
    context_units,
    maxsim,
)
from benchmarks.evidence.tokens import TokenStore, pooled
from pytest_citations import retrieval
from pytest_citations.lexical import BM25
from pytest_citations.passages import split_passages
from pytest_citations.scripts import units

LANGUAGES = "en,de,es,ru,zh,ar,tr,el,hi,vi,th,ro"
CROSS = "en:de,de:en"
#: A route's selection: (the question as a claim without gold, its signals) -> the texts sent.
Chooser = Callable[[Claim, Signals], list[str]]


def load() -> tuple[dict[tuple[str, str], dict[str, Any]], list[dict[str, Any]]]:
    articles: dict[tuple[str, str], dict[str, Any]] = {}
    questions: list[dict[str, Any]] = []
    with gzip.open(XQUAD_DIR / "xquad_dev.jsonl.gz", "rt", encoding="utf-8") as handle:
        for line in handle:
            row = json.loads(line)
            if row["kind"] == "article":
                articles[(row["lang"], row["article"])] = row
            else:
                questions.append(row)
    return articles, questions


def answer_span(layout: Layout, paragraph: str, question: dict[str, Any]) -> tuple[int, int] | None:
    """Character span of the answer in ``layout.text`` (whitespace collapsed as passages
    are), located from the answer's offset in its paragraph."""
    answer = " ".join(question["answer"].split())
    flat = " ".join(paragraph.split())
    prefix = re.sub(r"\s+", " ", paragraph[: int(question["answer_start"])]).lstrip()
    at = layout.text.find(flat)
    if at >= 0 and layout.text[at + len(prefix) : at + len(prefix) + len(answer)] == answer:
        return at + len(prefix), at + len(prefix) + len(answer)
    head = " ".join(flat.split()[:8])
    start = layout.text.find(head)
    found = layout.text.find(answer, max(start, 0))
    if found < 0:
        found = layout.text.find(answer)
    return (found, found + len(answer)) if found >= 0 else None


def within(span: tuple[int, int], texts: list[str], text: str) -> bool:
    """The answer span lies inside one of the sent slices (located in the page text)."""
    for piece in texts:
        start = text.find(piece)
        while start >= 0:
            if start <= span[0] and span[1] <= start + len(piece):
                return True
            start = text.find(piece, start + 1)
    return False


def question_signals(
    question: str,
    layout: Layout,
    index: retrieval.PageIndex,
    vector: np.ndarray | None,
    embed: Callable[[list[str]], np.ndarray],
    store: TokenStore | None,
) -> Signals:
    """The signals of :class:`~benchmarks.evidence.signals.Signals` for one question."""
    dense = (
        retrieval.dense_scores(vector, index)
        if vector is not None
        else [0.0] * len(layout.passages)
    )
    order = retrieval.rank_passages(question, vector, index)
    neighbour = (
        retrieval.straddling_neighbour(vector, index, order[0], embed)
        if vector is not None
        else None
    )
    texts = [layout.unit_text(u) for u in range(len(layout.unit_chars))]
    count = len(texts)
    context = np.zeros(count, np.float32)
    pieces: list[str] = []
    rows_context = np.zeros((count, 0), np.float16)
    if vector is not None and store is not None:  # MiniLM: token rows of its windows
        window_texts, owners = retrieval.pieces(layout.passages, _embedder_of(index))
        tokens = store.get(window_texts, "xquad windows")
        in_window = context_units(layout, window_texts, owners, tokens)
        pieces, matrix = claim_rows(question, store.get([question])[0])
        context = np.array(
            [float(pooled((r, np.zeros(0))) @ vector) if len(r) else 0.0 for r in in_window],
            np.float32,
        )
        rows_context = np.stack([maxsim(matrix, r) for r in in_window]).astype(np.float16)
    elif vector is not None and len(index.vectors):  # e5: one vector per sentence piece
        sims = index.vectors @ np.asarray(vector).reshape(-1)
        context = np.array([_piece_score(layout, u, index, sims) for u in range(count)], np.float32)
    return Signals(
        id=question,
        coverage=index.lexical.coverage(question),
        bm25=np.array(index.lexical.scores(question), np.float32),
        dense=np.array(dense, np.float32),
        order=list(order),
        neighbour=neighbour,
        unit_bm25=np.array(BM25(texts).scores(question), np.float32),
        unit_alone=context,
        unit_context=context,
        claim_pieces=pieces,
        maxsim_context=rows_context,
        maxsim_alone=rows_context,
    )


_EMBEDDERS: dict[str, Any] = {}


def _embedder_of(index: retrieval.PageIndex) -> Any:
    return _EMBEDDERS[index.embedder]


def _piece_score(layout: Layout, unit: int, index: retrieval.PageIndex, sims: np.ndarray) -> float:
    """The best cosine among the e5 pieces of the unit's passage that share its text."""
    text = " ".join(layout.unit_text(unit).split())
    passage = layout.unit_passage[unit]
    best = -1.0
    for row, owner in enumerate(index.owners):
        if owner == passage:
            best = (
                max(best, float(sims[row]))
                if _overlaps(text, _PIECES[index.embedder][row])
                else best
            )
    return best if best > -1.0 else 0.0


_PIECES: dict[str, list[str]] = defaultdict(list)


def _overlaps(unit: str, piece: str) -> bool:
    return unit in piece or piece in unit


def evaluate(
    routes: dict[str, Chooser], cache_dir: Path, limit: int = 0, langs: str = LANGUAGES
) -> dict[str, dict[str, Any]]:
    """Figures per language pair for today and for every route (see the module docstring)."""
    articles, questions = load()
    by_language: dict[str, dict[str, dict[str, Any]]] = defaultdict(dict)
    for question in questions:
        by_language[question["lang"]][question["id"]] = question
    languages = [lang for lang in langs.split(",") if lang]
    pairs = [(lang, lang) for lang in languages] + [tuple(p.split(":")) for p in CROSS.split(",")]
    retriever = retrieval.Retriever.named("auto", cache_dir)
    for cache in retriever.embedders:
        _EMBEDDERS[cache.name] = cache
    store = TokenStore(cache_dir)
    results: dict[str, dict[str, Any]] = {}
    layouts: dict[int, Layout] = {}
    indexes: dict[tuple[str, str], retrieval.PageIndex] = {}
    for asked_in, page_in in pairs:
        tally: dict[str, list[float]] = defaultdict(list)
        for question in list(by_language[asked_in].values())[: limit or None]:
            key = (page_in, question["article"])
            article = articles[key]
            if key not in indexes:
                indexes[key] = retriever.index(split_passages("\n\n".join(article["paragraphs"])))
            local = by_language[page_in].get(question["id"])
            if local is None:
                continue
            index = retriever.for_claim(question["question"], indexes[key])
            layout = layouts.setdefault(id(index), Layout(list(index.passages)))
            paragraph = article["paragraphs"][int(local["paragraph"])]
            span = answer_span(layout, paragraph, local)
            if span is None:
                continue
            gold = next(
                (
                    i
                    for i, (a, b) in enumerate(layout.passage_chars)
                    if a <= span[0] and span[1] <= b
                ),
                None,
            )
            if gold is None:
                continue
            vector = retriever._vector(question["question"], index)
            cache = retriever._cache(index)
            if cache.by_sentence:
                _PIECES[index.embedder] = retrieval.pieces(index.passages, cache)[0]
            s = question_signals(
                question["question"],
                layout,
                index,
                None if vector is None else np.asarray(vector, np.float32),
                cache.embed,
                store if index.embedder == retriever.embedders[0].name else None,
            )
            today = retrieval.select(s.order, index.passages, retrieval.DEFAULT_TOP_K, s.neighbour)
            tally["hit@1"].append(s.order[0] == gold)
            tally["today answer@judge"].append(within(span, today, layout.text))
            tally["today first"].append(within(span, today[:1], layout.text))
            tally["today units"].append(sum(units(t) for t in today))
            asked = Claim(question["id"], question["question"], layout, [], {})
            for name, choose in routes.items():
                sent = choose(asked, s)
                tally[f"{name} answer@judge"].append(within(span, sent, layout.text))
                tally[f"{name} first"].append(within(span, sent[:1], layout.text))
                tally[f"{name} units"].append(sum(units(t) for t in sent))
        pair = f"{asked_in}:{page_in}"
        results[pair] = {"n": len(tally["hit@1"])}
        for name, values in tally.items():
            if name.endswith("units"):
                results[pair][name] = (statistics.median(values), statistics.mean(values))
            else:
                results[pair][name] = round(sum(values) / max(len(values), 1), 3)
        print(f"  {pair}: {json.dumps(results[pair])}", file=sys.stderr)
    retriever.close()
    store.close()
    return results
