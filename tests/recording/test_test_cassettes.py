"""The cassettes of ordinary tests (issue 11): pytest-recording's layout,
``cassettes/<test dir>/<module>/<Class>.<test>.yaml``, so that two tests of one name in two
folders never share a file; cassettes of the older layout (``cassettes/<module>/<test>.yaml``)
still replay, and a recording copies them to the new path rather than sending again."""

from __future__ import annotations

from pathlib import Path

from plugin_helpers import (
    BOILING_URL,
    REFUNDS_CLAIM,
    REFUNDS_URL,
    SUPPORTED_CLAIM,
    Citations,
    crawled_urls,
)

from pytest_citations.recording import CassetteLibrary, RecordMode, build_vcr
from pytest_citations.recording.files import read_cassette
from pytest_citations.recording.layout import CassetteLayout
from pytest_citations.sanitize import Redactor

BOILS = f"""\
def test_boils(citation_verifier):
    citation_verifier.assert_supported({SUPPORTED_CLAIM!r}, {BOILING_URL!r})
"""
#: A test of the same name whose claim cites another page.
REFUNDS = f"""\
def test_boils(citation_verifier):
    citation_verifier.assert_supported({REFUNDS_CLAIM!r}, {REFUNDS_URL!r})
"""


def write_package(citations: Citations, folder: str, text: str) -> None:
    citations.write(f"{folder}/__init__.py", "")
    citations.write(f"{folder}/test_answers.py", text)


def test_tests_of_one_name_in_two_folders_get_a_cassette_each(citations: Citations) -> None:
    write_package(citations, "tests/water", BOILS)
    write_package(citations, "tests/shop", REFUNDS)

    with citations.web():
        recorded = citations.run_tests("--citations-record=once")
    replayed = citations.run_tests()

    recorded.assert_outcomes(passed=2)
    replayed.assert_outcomes(passed=2)
    cassettes = citations.path / "cassettes" / "tests"
    assert sorted(str(p.relative_to(cassettes)) for p in cassettes.rglob("*.yaml")) == [
        "shop/test_answers/test_boils.yaml",
        "water/test_answers/test_boils.yaml",
    ]
    assert crawled_urls(cassettes / "water/test_answers/test_boils.yaml") == [BOILING_URL]
    assert crawled_urls(cassettes / "shop/test_answers/test_boils.yaml") == [REFUNDS_URL]


def old_layout(citations: Citations) -> tuple[Path, Path]:
    """``tests/test_answers.py::test_boils`` recorded, its cassette then moved to the older
    layout: ``(old path, new path)``."""
    citations.write("tests/test_answers.py", BOILS)
    with citations.web():
        citations.run_tests("--citations-record=once").assert_outcomes(passed=1)
    new = citations.path / "cassettes/tests/test_answers/test_boils.yaml"
    old = citations.path / "cassettes/test_answers/test_boils.yaml"
    old.parent.mkdir(parents=True)
    new.rename(old)
    return old, new


def test_a_cassette_of_the_older_layout_still_replays(citations: Citations) -> None:
    old, new = old_layout(citations)

    replayed = citations.run_tests()

    replayed.assert_outcomes(passed=1)
    assert not new.exists()  # a replay writes nothing
    assert crawled_urls(old) == [BOILING_URL]


def test_a_recording_copies_an_older_cassette_to_the_new_path_and_sends_nothing_again(
    citations: Citations,
) -> None:
    old, new = old_layout(citations)
    before = old.read_bytes()

    with citations.web() as web:
        recorded = citations.run_tests("--citations-record=new_episodes")

    recorded.assert_outcomes(passed=1)
    assert web.requests == 0  # everything it needed was in the older cassette
    assert crawled_urls(new) == [BOILING_URL]
    assert old.read_bytes() == before  # recordings go only to the new path
    citations.run_tests().assert_outcomes(passed=1)


def test_an_older_path_that_is_now_another_tests_cassette_is_not_borrowed(
    citations: Citations,
) -> None:
    # The root module's test owns cassettes/test_answers/test_boils.yaml in the new layout;
    # the same path is where the older layout kept the cassette of sub/test_answers.py.
    citations.write("test_answers.py", BOILS)
    with citations.web():
        citations.run_tests("test_answers.py", "--citations-record=once")
    write_package(citations, "sub", BOILS)

    result = citations.run_tests()

    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(
        ["*cassettes/sub/test_answers/test_boils.yaml has no recording of the Crawlbase crawl*"]
    )


def test_copying_an_older_cassette_to_the_new_path_keeps_retrieval_s_choices(
    citations: Citations,
) -> None:
    old, new = old_layout(citations)
    _, section = read_cassette(old.read_bytes())
    assert section  # the recording kept what retrieval chose
    library = CassetteLibrary(build_vcr(Redactor()), RecordMode.NEW_EPISODES, str)
    layout = CassetteLayout(library, citations.path / "cassettes", citations.path, records=True)

    path = layout.test(
        citations.path / "tests" / "test_answers.py",
        "tests/test_answers.py::test_boils",
        "test_boils",
        [],
        opening=True,
    )

    assert path == new
    interactions, copied = read_cassette(new.read_bytes())
    assert copied == section
    assert [r.uri for r, _ in interactions] == [
        r.uri for r, _ in read_cassette(old.read_bytes())[0]
    ]
