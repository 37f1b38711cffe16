"""``pytest-citations merge`` keeps what a reviewer sees (issue 27): the shards' reports carry
each case's answer and each claim's place in it, and the merged JSON, HTML and Markdown
render them as the serial run does, the claims linked to their lines at the commit the
merge is given. Gates given explicitly."""

from __future__ import annotations

import json
import re

import pytest
from ops_support import base_env, run_cli
from plugin_helpers import BOILING_URL, OLD_REPORT_URL, RETURNS_URL, Citations, load_report

WATER = f"""\
id: water
answer: Water boils at 100 °C at sea level [1][2]. On mountains water boils at 50 °C [1].
citations:
  1: {BOILING_URL}
  2: {OLD_REPORT_URL}
"""
RETURNS = f"""\
id: returns
answer: |
  Customers can return hardware within 30 days [1].
citations:
  1: {RETURNS_URL}
"""
HEAD = "0123456789abcdef0123456789abcdef01234567"


def test_shards_merged_render_the_answers_and_link_the_lines(citations: Citations) -> None:
    citations.write("cases/water.yaml", WATER)
    citations.write("cases/returns.yaml", RETURNS)
    contradicted_only = "--citations-fail-on=contradicted"
    citations.record("cases/", contradicted_only, gate="args")
    citations.run("cases/", contradicted_only, "--citations-report", "serial.json", gate="args")
    for k in (1, 2):
        citations.run(
            "cases/", contradicted_only, f"--citations-shard={k}/2",
            "--citations-report", f"shard-{k}.json", gate="args",
        )
    env = {
        **base_env(citations.path),
        "GITHUB_SERVER_URL": "https://github.com",
        "GITHUB_REPOSITORY": "acme/answers",
        "GITHUB_SHA": "f" * 40,
        "GITHUB_WORKSPACE": str(citations.path),
        "CITATIONS_ARTIFACT": "citations-reports",
    }
    merged = run_cli("merge", "shard-1.json", "shard-2.json", "--report", "merged.json",
                     "--html", "merged.html", "--markdown", "merged.md", "--source-sha", HEAD,
                     env=env, cwd=citations.path)  # fmt: skip
    assert merged.returncode == 1, merged.stderr  # the contradicted claim fails the gate

    serial = {c["id"]: c for c in load_report(citations.path / "serial.json")["cases"]}
    found = {c["id"]: c for c in load_report(citations.path / "merged.json")["cases"]}
    assert set(found) == {"water", "returns"}
    for case_id, case in found.items():
        assert case["answer"] == serial[case_id]["answer"]
        spans = [claim["answer_span"] for claim in case["claims"]]
        assert spans == [claim["answer_span"] for claim in serial[case_id]["claims"]]
        assert all(span is not None for span in spans)
        for claim in case["claims"]:
            assert claim["link"] == (f"https://github.com/acme/answers/blob/{HEAD}/"
                                     f"cases/{case_id}.yaml#L{claim['line']}")  # fmt: skip
    page = (citations.path / "merged.html").read_text(encoding="utf-8")
    assert len(re.findall(r'<mark class="[^"]*" id="answer-', page)) == 3
    markdown = (citations.path / "merged.md").read_text(encoding="utf-8")
    assert f"(https://github.com/acme/answers/blob/{HEAD}/cases/water.yaml#L2)" in markdown
    assert "merged.html in the artifact citations-reports of this run" in markdown


FORGED = {
    "an answer that is no text": ("answer", 5, "its answer 5 is not text"),
    "a list for an answer": ("answer", ["<b>x</b>"], "its answer ['<b>x</b>'] is not text"),
    "a question that is no text": ("question", {"a": 1}, "its question {'a': 1} is not text"),
    "a span beyond the answer": ("answer_span", [0, 10**9], "lies beyond its case's answer"),
    "a span without an answer": ("answer", None, "lies beyond its case's answer"),
}


@pytest.mark.parametrize("forged", sorted(FORGED))
def test_a_shard_with_a_forged_answer_or_span_is_refused(citations: Citations, forged: str) -> None:
    """A shard's report is what a pull request can edit: an answer or question that is no
    text, or a claim's place beyond its case's answer, is refused with the shard named
    (found by the red team: the first three ended the merge in a traceback after it had
    written its JSON, the last two were written to the merged report as they came)."""
    citations.write("cases/returns.yaml", RETURNS)
    citations.write("cases/water.yaml", WATER)
    contradicted_only = "--citations-fail-on=contradicted"
    citations.record("cases/", contradicted_only, gate="args")
    for k in (1, 2):
        citations.run(
            "cases/", contradicted_only, f"--citations-shard={k}/2",
            "--citations-report", f"shard-{k}.json", gate="args",
        )
    shard = citations.path / "shard-1.json"
    report = json.loads(shard.read_text(encoding="utf-8"))
    case = report["cases"][0]
    key, value, said = FORGED[forged]
    (case["claims"][0] if key == "answer_span" else case)[key] = value
    shard.write_text(json.dumps(report), encoding="utf-8")

    merged = run_cli("merge", "shard-1.json", "shard-2.json", "--report", "merged.json",
                     "--html", "merged.html", env=base_env(citations.path),
                     cwd=citations.path)  # fmt: skip

    assert merged.returncode == 2, merged.stderr
    assert "Traceback" not in merged.stderr
    assert "shard-1.json is not a complete pytest-citations JSON report" in merged.stderr
    assert said in merged.stderr
    assert not (citations.path / "merged.json").exists()
