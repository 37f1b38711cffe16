"""Never a stale pass (issue 19): a cassette that holds retrieval's choices still fails, with
the command that records it, when what was recorded no longer fits the run: another claim
text, another retrieval setting given explicitly (an error naming both values, never a
silent use of either), another judge model. The shipped example, replayed as a user would."""

from __future__ import annotations

from ops_support import copy_examples
from plugin_helpers import NO_CACHE, Citations

CASE = "cases/boiling-point.yaml"
RECORD = "pytest --citations cases/boiling-point.yaml --citations-record=new_episodes"


def replay(citations: Citations, *args: str) -> str:
    """The example replayed (default embedder, as recorded) with ``args``: its output."""
    copy_examples(citations.path)
    result = citations.pytester.runpytest("--citations", *NO_CACHE, CASE, *args)
    return " ".join(result.stdout.str().split())


def test_a_retrieval_setting_other_than_the_recorded_one_is_an_error_naming_both(
    citations: Citations,
) -> None:
    text = replay(citations, "--citations-top-k", "5")

    assert (
        "it chose the passages with --citations-top-k 3, and this run asks for 5: drop the "
        "option to replay the recording, or record it again with the option" in text
    )
    assert RECORD in text
    assert "2 errors" in text


def test_another_embedder_given_explicitly_is_an_error_naming_both(citations: Citations) -> None:
    text = replay(citations, "--citations-embedder", "lexical")

    assert (
        "it chose the passages with --citations-embedder all-MiniLM-L6-v2, and this run asks "
        "for lexical" in text
    )


def test_the_recorded_settings_given_explicitly_replay(citations: Citations) -> None:
    text = replay(citations, "--citations-top-k", "3", "--citations-passage-words", "200")

    assert "1 failed, 2 passed" in text  # the example's contradicted claim, as recorded


def test_a_changed_claim_text_does_not_replay_the_recorded_verdict(citations: Citations) -> None:
    copy_examples(citations.path)
    case = citations.path / CASE
    case.write_text(
        case.read_text("utf-8").replace("On mountains water boils at 50 °C.", "On mountains "
        "water boils at 60 °C."), encoding="utf-8",
    )  # fmt: skip

    result = citations.pytester.runpytest("--citations", *NO_CACHE, CASE)
    text = " ".join(result.stdout.str().split())

    assert "has no recording of the judge call" in text
    assert RECORD in text
    assert "1 error" in text
    assert "contradicted" not in text.split("short test summary info")[-1]


def test_another_judge_model_does_not_replay_the_recorded_verdicts(citations: Citations) -> None:
    text = replay(citations, "--citations-model", "gpt-4.1")

    assert "has no recording of the judge call" in text
    assert "2 errors" in text
