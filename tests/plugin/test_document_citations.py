"""A claim citing a document the answer's record gives no URL for (issue 26: an Anthropic
document citation of a plain-text or PDF document): the case file names the document as the
provider did, with its pages and the text it cited; nothing can fetch it, so its claim is
not checked, with a reason that says so. It is never a pass and never a label, not even
with ``--citations-allow-unchecked``, and it is not "uncited" (it cites something)."""

from __future__ import annotations

import pytest
from plugin_helpers import BOILING_URL, Citations, load_report

CASE = f"""\
id: amazon-revenue
question: What was Amazon's total revenue in 2023?
answer: Amazon's total revenue grew 12% to $575B in 2023.[1] Water boils at 100 °C at sea level.[2]
citations:
  1:
    document: Amazon 2023 Shareholder Letter
    pages: "1"
    text: In 2023, Amazon's total revenue grew 12% year-over-year from $514B to $575B.
  2: {BOILING_URL}
claims:
  - text: Amazon's total revenue grew 12% to $575B in 2023.
    cites: [1]
  - text: Water boils at 100 °C at sea level.
    cites: [2]
"""
REASON = (
    "document: Amazon 2023 Shareholder Letter, page 1: document_without_url (the cited "
    "document has no URL, so it cannot be fetched; add its URL to the case file to check it)"
)


@pytest.fixture
def documents(citations: Citations) -> Citations:
    citations.write("cases/amazon.yaml", CASE)
    return citations


@pytest.mark.parametrize("opt_out", [(), ("--citations-allow-unchecked",)], ids=["", "opt-out"])
def test_a_document_without_a_url_is_not_checked_never_a_pass(
    documents: Citations, opt_out: tuple[str, ...]
) -> None:
    with documents.web() as web:
        recorded = documents.run(
            "cases/", "--citations-record=once", "--citations-fail-on=contradicted", *opt_out,
            gate="args"
        )
    assert web.crawlbase.crawl_count >= 1  # the page was fetched; the document never
    replayed = documents.run(
        "cases/", "--citations-fail-on=contradicted", "--citations-report=report.json", *opt_out,
        gate="args"
    )
    for result in (recorded, replayed):
        result.assert_outcomes(errors=1, passed=2)  # claim-2 and the case item
        result.stdout.fnmatch_lines(["Release decision: incomplete (*"])
        assert result.ret == pytest.ExitCode.TESTS_FAILED
        result.stdout.fnmatch_lines(
            [
                "*ERROR at setup of amazon-revenue::claim-1*",
                "claim could not be checked: 1 of 1 citations unchecked",
                f"  {REASON}",
                "Give the document's URL in the case file's citations*",
            ]
        )
        assert "Release decision: pass" not in result.stdout.str()
    claim = load_report(documents.path / "report.json")["cases"][0]["claims"][0]
    assert claim["decision"] == "incomplete"
    assert claim["label"] != "uncited"


def test_a_document_entry_is_checked_like_any_key(citations: Citations) -> None:
    citations.write(
        "cases/bad.yaml",
        """\
        id: bad
        answer: A claim.[1]
        citations:
          1:
            title: Not the key
        claims:
          - text: A claim.
            cites: [1]
        """,
    )
    result = citations.run("cases/", "--collect-only", gate="default")
    result.stdout.fnmatch_lines(["*bad.yaml:5: unknown key 'title' in citation [[]1[]]*"])
