"""The assistant's answers, checked against the pages they cite on every run.

Each test asks the assistant a question and checks every claim of its answer with
``check_answer``; the traffic goes to the test's own cassette (``cassettes/tests/…``), so a
run without tokens replays it offline and one with tokens records only what is new.
"""

import pytest
from assistant import QUESTIONS, answer

from pytest_citations import assert_answer


@pytest.mark.parametrize("question", QUESTIONS, ids=lambda question: question.id)
def test_the_answer_is_supported_by_its_citations(citation_verifier, question):
    verdicts = citation_verifier.check_answer(answer(question.text))
    assert_answer(verdicts)  # fails anything its own citations do not fully support
