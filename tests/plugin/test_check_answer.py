"""``citation_verifier.check_answer(response)`` (issue 11): one answer object of a real RAG
stack, here an OpenAI Responses API response with ``url_citation`` annotations
(``tests/data/answers/openai_responses_web_search.json``), verified claim by claim inside an
ordinary test, with the test's own cassette, offline on replay."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from plugin_helpers import Citations, Web

ANSWER = (
    Path(__file__).resolve().parent.parent / "data" / "answers" / "openai_responses_web_search.json"
)
# The answer cites these with OpenAI's ``?utm_source=openai``; the page is the same without it,
# and that is the URL fetched and recorded.
TIMED_ENTRY = "https://www.nps.gov/arch/planyourvisit/timed-entry-reservations.htm"
DELICATE_ARCH = "https://en.wikipedia.org/wiki/Delicate_Arch"
HOURS = "https://www.nps.gov/arch/planyourvisit/hours.htm"
RETRIEVED = "https://www.utah.com/destinations/national-parks/arches/"

TIMED_ENTRY_PAGE = """\
# Timed entry reservations

Arches National Park uses timed entry tickets from April 1 to October 31, between 7 a.m. and
4 p.m. Visitors who enter outside those hours do not need a ticket.

Tickets are released three months ahead, on the first day of each month, and cost $4 per
vehicle on top of the park entrance fee. Tickets are not transferable.

A limited number of next-day tickets are released at 7 p.m. the evening before. Campers with
a reservation at Devils Garden Campground enter with their campground reservation instead.
"""
DELICATE_ARCH_PAGE = """\
# Delicate Arch

Delicate Arch stands 52 feet tall and is the most photographed arch in the park, shown on
Utah licence plates and on a postage stamp.

The trail to the arch climbs 480 feet over three miles there and back, across open slickrock
with no shade. Rangers advise starting early in summer and carrying plenty of water.

The arch formed as the Entrada Sandstone eroded along joints; the lower, softer layer wore
away faster than the rim of harder rock above it, which now forms the span.
"""
UTAH_PAGE = """\
# Arches National Park

More than two thousand natural stone arches stand in the park, among the red rock fins and
balanced rocks of the Colorado Plateau near the town of Moab.

The scenic drive runs eighteen miles from the visitor center to Devils Garden, with short
walks to viewpoints along the way. Sunset and sunrise bring out the colour of the stone.
"""

TESTS = f"""\
import json
from pathlib import Path

from pytest_citations import Label

ANSWER = json.loads(Path("answer.json").read_text(encoding="utf-8"))


def test_the_answer(citation_verifier):
    verdicts = citation_verifier.check_answer(ANSWER)
    assert [v.label for v in verdicts] == [
        Label.SUPPORTED, Label.CONTRADICTED, Label.SUPPORTED, Label.UNREACHABLE, Label.UNCITED,
    ]
    assert verdicts[1].claim == "Tickets are released three months ahead and cost $2 per vehicle."
    assert [c.url for c in verdicts[1].citations] == [{TIMED_ENTRY!r}]
    assert verdicts[3].citations[0].reason == "http_404"
    assert citation_verifier.verdicts == verdicts


def test_the_format_named(citation_verifier):
    verdicts = citation_verifier.check_answer(ANSWER, format="openai-responses")
    assert verdicts[2].label is Label.SUPPORTED


def test_a_shape_it_cannot_read(citation_verifier):
    citation_verifier.check_answer(ANSWER, format="anthropic")
"""


def serve(web: Web) -> None:
    web.crawlbase.add(TIMED_ENTRY, markdown=TIMED_ENTRY_PAGE)
    web.crawlbase.add(DELICATE_ARCH, markdown=DELICATE_ARCH_PAGE)
    web.crawlbase.add(HOURS, markdown="# Not found\n", original_status=404)
    web.crawlbase.add(RETRIEVED, markdown=UTAH_PAGE)


@pytest.fixture
def answer_tests(citations: Citations) -> Citations:
    shutil.copyfile(ANSWER, citations.path / "answer.json")
    citations.pytester.makepyfile(test_answer=TESTS)
    return citations


def check(result: pytest.RunResult) -> None:
    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines(
        [
            "*_ test_a_shape_it_cannot_read _*",
            "check_answer cannot read the answer: the record does not have the anthropic "
            "shape: expected 'content' as a list of blocks",
        ]
    )


def test_check_answer_verifies_every_claim_in_the_tests_cassette(answer_tests: Citations) -> None:
    with answer_tests.web() as web:
        serve(web)
        recorded = answer_tests.run_tests("--citations-record=once")
    check(recorded)
    assert (answer_tests.path / "cassettes/test_answer/test_the_answer.yaml").is_file()

    replayed = answer_tests.run_tests()

    check(replayed)


def test_check_answer_fails_on_a_citation_it_could_not_check(answer_tests: Citations) -> None:
    # Nothing recorded: a replay cannot check any citation, and says how to record them.
    result = answer_tests.run_tests("test_answer.py::test_the_answer")

    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "*claim could not be checked: 1 of 1 citations unchecked*",
            "*cassettes/test_answer/test_the_answer.yaml has no recording of the Crawlbase crawl*",
        ]
    )

