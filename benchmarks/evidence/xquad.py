"""XQuAD dev in 12 languages (and English questions on German pages, German ones on English
pages): does the route keep what the judge receives as good as today's in every language?

For every question, with the default setting (``auto``: MiniLM on English pages,
multilingual-e5-small elsewhere) and the engine's own signals:

* ``hit@1``: the passage holding the answer ranks first (``retrieval_languages.py``'s
  figure; the route keeps the engine's passage ranking, so it keeps this figure);
* ``answer@judge``: the answer span lies inside what the judge receives (today: the top 3
  passages and a straddled neighbour; the route: its slices);
* ``first``: the first text the judge reads holds the answer;
* units (script-aware words) the judge receives, median and mean.

The route runs at its budget and, since XQuAD's pages are short (5 paragraphs), also at
today's cost question by question (the words today's selection sends), so that no language
gains from more text.

    python -m benchmarks.evidence xquad --cache-dir CACHE
"""

from __future__ import annotations

import gzip
import json
import re
import statistics
import sys
from collections import defaultdict
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from benchmarks.evidence import route
from benchmarks.evidence.data import XQUAD_DIR
from pytest_citations import retrieval
from pytest_citations.retrieval.languages import claim_is_english, is_english
from pytest_citations.retrieval.lines import EVIDENCE_WORDS as BUDGET
from pytest_citations.retrieval.passages import page_text, split_passages, split_spans
from pytest_citations.retrieval.writing import units

LANGUAGES = "en,de,es,ru,zh,ar,tr,el,hi,vi,th,ro"
CROSS = "en:de,de:en"
CHEAP = "route at today's cost"


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


def answer_span(page: str, paragraph: str, question: dict[str, Any]) -> tuple[int, int] | None:
    """Character span of the answer in the page (passages joined, whitespace collapsed as
    passages are), located from the answer's offset in its paragraph."""
    answer = " ".join(question["answer"].split())
    flat = " ".join(paragraph.split())
    prefix = re.sub(r"\s+", " ", paragraph[: int(question["answer_start"])]).lstrip()
    at = page.find(flat)
    if at >= 0 and page[at + len(prefix) : at + len(prefix) + len(answer)] == answer:
        return at + len(prefix), at + len(prefix) + len(answer)
    head = " ".join(flat.split()[:8])
    found = page.find(answer, max(page.find(head), 0))
    if found < 0:
        found = page.find(answer)
    return (found, found + len(answer)) if found >= 0 else None


def inside(span: tuple[int, int], spans: Sequence[tuple[int, int]]) -> bool:
    return any(a <= span[0] and span[1] <= b for a, b in spans)


def pairs_of(langs: str = LANGUAGES, cross: str = CROSS) -> list[tuple[str, str]]:
    """(question language, page language) pairs: each language on itself, then ``cross``."""
    pairs = [(lang, lang) for lang in langs.split(",") if lang]
    return pairs + [(p.split(":")[0], p.split(":")[1]) for p in cross.split(",") if p]


def questions_of(
    pair: tuple[str, str],
    articles: dict[tuple[str, str], dict[str, Any]],
    by_language: dict[str, dict[str, dict[str, Any]]],
    limit: int = 0,
) -> Iterator[tuple[str, dict[str, Any], dict[str, Any]]]:
    """Each question of ``pair``: its text, the page's article and the same question in the
    page's language (where the answer lies)."""
    asked_in, page_in = pair
    for question in list(by_language[asked_in].values())[: limit or None]:
        local = by_language[page_in].get(question["id"])
        if local is not None:
            yield question["question"], articles[(page_in, question["article"])], local


def _figures(tally: dict[str, list[float]]) -> dict[str, Any]:
    found: dict[str, Any] = {"n": len(next(iter(tally.values()), []))}
    for name, values in tally.items():
        if name.endswith("units"):
            found[name] = [statistics.median(values), statistics.mean(values)]
        else:
            found[name] = round(sum(values) / max(len(values), 1), 3)
    return found


def evaluate(
    cache_dir: Path, limit: int = 0, langs: str = LANGUAGES, cross: str = CROSS
) -> dict[str, dict[str, Any]]:
    """Figures per language pair for today and the route (see the module docstring)."""
    articles, by_language = load_by_language()
    retriever = retrieval.Retriever.named("auto", cache_dir)
    indexes: dict[tuple[str, str], retrieval.PageIndex] = {}
    results: dict[str, dict[str, Any]] = {}
    for pair in pairs_of(langs, cross):
        tally: dict[str, list[float]] = defaultdict(list)
        for asked, article, local in questions_of(pair, articles, by_language, limit):
            key = (pair[1], article["article"])
            if key not in indexes:
                indexes[key] = retriever.index(split_passages("\n\n".join(article["paragraphs"])))
            index = retriever.for_claim(asked, indexes[key])
            page = route.JOIN.join(index.passages)
            span = answer_span(page, article["paragraphs"][int(local["paragraph"])], local)
            if span is None:
                continue
            one(tally, asked, index, retriever, page, span)
        results[f"{pair[0]}:{pair[1]}"] = _figures(tally)
        print(f"  {pair}: {json.dumps(results[f'{pair[0]}:{pair[1]}'])}", file=sys.stderr)
    retriever.close()
    return results


def load_by_language() -> tuple[
    dict[tuple[str, str], dict[str, Any]], dict[str, dict[str, dict[str, Any]]]
]:
    """The articles by (language, article), and the questions by language and id."""
    articles, questions = load()
    by_language: dict[str, dict[str, dict[str, Any]]] = defaultdict(dict)
    for question in questions:
        by_language[question["lang"]][question["id"]] = question
    return articles, by_language


#: What the judge is shown, side by side (``Retriever.choose``): (name, top_k, budget).
WAYS = (
    ("today: top 3 passages", 3, 0),
    ("today: top 5 passages", 5, 0),
    (f"default: lines under {BUDGET} words", 3, BUDGET),
)


def shown(cache_dir: Path, limit: int = 0) -> dict[str, dict[str, Any]]:
    """Per language pair, for each of :data:`WAYS`, what ``Retriever.choose`` shows the
    judge: whether the answer lies inside one of its texts (answer@judge) and inside the
    first, and the units it sends (median, mean)."""
    articles, by_language = load_by_language()
    retriever = retrieval.Retriever.named("auto", cache_dir)
    indexes: dict[tuple[str, str], retrieval.PageIndex] = {}
    results: dict[str, dict[str, Any]] = {}
    for pair in pairs_of():
        tally: dict[str, list[float]] = defaultdict(list)
        for asked, article, local in questions_of(pair, articles, by_language, limit):
            markdown = "\n\n".join(article["paragraphs"])
            key = (pair[1], article["article"])
            if key not in indexes:
                indexes[key] = retriever.index(split_spans(markdown))
            start = sum(len(p) + 2 for p in article["paragraphs"][: int(local["paragraph"])])
            answer = start + int(local["answer_start"])
            span = (answer, answer + len(local["answer"]))
            for name, k, budget in WAYS:
                chosen = retriever.choose(
                    asked, indexes[key], k, markdown=markdown, evidence_words=budget
                )
                held = [_merged(markdown, s.pieces) for s in chosen.shown] if chosen else []
                tally[f"{name} answer@judge"].append(any(inside(span, h) for h in held))
                tally[f"{name} first"].append(bool(held) and inside(span, held[0]))
                texts = chosen.texts(page_text(markdown)) if chosen else []
                tally[f"{name} units"].append(sum(units(text) for text in texts))
        results[f"{pair[0]}:{pair[1]}"] = _figures(tally)
        print(f"  {pair}: {json.dumps(results[f'{pair[0]}:{pair[1]}'])}", file=sys.stderr)
    retriever.close()
    return results


def _merged(markdown: str, pieces: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
    """A shown text's pieces of the page, those with only whitespace between them joined
    (a quote may run across them)."""
    found: list[list[int]] = []
    for start, end in pieces:
        if found and not markdown[found[-1][1] : start].strip():
            found[-1][1] = end
        else:
            found.append([start, end])
    return [(a, b) for a, b in found]


def _cells(row: dict[str, Any], names: Sequence[str]) -> tuple[str, str, str]:
    """A row's answer@judge, first-text and units cells, one figure per way in ``names``."""
    judged = " / ".join(f"{row[f'{name} answer@judge']:.3f}" for name in names)
    first = " / ".join(f"{row[f'{name} first']:.3f}" for name in names)
    cost = " / ".join(
        f"{row[f'{name} units'][0]:.0f}, {row[f'{name} units'][1]:.0f}" for name in names
    )
    return judged, first, cost


def shown_table(results: dict[str, dict[str, Any]]) -> str:
    """:func:`shown`'s figures as a table, the ways side by side."""
    names = [name for name, _, _ in WAYS]
    lines = [
        f"| pair | n | answer@judge: {' / '.join(names)} | first text | units (median, mean) |",
        "|---|---|---|---|---|",
    ]
    for pair, row in results.items():
        judged, first, cost = _cells(row, names)
        lines.append(f"| {pair} | {row['n']} | {judged} | {first} | {cost} |")
    return "\n".join(lines)


def one(
    tally: dict[str, list[float]],
    asked: str,
    index: retrieval.PageIndex,
    retriever: retrieval.Retriever,
    page: str,
    span: tuple[int, int],
) -> None:
    """Score one question: today's selection and the route's, at its budget and at today's."""
    vector = retriever._vector(asked, index)
    order = retrieval.rank_passages(asked, vector, index)
    dense = (
        retrieval.dense_scores(vector, index)
        if vector is not None and len(index.vectors)
        else [0.0] * len(index.passages)
    )
    embed = retriever._cache(index).embed
    neighbour = (
        None if vector is None else retrieval.straddling_neighbour(vector, index, order[0], embed)
    )
    lexical, coverage = index.lexical.scores(asked), index.lexical.coverage(asked)
    gold = next(i for i, p in enumerate(index.passages) if inside(span, [_where(page, index, i)]))
    today = route.passage_spans(index.passages, order, neighbour)
    cost = sum(units(page[a:b]) for a, b in today)
    tally["hit@1"].append(order[0] == gold)
    tally["falls back"].append(claim_is_english(asked) != is_english(index.passages))
    for name, spans in (
        ("today", today),
        (
            "route",
            route.evidence_spans(
                asked,
                index.passages,
                lexical,
                dense,
                coverage,
                order,
                ceiling=index.ceiling,
                neighbour=neighbour,
            ),
        ),
        (
            CHEAP,
            route.evidence_spans(
                asked,
                index.passages,
                lexical,
                dense,
                coverage,
                order,
                budget=cost,
                ceiling=index.ceiling,
                neighbour=neighbour,
            ),
        ),
    ):
        tally[f"{name} answer@judge"].append(inside(span, spans))
        tally[f"{name} first"].append(inside(span, spans[:1]))
        tally[f"{name} units"].append(sum(units(page[a:b]) for a, b in spans))


def _where(page: str, index: retrieval.PageIndex, passage: int) -> tuple[int, int]:
    start = sum(len(p) + len(route.JOIN) for p in index.passages[:passage])
    return start, start + len(index.passages[passage])


def table(results: dict[str, dict[str, Any]]) -> str:
    names = ("today", "route", CHEAP)
    lines = [
        "| pair | n | hit@1 | falls back | answer@judge: today / route / route at today's cost "
        "| first text: today / route / at today's cost | units (median / mean): today / route / "
        "at today's cost |",
        "|---|---|---|---|---|---|---|",
    ]
    for pair, row in results.items():
        judged, first, cost = _cells(row, names)
        lines.append(
            f"| {pair} | {row['n']} | {row['hit@1']:.3f} | {row['falls back']:.3f} | {judged} | "
            f"{first} | {cost} |"
        )
    return "\n".join(lines)
