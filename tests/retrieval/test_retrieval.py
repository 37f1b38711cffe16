"""Passages (R1), ranking (R2), the top-3 cut (R3) and the embedding cache."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Sequence

import hypothesis
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_citations import ClaimRequest, Label
from pytest_citations.retrieval.embedders.base import Vectors
from pytest_citations.retrieval.embedders.cache import EmbeddingCache
from pytest_citations.retrieval.embedders.hashed import LexicalEmbedder
from pytest_citations.retrieval.passages import DEFAULT_MAX_WORDS, split_passages
from pytest_citations.retrieval.ranking import order


class CountingEmbedder:
    """A lexical embedder that remembers every text it was asked to embed."""

    def __init__(self, name: str = "counting-lexical") -> None:
        self.name = name
        self._inner = LexicalEmbedder()
        self.texts: list[str] = []
        self.batches = 0

    def embed(self, texts: Sequence[str]) -> Vectors:
        self.texts.extend(texts)
        self.batches += 1
        return self._inner.embed(texts)


def words(count: int, stem: str = "w") -> str:
    return " ".join(f"{stem}{n}" for n in range(count))


# -- R1: passages -------------------------------------------------------------------------------


def test_r1_short_paragraphs_are_packed_up_to_200_words():
    paragraphs = [words(50, stem=f"p{n}x") for n in range(5)]
    passages = split_passages("\n\n".join(paragraphs))

    assert [len(p.split()) for p in passages] == [200, 50]
    assert passages[0] == "\n\n".join(paragraphs[:4])
    assert passages[1] == paragraphs[4]


def test_r1_a_paragraph_that_would_overflow_starts_a_new_passage():
    passages = split_passages(f"{words(150, 'a')}\n\n{words(60, 'b')}\n\n{words(40, 'c')}")
    assert [len(p.split()) for p in passages] == [150, 100]


def test_r1_long_paragraph_is_cut_on_word_boundaries():
    text = words(450, "long")
    passages = split_passages(text)

    assert [len(p.split()) for p in passages] == [200, 200, 50]
    assert " ".join(passages).split() == text.split()
    assert passages[0].endswith("long199")
    assert passages[1].startswith("long200 ")


def test_r1_cut_remainder_packs_with_the_next_paragraph():
    passages = split_passages(f"{words(250, 'a')}\n\n{words(30, 'b')}")
    assert [len(p.split()) for p in passages] == [200, 80]


def test_r1_blank_blocks_are_dropped():
    text = "\n\n  \n\t\n\nfirst paragraph\n\n\n   \n\n\r\n\r\nsecond paragraph\n\n \n"
    assert split_passages(text) == ["first paragraph\n\nsecond paragraph"]
    assert split_passages("") == []
    assert split_passages(" \n\n \t \n") == []


def test_r1_words_are_counted_with_split():
    # Punctuation, markdown and hyphens do not split words; whitespace does.
    text = "**Bold** text, with-hyphen and [a link](https://x.org/a b)."
    assert split_passages(text, max_words=7) == [text]
    assert len(split_passages(text, max_words=6)) == 2


@pytest.mark.parametrize("max_words", [0, -1])
def test_r1_max_words_below_one_is_an_error(max_words):
    with pytest.raises(ValueError, match="max_words"):
        split_passages("some text", max_words=max_words)


def test_r1_default_cap_is_200():
    assert DEFAULT_MAX_WORDS == 200


_TEXT = st.text(alphabet=st.sampled_from(list("abc \n\t\r")), max_size=400)


@hypothesis.settings(max_examples=300, deadline=None)
@given(text=_TEXT, max_words=st.integers(min_value=1, max_value=12))
def test_r1_property_no_passage_over_the_cap_and_none_empty(text, max_words):
    for passage in split_passages(text, max_words):
        assert 1 <= len(passage.split()) <= max_words


@hypothesis.settings(max_examples=300, deadline=None)
@given(text=_TEXT, max_words=st.integers(min_value=1, max_value=12))
def test_r1_property_every_word_kept_in_order(text, max_words):
    passages = split_passages(text, max_words)
    assert [w for passage in passages for w in passage.split()] == text.split()


@hypothesis.settings(max_examples=200, deadline=None)
@given(
    paragraphs=st.lists(
        st.lists(st.sampled_from(["x", "yy", "zzz", "q."]), min_size=1, max_size=8),
        max_size=10,
    ),
    max_words=st.integers(min_value=8, max_value=20),
)
def test_r1_property_paragraphs_under_the_cap_survive_verbatim(paragraphs, max_words):
    # A quote copied from one paragraph stays a substring of some passage.
    texts = [" ".join(paragraph) for paragraph in paragraphs]
    passages = split_passages("\n\n".join(texts), max_words)
    for text in texts:
        assert any(text in passage for passage in passages)


# -- R2: ranking ---------------------------------------------------------------------------------


def rank(claim: Vectors, passages: Vectors, k: int = 3) -> list[int]:
    """The ``k`` passages closest to the claim by cosine alone (R2), ties by position."""
    return order([float(score) for score in passages @ claim])[:k] if len(passages) else []


def _unit(*rows: Sequence[float]) -> Vectors:
    array = np.asarray(rows, dtype=np.float32)
    return array / np.linalg.norm(array, axis=1, keepdims=True)


def test_r2_ranks_by_cosine_similarity():
    claim = _unit([1.0, 0.0])[0]
    passages = _unit([0.0, 1.0], [0.6, 0.8], [1.0, 0.1], [0.8, 0.6])
    assert rank(claim, passages, k=4) == [2, 3, 1, 0]


def test_r2_ties_go_to_the_earlier_passage():
    claim = _unit([1.0, 0.0])[0]
    passages = _unit([0.0, 1.0], [1.0, 0.0], [0.5, 0.5], [1.0, 0.0], [1.0, 0.0])
    assert rank(claim, passages, k=3) == [1, 3, 4]
    assert rank(claim, passages, k=5) == [1, 3, 4, 2, 0]


def test_r2_keeps_only_the_top_3():
    claim = _unit([1.0, 0.0])[0]
    passages = _unit(*[[1.0, n / 10] for n in range(6)])
    assert rank(claim, passages) == [0, 1, 2]
    assert rank(claim, passages[:2]) == [0, 1]
    assert rank(claim, passages[:0]) == []


def test_r2_lexical_embedder_ranks_shared_words_first():
    embedder = LexicalEmbedder()
    texts = ["cats and dogs", "water boils at one hundred degrees", "boiling water"]
    claim = embedder.embed(["water boils at one hundred degrees"])[0]
    assert rank(claim, embedder.embed(texts), k=1) == [1]


# -- R3: evidence outside the top 3 ------------------------------------------------------------

CLAIM_R3 = "The harbour bridge opened to traffic in 1932."


#: Decoy sentences hold every word of the claim between them, but no sentence holds half of
#: its content words: they outrank the evidence lexically and by embedding, yet none of them
#: supports the claim.
_DECOY = "The harbour was busy in 1932. The bridge was long. It opened to all. Traffic in the town."


def _r3_page() -> str:
    # Three decoy passages (120 words each: a passage of its own, 120 + 120 > 200) rank above
    # the evidence, which is diluted by 150 unrelated words.
    decoys = [" ".join([_DECOY] * 6) for _ in range(3)]
    evidence = words(150, "filler") + " " + CLAIM_R3
    return "\n\n".join([*decoys, evidence])


def test_r3_evidence_only_in_4th_passage_never_reaches_the_judge(crawlbase, judge, verify):
    url = "https://example.org/bridge"
    page = _r3_page()
    assert len(split_passages(page)) == 4
    crawlbase.add(url, markdown=page)

    # A budget of 0: the top passages (what a claim in another language than its page gets).
    result, _ = verify(CLAIM_R3, [url], evidence_words=0)

    (call,) = judge.calls
    # The three decoys are neighbours on the page: the judge gets them as one slice.
    assert call.passages == ["\n\n".join(split_passages(page)[:3])]
    assert not any(CLAIM_R3 in passage for passage in call.passages)
    assert result.citations[0].label is Label.NOT_FOUND
    assert result.citations[0].evidence_quote is None


def test_r3_control_same_page_with_top_4_is_supported(crawlbase, judge, verify):
    url = "https://example.org/bridge"
    crawlbase.add(url, markdown=_r3_page())

    result, _ = verify(CLAIM_R3, [url], top_k=4, evidence_words=0)

    assert any(CLAIM_R3 in passage for passage in judge.calls[0].passages)
    assert result.citations[0].label is Label.SUPPORTED


def test_r3_evidence_outside_the_lines_shown_never_reaches_the_judge(crawlbase, judge, verify):
    # The default: lines of the page under a 560-word budget. Twice the decoys, so that the
    # page does not fit the budget: every decoy line holds all the claim's words, and the
    # lines chosen are decoys; the evidence line is left out and the claim ends not_found.
    url = "https://example.org/bridge"
    decoys = "\n\n".join(" ".join([_DECOY] * 6) for _ in range(3))
    page = f"{decoys}\n\n{_r3_page()}"
    crawlbase.add(url, markdown=page)

    result, _ = verify(CLAIM_R3, [url])

    (call,) = judge.calls
    assert sum(len(text.split()) for text in call.passages) <= 560 < len(page.split())
    assert not any(CLAIM_R3 in passage for passage in call.passages)
    assert all(_DECOY.split(".")[0] in passage for passage in call.passages)
    assert result.citations[0].label is Label.NOT_FOUND
    assert result.citations[0].evidence_quote is None


# -- Embedding cache ---------------------------------------------------------------------------


def test_same_text_is_never_embedded_twice_in_a_run(crawlbase, judge, make_verifier, article):
    same = article("Water boils at 100 degrees Celsius at sea level.")
    other = article("Ice melts at 0 degrees Celsius.", title="Ice")
    urls = ["https://a.org/water", "https://b.org/water-copy", "https://c.org/ice"]
    for url, page in zip(urls, [same, same, other], strict=True):
        crawlbase.add(url, markdown=page)
    claims = ["Water boils at 100 degrees Celsius.", "Ice melts at 0 degrees Celsius."]
    embedder = CountingEmbedder()

    async def scenario() -> None:
        async with make_verifier(embedder=embedder) as verifier:
            await verifier.verify_many(
                [ClaimRequest.of(claims[0], urls), ClaimRequest.of(claims[1], urls[1:])]
            )
            await verifier.verify(claims[0], urls)  # a second call in the same run
            await verifier.verify(same.split("\n\n")[1], urls[:1])  # a claim equal to a text

    asyncio.run(scenario())

    counts = Counter(embedder.texts)
    assert counts, "nothing was embedded"
    assert max(counts.values()) == 1, [text for text, n in counts.items() if n > 1]
    expected = set(split_passages(same)) | set(split_passages(other)) | set(claims)
    expected.add(same.split("\n\n")[1])
    assert set(counts) == expected


def test_disk_cache_is_reused_by_a_second_verifier(
    crawlbase, judge, make_verifier, article, tmp_path
):
    url = "https://example.org/water"
    crawlbase.add(url, markdown=article("Water boils at 100 degrees Celsius at sea level."))
    claim = "Water boils at 100 degrees Celsius at sea level."
    cache = tmp_path / "embeddings"

    def run_once(embedder: CountingEmbedder):
        async def scenario():
            async with make_verifier(embedder=embedder, embedding_cache_dir=cache) as verifier:
                return await verifier.verify(claim, [url])

        return asyncio.run(scenario())

    first_embedder, second_embedder = CountingEmbedder(), CountingEmbedder()
    first = run_once(first_embedder)
    second = run_once(second_embedder)

    assert first_embedder.texts
    assert second_embedder.texts == []
    assert second == first
    assert first.label is Label.SUPPORTED
    assert (cache / "embeddings.sqlite").is_file()

    other_model = CountingEmbedder(name="another-model")
    run_once(other_model)
    assert sorted(other_model.texts) == sorted(first_embedder.texts)  # keyed by model too


def test_embedding_cache_unit_batches_only_missing_texts(tmp_path):
    embedder = CountingEmbedder()
    cache = EmbeddingCache(embedder, tmp_path)
    try:
        first = cache.embed(["a b", "c d", "a b"])
        second = cache.embed(["c d", "e f"])
    finally:
        cache.close()
    assert embedder.texts == ["a b", "c d", "e f"]
    assert embedder.batches == 2
    assert cache.computed == 3
    np.testing.assert_array_equal(first[0], first[2])
    np.testing.assert_array_equal(first[1], second[0])

    reopened_embedder = CountingEmbedder()
    reopened = EmbeddingCache(reopened_embedder, tmp_path)
    try:
        again = reopened.embed(["e f", "a b"])
    finally:
        reopened.close()
    assert reopened_embedder.texts == []
    np.testing.assert_array_equal(again[0], second[1])
    np.testing.assert_array_equal(again[1], first[0])
